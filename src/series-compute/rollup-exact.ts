// Pure: when a sub-query's downsampling can be answered exactly from rollup window summaries, and how
// the summaries become one downsample value per bucket.
// Design notes: docs/DECISIONS.md#exact-answers-from-rollups

import type { AggregatorName, SubQuery } from '../series-language/types.ts';

export const ROLLUP_EXACT_AGGREGATORS = ['sum', 'count', 'min', 'max', 'avg', 'first', 'last', 'zimsum', 'mimmin', 'mimmax'] as const;
type RollupAggregator = (typeof ROLLUP_EXACT_AGGREGATORS)[number];

export function isRollupAggregator(name: AggregatorName): name is RollupAggregator {
  return (ROLLUP_EXACT_AGGREGATORS as readonly string[]).includes(name);
}

export type RollupChoice = { readonly exact: true; readonly windowMs: number } | { readonly exact: false; readonly reason: string };

/** The largest rollup window that answers this sub-query exactly, or why none does. */
export function isRollupExact(sub: SubQuery, windowMs: readonly number[]): RollupChoice {
  const ds = sub.downsample;
  if (ds === undefined) return { exact: false, reason: 'no downsampling' };
  if (ds.all) return { exact: false, reason: '0all: one bucket over the query range, not window-aligned' };
  if (ds.calendar) return { exact: false, reason: 'calendar buckets' };
  if (!(ds.intervalMs > 0)) return { exact: false, reason: 'no fixed interval length' };
  if (!isRollupAggregator(ds.aggregator)) return { exact: false, reason: `${ds.aggregator} is not computable from count/sum/min/max/first/last` };
  let best = 0;
  for (const w of windowMs) if (w > 0 && Number.isInteger(w) && ds.intervalMs % w === 0 && w > best) best = w;
  if (best === 0) return { exact: false, reason: `no rollup window divides ${ds.intervalMs} ms` };
  return { exact: true, windowMs: best };
}

/**
 * One rollup window of one series: start (epoch ms, a multiple of the window) and its summary's count,
 * sum, min, max, first and last (the values at its earliest and latest ts). Declared here, where it is
 * folded, so the computation imports nothing of the rollup job (a summary pack's entry,
 * src/rollup/summary-pack.ts PackedSummary, fits it).
 */
export interface WindowSummary {
  readonly startMs: number;
  readonly count: number;
  readonly sum: number;
  readonly min: number;
  readonly max: number;
  readonly first: number;
  readonly last: number;
}

/**
 * Folds window summaries, ascending by startMs, into one value per downsample bucket of intervalMs
 * for the aggregator, one window at a time (no array of them in between). Windows with count 0 are
 * ignored (a bucket exists only where raw points exist, as in the raw path).
 */
export class BucketFolder {
  readonly ts: number[] = [];
  readonly values: number[] = [];
  readonly #intervalMs: number;
  readonly #aggregator: RollupAggregator;
  readonly #cur = { start: Number.NaN, count: 0, sum: 0, min: 0, max: 0, first: 0, last: 0 };
  #open = false;

  constructor(intervalMs: number, aggregator: AggregatorName) {
    if (!isRollupAggregator(aggregator)) throw new Error(`${aggregator} cannot be computed from window summaries`);
    this.#intervalMs = intervalMs;
    this.#aggregator = aggregator;
  }

  add(w: WindowSummary): void {
    this.addFields(w.startMs, w.count, w.sum, w.min, w.max, w.first, w.last);
  }

  /** One window given field by field (a summary run's numbers: summary-pack.ts). */
  // eslint-disable-next-line @typescript-eslint/max-params -- per-window hot path (every raw point of a 0all tile too): the numbers are passed unboxed, no object per call
  addFields(startMs: number, count: number, sum: number, min: number, max: number, first: number, last: number): void {
    if (count <= 0) return;
    const cur = this.#cur;
    const start = startMs - (startMs % this.#intervalMs);
    if (this.#open && cur.start === start) {
      cur.count += count;
      cur.sum += sum;
      if (min < cur.min) cur.min = min;
      if (max > cur.max) cur.max = max;
      cur.last = last;
      return;
    }
    if (this.#open && start < cur.start) throw new Error('window summaries must be ascending by startMs');
    this.#flush();
    this.#open = true;
    cur.start = start;
    cur.count = count;
    cur.sum = sum;
    cur.min = min;
    cur.max = max;
    cur.first = first;
    cur.last = last;
  }

  /** The buckets: the `ts`/`values` of a BucketedSeries. */
  finish(): { ts: number[]; values: number[] } {
    this.#flush();
    this.#open = false;
    return { ts: this.ts, values: this.values };
  }

  #flush(): void {
    if (!this.#open) return;
    this.ts.push(this.#cur.start);
    this.values.push(valueOf(this.#cur, this.#aggregator));
  }
}

/** Merges window summaries (ascending by startMs) into one value per downsample bucket (BucketFolder over all of them). */
export function bucketsFromSummaries(windows: readonly WindowSummary[], intervalMs: number, aggregator: AggregatorName): { ts: number[]; values: number[] } {
  const f = new BucketFolder(intervalMs, aggregator);
  for (const w of windows) f.add(w);
  return f.finish();
}

function valueOf(b: { count: number; sum: number; min: number; max: number; first: number; last: number }, agg: RollupAggregator): number {
  switch (agg) {
    case 'sum':
    case 'zimsum':
      return b.sum;
    case 'count':
      return b.count;
    case 'min':
    case 'mimmin':
      return b.min;
    case 'max':
    case 'mimmax':
      return b.max;
    case 'avg':
      return b.sum / b.count;
    case 'first':
      return b.first;
    case 'last':
      return b.last;
  }
}
