// computeSubQuery end to end: TestTsdbQueryDownsample.java vectors (scan bounds, downsample, rate,
// 0all), the facts measured against the 2.4.1 TSD in /work/shared/OPENTSDB-NOTES.md, grouping and tags.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { computeSubQuery } from '../../../src/series-compute/compute.ts';
import { scanRange } from '../../../src/series-compute/range.ts';
import type { AggregatorName, Downsample, FillPolicy, IntervalUnit, RawSeries, SeriesInput, SubQuery, TagFilter } from '../../../src/series-language/types.ts';
import { assertPoints } from './compute-helpers.ts';

const UNIT_MS: Record<IntervalUnit, number> = { ms: 1, s: 1000, m: 60_000, h: 3600_000, d: 86_400_000, w: 604_800_000, n: 0, y: 0 };

function ds(
  count: number,
  unit: IntervalUnit,
  aggregator: AggregatorName,
  more: { readonly fill?: FillPolicy; readonly calendar?: boolean; readonly timezone?: string } = {},
): Downsample {
  const { fill = 'none', calendar = false, timezone = 'UTC' } = more;
  return {
    spec: `${count}${unit}${calendar ? 'c' : ''}-${aggregator}-${fill}`,
    all: false,
    count,
    unit,
    intervalMs: count * UNIT_MS[unit],
    calendar,
    timezone,
    aggregator,
    fill,
  };
}
const ALL = (aggregator: AggregatorName): Downsample => ({
  spec: `0all-${aggregator}`,
  all: true,
  count: 0,
  unit: 'ms',
  intervalMs: 0,
  calendar: false,
  timezone: 'UTC',
  aggregator,
  fill: 'none',
});

function sub(aggregator: AggregatorName, downsample?: Downsample, opts: { rate?: boolean; filters?: TagFilter[] } = {}): SubQuery {
  return {
    index: 0,
    metric: 'sys.cpu.user',
    aggregator,
    downsample,
    rate: opts.rate ?? false,
    rateOptions: { counter: false, counterMax: Number.MAX_SAFE_INTEGER, resetValue: 0, dropResets: false },
    filters: opts.filters ?? [],
    explicitTags: false,
  };
}
const raw = (tags: Record<string, string>, points: readonly (readonly [number, number])[]): RawSeries => ({
  kind: 'raw',
  tags,
  ts: points.map((p) => p[0]),
  values: points.map((p) => p[1]),
});
const groupBy = (tagk: string): TagFilter => ({ type: 'wildcard', tagk, filter: '*', groupBy: true });

const T0 = 1356998400000;
/** BaseTsdbTest.storeFloatTimeSeriesSeconds: 1.25, 1.5, … 76 every 30 s from T0 + 30 s (host=web01). */
const FLOAT_SERIES = raw(
  { host: 'web01' },
  Array.from({ length: 300 }, (_, k) => [T0 + 30000 * (k + 1), 1.25 + 0.25 * k] as const),
);
/** BaseTsdbTest.storeLongTimeSeriesSeconds: 1 … 300 every 30 s from T0 + 30 s. */
const LONG_SERIES = raw(
  { host: 'web01' },
  Array.from({ length: 300 }, (_, k) => [T0 + 30000 * (k + 1), k + 1] as const),
);

test('TestTsdbQueryDownsample.downsampleFullyAligned / downsampleUnaligned / downsampleWeirdly: scan bounds', () => {
  const oneMin = ds(60, 's', 'sum');
  assert.deepEqual(scanRange(oneMin, 1356998400000, 1357041600000), { startMs: 1356998400000, endMs: 1357045200000 });
  const now = 1427415547;
  assert.deepEqual(scanRange(ds(15, 'm', 'sum'), (now - 43200) * 1000, now * 1000), { startMs: 1427371200000, endMs: 1427418000000 });
  assert.deepEqual(scanRange(ds(1, 'd', 'sum'), (now - 43200) * 1000, now * 1000), { startMs: 1427328000000, endMs: 1427500800000 });
  // without downsampling: back to the hour, forward to the NEXT hour even when aligned
  assert.deepEqual(scanRange(undefined, T0 + 1234, T0 + 3600000), { startMs: T0, endMs: T0 + 7200000 });
});

test('TestTsdbQueryDownsample.runFloatSingleTSDownsample: 1m-avg gives 151 buckets, 1.25, (i+2.25)/2 …, 76', () => {
  const [r, ...rest] = computeSubQuery(sub('sum', ds(1, 'm', 'avg')), { startMs: T0, endMs: 1357041600000 }, [FLOAT_SERIES]);
  assert.equal(rest.length, 0);
  assert.ok(r !== undefined);
  const expected = Array.from({ length: 151 }, (_, i) => [T0 + 60000 * i, i === 0 ? 1.25 : i >= 150 ? 76 : (i + 2.25) / 2] as const);
  assertPoints(r.dps, expected);
  assert.deepEqual(r.tags, { host: 'web01' });
  assert.deepEqual(r.aggregateTags, []);
  assert.equal(r.metric, 'sys.cpu.user');
});

test('TestTsdbQueryDownsample.runFloatSingleTSDownsampleAndRate: rate after downsampling, 150 points from T0 + 60 s', () => {
  const [r] = computeSubQuery(sub('sum', ds(1, 'm', 'avg'), { rate: true }), { startMs: T0, endMs: 1357041600000 }, [FLOAT_SERIES]);
  assert.ok(r !== undefined);
  const expected = Array.from({ length: 150 }, (_, i) => [T0 + 60000 * (i + 1), i === 0 || i >= 149 ? 0.375 / 60 : 0.5 / 60] as const);
  assertPoints(r.dps, expected);
});

test('TestTsdbQueryDownsample.runLongSingleTSDownsampleAllSubSet: 0all-sum over [start, end) stamped with the start', () => {
  const [r] = computeSubQuery(sub('sum', ALL('sum')), { startMs: 1356998500000, endMs: 1356998600000 }, [LONG_SERIES]);
  assert.ok(r !== undefined);
  assertPoints(r.dps, [[1356998500000, 15]]);
});

test('NOTES: an aligned 6 h query at 5m-avg-zero gives 73 points (the bucket at end is kept)', () => {
  const series = raw({ host: 'a' }, [
    [T0 + 60000, 4],
    [T0 + 6 * 3600000 + 120000, 8],
  ]);
  const [r] = computeSubQuery(sub('sum', ds(5, 'm', 'avg', { fill: 'zero' })), { startMs: T0, endMs: T0 + 6 * 3600000 }, [series]);
  assert.ok(r !== undefined);
  assert.equal(r.dps.length, 73);
  assert.deepEqual(r.dps[0], [T0, 4]);
  assert.deepEqual(r.dps[1], [T0 + 300000, 0]);
  assert.deepEqual(r.dps[72], [T0 + 6 * 3600000, 8]); // its data from after `end` counts
});

test('NOTES: a partial first bucket is dropped when the start is not on a boundary; the last partial one is kept', () => {
  const series = raw({ host: 'a' }, [
    [T0 + 60000, 1],
    [T0 + 240000, 2],
    [T0 + 300000, 3],
    [T0 + 660000, 5],
    [T0 + 700000, 7],
  ]);
  const [r] = computeSubQuery(sub('sum', ds(5, 'm', 'sum')), { startMs: T0 + 120000, endMs: T0 + 610000 }, [series]);
  assert.ok(r !== undefined);
  assertPoints(r.dps, [
    [T0 + 300000, 3],
    [T0 + 600000, 12],
  ]);
});

test('NOTES: fills — nan gives NaN, null gives null, zero gives 0, none leaves the bucket out', () => {
  const series = raw({ host: 'a' }, [
    [T0, 1],
    [T0 + 120000, 2],
  ]);
  const range = { startMs: T0, endMs: T0 + 180000 };
  const values = (fill: FillPolicy): (number | null)[] =>
    (computeSubQuery(sub('sum', ds(1, 'm', 'sum', { fill })), range, [series])[0]?.dps ?? []).map((p) => p[1]);
  assert.deepEqual(values('zero'), [1, 0, 2, 0]);
  assert.deepEqual(values('null'), [1, null, 2, null]);
  assert.deepEqual(values('none'), [1, 2]);
  const nan = values('nan');
  assert.equal(nan.length, 4);
  assert.ok(Number.isNaN(nan[1]) && Number.isNaN(nan[3]) && nan[0] === 1 && nan[2] === 2);
});

test('NOTES: 1dc in Asia/Shanghai gives buckets at 16:00 UTC', () => {
  const d = Date.UTC(2024, 4, 10);
  const series = raw({ host: 'a' }, [
    [d + 3600000, 1],
    [d + 17 * 3600000, 2],
    [d + 20 * 3600000, 3],
    [d + 40 * 3600000, 4],
  ]);
  const [r] = computeSubQuery(
    sub('sum', ds(1, 'd', 'sum', { calendar: true, timezone: 'Asia/Shanghai' })),
    { startMs: d - 8 * 3600000, endMs: d + 48 * 3600000 },
    [series],
  );
  assert.ok(r !== undefined);
  assertPoints(r.dps, [
    [d - 8 * 3600000, 1],
    [d + 16 * 3600000, 5],
    [d + 40 * 3600000, 4],
  ]);
});

test('range without downsampling: inclusive at both ends; points outside still interpolate inside', () => {
  const a = raw({ host: 'a' }, [
    [T0, 10],
    [T0 + 20000, 30],
    [T0 + 40000, 50],
  ]);
  const b = raw({ host: 'b' }, [
    [T0 + 10000, 1],
    [T0 + 30000, 3],
  ]);
  const [r] = computeSubQuery(sub('sum'), { startMs: T0 + 10000, endMs: T0 + 30000 }, [a, b]);
  assert.ok(r !== undefined);
  assertPoints(r.dps, [
    [T0 + 10000, 21],
    [T0 + 20000, 32],
    [T0 + 30000, 43],
  ]);
  assert.deepEqual(r.tags, {});
  assert.deepEqual(r.aggregateTags, ['host']);
});

test('SpanGroup.getTags / getAggregatedTags: differing keys aggregate, keys in only some series stay in tags', () => {
  const s1 = raw({ host: 'a', dc: 'x', rack: 'r1' }, [[T0, 1]]);
  const s2 = raw({ host: 'b', dc: 'x', rack: 'r2', only: 'here' }, [[T0, 2]]);
  const s3 = raw({ host: 'c', dc: 'y', rack: 'r1' }, [[T0, 4]]);
  const range = { startMs: T0, endMs: T0 + 60000 };
  const grouped = computeSubQuery(sub('sum', undefined, { filters: [groupBy('dc')] }), range, [s1, s2, s3]);
  assert.equal(grouped.length, 2);
  const x = grouped.find((g) => g.tags['dc'] === 'x');
  const y = grouped.find((g) => g.tags['dc'] === 'y');
  assert.ok(x !== undefined && y !== undefined);
  assert.deepEqual(x.tags, { dc: 'x', only: 'here' });
  assert.deepEqual(x.aggregateTags, ['host', 'rack']);
  assertPoints(x.dps, [[T0, 3]]);
  assert.deepEqual(y.tags, { dc: 'y', host: 'c', rack: 'r1' });
  assert.deepEqual(y.aggregateTags, []);
  assertPoints(y.dps, [[T0, 4]]);
});

test('aggregator none: every series on its own, group-bys ignored', () => {
  const s1 = raw({ host: 'a' }, [
    [T0, 1],
    [T0 + 1000, 2],
  ]);
  const s2 = raw({ host: 'b' }, [[T0 + 500, 7]]);
  const out = computeSubQuery(sub('none', undefined, { filters: [groupBy('host')] }), { startMs: T0, endMs: T0 + 60000 }, [s1, s2]);
  assert.equal(out.length, 2);
  assertPoints(out.find((o) => o.tags['host'] === 'a')?.dps ?? [], [
    [T0, 1],
    [T0 + 1000, 2],
  ]);
  assertPoints(out.find((o) => o.tags['host'] === 'b')?.dps ?? [], [[T0 + 500, 7]]);
});

test('series without points in the scan range are dropped; a series lacking the group-by tag is dropped', () => {
  const far = raw({ host: 'a' }, [[T0 - 86400000, 1]]);
  const noTag = raw({ other: 'z' }, [[T0, 5]]);
  assert.deepEqual(computeSubQuery(sub('sum', undefined, { filters: [groupBy('host')] }), { startMs: T0, endMs: T0 + 60000 }, [far, noTag]), []);
});

test('bucketed input (rollups) takes the same fill and range rules as raw points', () => {
  const buckets: SeriesInput = { kind: 'buckets', tags: { host: 'a' }, ts: [T0 - 300000, T0, T0 + 600000], values: [9, 4, 6] };
  const [r] = computeSubQuery(sub('sum', ds(5, 'm', 'count', { fill: 'null' })), { startMs: T0, endMs: T0 + 900000 }, [buckets]);
  assert.ok(r !== undefined);
  assertPoints(r.dps, [
    [T0, 4],
    [T0 + 300000, null],
    [T0 + 600000, 6],
    [T0 + 900000, null],
  ]);
});

test('integerValues option: raw whole numbers aggregate as OpenTSDB longs without downsampling, as doubles with it', () => {
  const a = raw({ host: 'a' }, [
    [T0, 1],
    [T0 + 60000, 2],
  ]);
  const b = raw({ host: 'b' }, [
    [T0, 2],
    [T0 + 60000, 2],
  ]);
  const range = { startMs: T0, endMs: T0 + 120000 };
  assertPoints(computeSubQuery(sub('avg'), range, [a, b], { integerValues: true })[0]?.dps ?? [], [
    [T0, 1],
    [T0 + 60000, 2],
  ]);
  assertPoints(computeSubQuery(sub('avg'), range, [a, b])[0]?.dps ?? [], [
    [T0, 1.5],
    [T0 + 60000, 2],
  ]);
  assertPoints(computeSubQuery(sub('avg', ds(1, 'm', 'avg')), range, [a, b], { integerValues: true })[0]?.dps ?? [], [
    [T0, 1.5],
    [T0 + 60000, 2],
  ]);
});

test('bucketed series (from summaries) with fill none are placed as they are: the same answer as the Downsampler over one point per bucket', () => {
  // A bucketed series skips the Downsampler (compute.ts); the raw path over exactly one point per bucket,
  // at the bucket's start, runs it: both must answer alike, at the query's edges, with rate, per aggregator.
  const H = 3_600_000;
  let seed = 7;
  const rand = (): number => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const series = Array.from({ length: 6 }, (_, k) => {
    const ts: number[] = [];
    const values: number[] = [];
    for (let b = 0; b < 48; b++) {
      if (rand() < 0.3) continue;
      ts.push(T0 + b * H);
      values.push(Math.round(rand() * 1e6) / 100);
    }
    return { tags: { host: `h${k % 3}`, id: `i${k}` }, ts, values };
  });
  const asRaw: SeriesInput[] = series.map((s) => ({ kind: 'raw', ...s }));
  const asBuckets: SeriesInput[] = series.map((s) => ({ kind: 'buckets', ...s }));
  let compared = 0;
  for (const agg of ['sum', 'avg', 'min', 'max', 'zimsum', 'mimmax', 'count', 'dev', 'none'] as AggregatorName[]) {
    for (const rate of [false, true]) {
      for (const range of [
        { startMs: T0, endMs: T0 + 48 * H - 1 },
        { startMs: T0 + 5 * H + 17, endMs: T0 + 30 * H - 3 },
        { startMs: T0 + 47 * H, endMs: T0 + 60 * H },
      ]) {
        const q = sub(agg, ds(1, 'h', 'sum'), { rate, filters: [groupBy('host')] });
        const want = computeSubQuery(q, range, asRaw);
        assert.deepEqual(computeSubQuery(q, range, asBuckets), want, `${agg} rate=${String(rate)} ${range.startMs - T0}..${range.endMs - T0}`);
        compared += want.reduce((n, r) => n + r.dps.length, 0);
      }
    }
  }
  assert.ok(compared > 1000, `points compared: ${compared}`);
});
