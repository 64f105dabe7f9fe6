// Pure: one OpenTSDB 2.4.1 sub-query's computation, matching stored series in, result series out
// (docs/TSDB-COMPUTE.md).
// Design notes: docs/DECISIONS.md#one-sub-query-computed

import { getAggregator } from './aggregators.ts';
import type { AggregateFn } from './aggregators.ts';
import { aggregateSteps } from './aggregation-iterator.ts';
import { Downsampler, FillingDownsampler, downsampleFixed } from './downsampler.ts';
import type { DownsampleSpec } from './downsampler.ts';
import { groupSeries, groupTags, orderSeries } from './group.ts';
import type { SeriesOrder } from './group.ts';
import { scanRange, specIntervalMs } from './range.ts';
import type { ScanRange } from './range.ts';
import { runAtOnce, STEP_WORK } from './steps.ts';
import { RateSpan, SpanView } from './views.ts';
import type { SeekableView } from './views.ts';
import type { Downsample, ResultSeries, SeriesInput, SubQuery } from '../series-language/types.ts';

export interface QueryRange {
  readonly startMs: number;
  readonly endMs: number;
}

export interface ComputeOptions {
  /**
   * Treat raw values that are safe integers as OpenTSDB longs. The TSD stores a value written without
   * '.', 'e' or 'E' as a long (Tags.looksLikeInteger) and, where every point at a timestamp is a long
   * and there is neither downsampling nor rate, aggregates in integer arithmetic (avg truncates, LERP
   * truncates, percentiles use the ep*r3/ep*r7 estimation). Our cells are doubles and cannot tell 42
   * from 42.0, so this is a guess the caller opts into; default false: every value is a double.
   */
  readonly integerValues?: boolean;
  /**
   * The order of the series within a group, which first, last and diff across series depend on.
   * Default: name order for those three (group.ts nameOrder), 2.4.1's order for an unsalted TSD whose
   * UIDs follow name order; the given order for the rest. A caller that knows a TSD's UIDs and salting
   * can give that TSD's order, applied whatever the aggregator (the compat tests do, from recorded
   * tsuids: scripts/lib/compat/tsd-order.ts).
   */
  readonly seriesOrder?: SeriesOrder;
}

/** A bucketed series already holds one value per bucket: the downsampler only places it. */
const takeBucketValue: AggregateFn = (values) => values[0] ?? Number.NaN;

export function downsampleSpec(ds: Downsample, fn: AggregateFn): DownsampleSpec {
  return {
    all: ds.all,
    calendar: ds.calendar,
    intervalMs: specIntervalMs(ds),
    count: ds.count,
    unit: ds.unit,
    timezone: ds.timezone,
    fn,
    fill: ds.fill,
  };
}

function clip(s: SeriesInput, scan: ScanRange): SeriesInput {
  let lo = 0;
  while (lo < s.ts.length && (s.ts[lo] ?? 0) < scan.startMs) lo++;
  let hi = lo;
  while (hi < s.ts.length && (s.ts[hi] ?? 0) < scan.endMs) hi++;
  if (lo === 0 && hi === s.ts.length) return s;
  return { ...s, ts: s.ts.slice(lo, hi), values: s.values.slice(lo, hi) };
}

/**
 * Raw points under a fixed interval (not calendar, not `all`) bucketed at once, as the Downsampler
 * would bucket them (downsampleFixed), to be placed like any bucketed series; anything else as it is.
 */
function bucketedAtOnce(ds: Downsample | undefined, s: SeriesInput): SeriesInput {
  if (s.kind !== 'raw' || ds === undefined || ds.all || ds.calendar) return s;
  return { kind: 'buckets', tags: s.tags, ...downsampleFixed(s.ts, s.values, specIntervalMs(ds), getAggregator(ds.aggregator).run) };
}

/** The per-series view: the span, downsampled (bucketed input: placed in its buckets), then rate. */
export function seriesView(
  sub: SubQuery,
  s: SeriesInput,
  frame: { readonly scan: ScanRange; readonly range: QueryRange },
  options: ComputeOptions = {},
): SeekableView {
  const { scan, range } = frame;
  const ds = sub.downsample;
  let view: SeekableView = new SpanView(s.ts, s.values, s.kind === 'raw' && options.integerValues === true);
  if (s.kind === 'buckets') {
    if (ds === undefined) throw new Error('bucketed series need a downsample specification');
    if (ds.all && ds.fill !== 'none') throw new Error('bucketed series answer a 0all downsample only with fill none');
  }
  // A bucketed series holds one value per bucket at the bucket's aligned start, ascending: the
  // Downsampler (fill none) would give back exactly its points, and its seek lands where the span's
  // does (the first bucket at or after the target). Only the filling downsampler adds points. (A
  // `0all` bucketed series is its one value stamped with the query's start, as the Downsampler stamps it.)
  if (ds !== undefined && !(s.kind === 'buckets' && ds.fill === 'none' && !ds.calendar)) {
    const fn = s.kind === 'buckets' ? takeBucketValue : getAggregator(ds.aggregator).run;
    const spec = downsampleSpec(ds, fn);
    view = ds.fill === 'none' ? new Downsampler(view, spec, range.startMs, range.endMs) : new FillingDownsampler(view, scan, spec, range);
  }
  if (sub.rate) view = new RateSpan(view, sub.rateOptions);
  return view;
}

export function computeSubQuery(sub: SubQuery, range: QueryRange, series: readonly SeriesInput[], options: ComputeOptions = {}): ResultSeries[] {
  return runAtOnce(computeSteps(sub, range, series, options));
}

/** computeSubQuery as steps (steps.ts): yields between series and every STEP_WORK units of work, so a caller can pause. */
export function* computeSteps(sub: SubQuery, range: QueryRange, series: readonly SeriesInput[], options: ComputeOptions = {}): Generator<void, ResultSeries[]> {
  const aggregator = getAggregator(sub.aggregator);
  const scan = scanRange(sub.downsample, range.startMs, range.endMs);
  const clipped: SeriesInput[] = [];
  for (const s of series) {
    // one series a step (a pause may follow each): its cut and, under a fixed interval, its buckets
    const c = clip(s, scan);
    if (c.ts.length > 0) clipped.push(bucketedAtOnce(sub.downsample, c));
    yield;
  }
  const inScan = orderSeries(clipped, sub.aggregator, options.seriesOrder);
  const nullFill = sub.downsample?.fill === 'null';
  const out: ResultSeries[] = [];
  for (const group of groupSeries(inScan, sub.filters, sub.aggregator === 'none')) {
    const views = group.series.map((s) => seriesView(sub, s, { scan, range }, options));
    const points = yield* aggregateSteps(views, scan, aggregator, sub.rate);
    const dps: [number, number | null][] = [];
    for (let i = 0; i < points.ts.length; i++) {
      if (i % STEP_WORK === STEP_WORK - 1) yield;
      const ts = points.ts[i] as number;
      const v = points.values[i] as number;
      if (ts < range.startMs || ts > range.endMs) continue;
      dps.push([ts, nullFill && Number.isNaN(v) ? null : v]);
    }
    const { tags, aggregateTags } = groupTags(group.series);
    out.push({ metric: sub.metric, tags, aggregateTags, dps });
    yield;
  }
  return out;
}
