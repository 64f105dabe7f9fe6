// isRollupExact / bucketsFromSummaries: rollup windows → downsample buckets, checked against the raw
// path of computeSubQuery on the same points.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { computeSubQuery } from '../../../src/series-compute/compute.ts';
import { bucketsFromSummaries, isRollupExact } from '../../../src/series-compute/rollup-exact.ts';
import type { WindowSummary } from '../../../src/series-compute/rollup-exact.ts';
import type { AggregatorName, Downsample, FillPolicy, SubQuery } from '../../../src/series-language/types.ts';
import { assertPoints } from './compute-helpers.ts';

const MIN = 60_000;
const HOUR = 3_600_000;
const T0 = 1356998400000;

function ds(intervalMs: number, aggregator: AggregatorName, fill: FillPolicy = 'none', extra: Partial<Downsample> = {}): Downsample {
  return { spec: 'x', all: false, count: intervalMs / MIN, unit: 'm', intervalMs, calendar: false, timezone: 'UTC', aggregator, fill, ...extra };
}
function sub(downsample: Downsample | undefined, rate = false): SubQuery {
  return {
    index: 0,
    metric: 'm',
    aggregator: 'sum',
    downsample,
    rate,
    rateOptions: { counter: false, counterMax: Number.MAX_SAFE_INTEGER, resetValue: 0, dropResets: false },
    filters: [],
    explicitTags: false,
  };
}

test('isRollupExact: the largest window dividing a fixed interval, for the summary-computable aggregators only', () => {
  assert.deepEqual(isRollupExact(sub(ds(15 * MIN, 'avg')), [MIN, 5 * MIN, HOUR]), { exact: true, windowMs: 5 * MIN });
  assert.deepEqual(isRollupExact(sub(ds(2 * HOUR, 'max')), [MIN, 5 * MIN, HOUR]), { exact: true, windowMs: HOUR });
  assert.deepEqual(isRollupExact(sub(ds(7 * MIN, 'sum'), true), [MIN, 5 * MIN]), { exact: true, windowMs: MIN }); // rate is after downsampling
  for (const agg of ['sum', 'count', 'min', 'max', 'avg', 'first', 'last', 'zimsum', 'mimmin', 'mimmax'] as const) {
    assert.equal(isRollupExact(sub(ds(HOUR, agg)), [MIN]).exact, true, agg);
  }
  for (const agg of ['dev', 'median', 'mult', 'diff', 'squareSum', 'p99', 'ep50r7', 'pfsum'] as const) {
    assert.equal(isRollupExact(sub(ds(HOUR, agg)), [MIN]).exact, false, agg);
  }
  assert.equal(isRollupExact(sub(ds(90 * 1000, 'sum')), [MIN]).exact, false); // 90 s not a multiple of 1 m
  assert.equal(isRollupExact(sub(ds(HOUR, 'sum', 'none', { calendar: true })), [MIN]).exact, false);
  assert.equal(isRollupExact(sub(ds(0, 'sum', 'none', { all: true })), [MIN]).exact, false);
  assert.equal(isRollupExact(sub(undefined), [MIN]).exact, false);
});

/** Raw points → 1-minute window summaries (what the rollup job stores). */
function summarise(points: readonly (readonly [number, number])[], w: number): WindowSummary[] {
  const out: WindowSummary[] = [];
  for (const [ts, v] of points) {
    const start = ts - (ts % w);
    const last = out[out.length - 1];
    if (last?.startMs === start) {
      out[out.length - 1] = { ...last, count: last.count + 1, sum: last.sum + v, min: Math.min(last.min, v), max: Math.max(last.max, v), last: v };
    } else {
      out.push({ startMs: start, count: 1, sum: v, min: v, max: v, first: v, last: v });
    }
  }
  return out;
}

test('bucketsFromSummaries merges windows into buckets: by hand for 5m buckets of 1m windows', () => {
  const windows: WindowSummary[] = [
    { startMs: T0, count: 2, sum: 5, min: 1, max: 4, first: 4, last: 1 },
    { startMs: T0 + 2 * MIN, count: 1, sum: 7, min: 7, max: 7, first: 7, last: 7 },
    { startMs: T0 + 5 * MIN, count: 3, sum: 3, min: -1, max: 3, first: 3, last: 0 },
    { startMs: T0 + 6 * MIN, count: 0, sum: 0, min: 0, max: 0, first: 0, last: 0 },
  ];
  const at = (agg: AggregatorName): number[] => bucketsFromSummaries(windows, 5 * MIN, agg).values;
  assert.deepEqual(bucketsFromSummaries(windows, 5 * MIN, 'sum').ts, [T0, T0 + 5 * MIN]);
  assert.deepEqual(at('sum'), [12, 3]);
  assert.deepEqual(at('count'), [3, 3]);
  assert.deepEqual(at('min'), [1, -1]);
  assert.deepEqual(at('max'), [7, 3]);
  assert.deepEqual(at('avg'), [4, 1]);
  assert.deepEqual(at('first'), [4, 3]);
  assert.deepEqual(at('last'), [7, 0]);
  assert.throws(() => bucketsFromSummaries(windows, 5 * MIN, 'dev'), /cannot be computed/);
});

test('rollup buckets through computeSubQuery equal the raw path (fills, partial first bucket, rate)', () => {
  const points: [number, number][] = [];
  for (let k = 0; k < 400; k++) if (k % 17 !== 3 && (k < 150 || k > 190)) points.push([T0 + 20_000 * k + 1234, Math.sin(k) * 100 + k]);
  const range = { startMs: T0 + 7 * MIN, endMs: T0 + 2 * HOUR };
  const windows = summarise(points, MIN);
  for (const agg of ['sum', 'count', 'min', 'max', 'avg', 'first', 'last', 'zimsum', 'mimmin', 'mimmax'] as const) {
    for (const [fill, rate] of [
      ['none', false],
      ['zero', false],
      ['null', false],
      ['nan', true],
    ] as const) {
      const q = sub(ds(10 * MIN, agg, fill), rate);
      const choice = isRollupExact(q, [MIN, 2 * MIN + 1]);
      assert.deepEqual(choice, { exact: true, windowMs: MIN });
      const rawOut = computeSubQuery(q, range, [{ kind: 'raw', tags: { h: 'a' }, ts: points.map((p) => p[0]), values: points.map((p) => p[1]) }]);
      const b = bucketsFromSummaries(windows, 10 * MIN, agg);
      const rolled = computeSubQuery(q, range, [{ kind: 'buckets', tags: { h: 'a' }, ts: b.ts, values: b.values }]);
      assert.equal(rawOut.length, 1);
      assert.ok((rawOut[0]?.dps.length ?? 0) > 5, `${agg} ${fill}: the raw path has points`);
      assertPoints(rolled[0]?.dps ?? [], rawOut[0]?.dps ?? []);
    }
  }
});
