// AggregationIterator and RateSpan: vectors ported from test/core/TestAggregationIterator.java and
// TestRateSpan.java (OpenTSDB 2.4.1), plus the rate/interpolation behaviour read from the source.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { aggregate } from '../../../src/series-compute/aggregation-iterator.ts';
import { getAggregator } from '../../../src/series-compute/aggregators.ts';
import { Downsampler } from '../../../src/series-compute/downsampler.ts';
import { RateSpan, SpanView } from '../../../src/series-compute/views.ts';
import type { RateOptions } from '../../../src/series-language/types.ts';
import { assertPoints, drainView, spec, view } from './compute-helpers.ts';

const B = 1356998400000;
const START = 1356998400000;
const END = 1356998500000;
const P1 = [
  [B, 40],
  [B + 10000, 50],
  [B + 30000, 70],
] as const;
const P2 = [
  [B + 10000, 37],
  [B + 20000, 48],
] as const;
const DATA_5SEC = [0, 7000, 10000, 15000, 20000, 25000, 30000, 35000, 40000, 45000, 50000].map((o) => [B + o, 1] as const);
const RATE: RateOptions = { counter: false, counterMax: Number.MAX_SAFE_INTEGER, resetValue: 0, dropResets: false };

test('TestAggregationIterator.testAggregate_singleSpan', () => {
  assertPoints(aggregate([view(P1)], { startMs: START, endMs: END }, getAggregator('sum'), false), P1);
});

test('TestAggregationIterator.testAggregate_doubleSpans: union of timestamps, LERP in gaps, nothing outside a series', () => {
  assertPoints(aggregate([view(P1), view(P2)], { startMs: START, endMs: END }, getAggregator('sum'), false), [
    [B, 40],
    [B + 10000, 87],
    [B + 20000, 108],
    [B + 30000, 70],
  ]);
});

test('TestAggregationIterator.pfsum: PREV interpolation', () => {
  assertPoints(
    aggregate(
      [
        view([
          [B, 40],
          [B + 30000, 70],
        ]),
        view(P2),
      ],
      { startMs: START, endMs: END },
      getAggregator('pfsum'),
      false,
    ),
    [
      [B, 40],
      [B + 10000, 77],
      [B + 20000, 88],
      [B + 30000, 70],
    ],
  );
});

test('TestAggregationIterator.testAggregate_manySpansWithDownsampling: seek from +1 s drops the first 10 s bucket', () => {
  const views = Array.from({ length: 7 }, () => new Downsampler(view(DATA_5SEC), spec(10, 's', 'avg', 'none'), 0, 0));
  assertPoints(
    aggregate(views, { startMs: B + 1000, endMs: B + 100000 }, getAggregator('sum'), false),
    [10000, 20000, 30000, 40000, 50000].map((o) => [B + o, 7] as const),
  );
});

test('TestAggregationIterator.testAggregate_emptySpan: an empty series is ignored', () => {
  assertPoints(aggregate([view([]), view(P1)], { startMs: B, endMs: END }, getAggregator('sum'), false), P1);
});

test('interpolation kinds at a gap: zimsum 0, mimmin +MAX, mimmax −MAX, avg LERP, count ZIM', () => {
  const at20 = (name: 'zimsum' | 'mimmin' | 'mimmax' | 'avg' | 'count' | 'min'): number | undefined =>
    aggregate([view(P1), view(P2)], { startMs: START, endMs: END }, getAggregator(name), false).find((p) => p[0] === B + 20000)?.[1];
  assert.equal(at20('zimsum'), 48);
  assert.equal(at20('mimmin'), 48);
  assert.equal(at20('mimmax'), 48);
  assert.equal(at20('min'), 48); // LERP 60 vs 48
  assert.equal(at20('avg'), 54);
  assert.equal(at20('count'), 2); // the ZIM 0 is a value, so it counts
});

test('NaN from a nan fill propagates: sum skips NaN, mult does not', () => {
  const x = view([
    [B, Number.NaN],
    [B + 10000, 2],
  ]);
  const y = view([
    [B, 3],
    [B + 10000, 4],
  ]);
  assertPoints(aggregate([x, y], { startMs: START, endMs: END }, getAggregator('sum'), false), [
    [B, 3],
    [B + 10000, 6],
  ]);
  const x2 = view([
    [B, Number.NaN],
    [B + 10000, 2],
  ]);
  const y2 = view([
    [B, 3],
    [B + 10000, 4],
  ]);
  assertPoints(aggregate([x2, y2], { startMs: START, endMs: END }, getAggregator('mult'), false), [
    [B, Number.NaN],
    [B + 10000, 8],
  ]);
});

test('TestRateSpan.testNext_iterateAll: the first rate is against (0, 0), then per-second differences', () => {
  const pts = [
    [1356998400000, 40],
    [1356998400000 + 2000000, 50],
    [1357002000000, 40],
    [1357002000000 + 5000, 50],
    [1357005600000, 40],
    [1357005600000 + 2000000, 50],
  ] as const;
  assertPoints(drainView(new RateSpan(view(pts), RATE)), [
    [1356998400000, 40 / 1356998400],
    [1356998400000 + 2000000, 10 / 2000],
    [1357002000000, -10 / (1357002000 - 1356998400 - 2000)],
    [1357002005000, 10 / 5],
    [1357005600000, -10 / (1357005600 - 1357002005)],
    [1357007600000, 10 / 2000],
  ]);
  const seeked = new RateSpan(view(pts), RATE);
  seeked.seek(1357002000000); // TestRateSpan.testSeek
  assertPoints(drainView(seeked), [
    [1357002000000, 40 / 1357002000],
    [1357002005000, 2],
    [1357005600000, -10 / 3595],
    [1357007600000, 10 / 2000],
  ]);
});

test('TestRateSpan.testNext_counter and testNext_counterWithResetValue', () => {
  const pts = [
    [1356998400000, 40],
    [1356998400000 + 2000000, 50],
    [1357002000000, 40],
    [1357002000000 + 5000, 50],
    [1357005600000, 40],
    [1357005600000 + 2000000, 50],
  ] as const;
  const counter: RateOptions = { counter: true, counterMax: 70, resetValue: 0, dropResets: false };
  assertPoints(drainView(new RateSpan(view(pts), counter)), [
    [1356998400000, 40 / 1356998400],
    [1356998400000 + 2000000, 10 / 2000],
    [1357002000000, 60 / 1600],
    [1357002005000, 2],
    [1357005600000, 60 / 3595],
    [1357007600000, 10 / 2000],
  ]);
  const reset: RateOptions = { counter: true, counterMax: 70, resetValue: 1, dropResets: false };
  assertPoints(
    drainView(
      new RateSpan(
        view([
          [1356998400000, 40],
          [1356998401000, 50],
          [1356998402000, 40],
        ]),
        reset,
      ),
    ),
    [
      [1356998400000, 40 / 1356998400],
      [1356998401000, 10],
      [1356998402000, 0],
    ],
  );
});

test('RateSpan dropResets: the reset point is skipped and the next rate is taken from it', () => {
  const drop: RateOptions = { counter: true, counterMax: 70, resetValue: 0, dropResets: true };
  assertPoints(
    drainView(
      new RateSpan(
        view([
          [1356998400000, 40],
          [1356998401000, 50],
          [1356998402000, 10],
          [1356998404000, 30],
        ]),
        drop,
      ),
    ),
    [
      [1356998400000, 40 / 1356998400],
      [1356998401000, 10],
      [1356998404000, 10],
    ],
  );
});

test('AggregationIterator with rate: first rate never emitted, a series between points gives its previous rate', () => {
  const a = new RateSpan(
    view([
      [B, 0],
      [B + 10000, 10],
      [B + 20000, 30],
    ]),
    RATE,
  );
  const b = new RateSpan(
    view([
      [B + 5000, 100],
      [B + 15000, 200],
    ]),
    RATE,
  );
  // a: bogus 0/… at B, 1 at +10 s, 2 at +20 s; b: bogus 100/(…) at +5 s, 10 at +15 s
  const bogusB = 100 / ((B + 5000) / 1000);
  assertPoints(aggregate([a, b], { startMs: START, endMs: END }, getAggregator('sum'), true), [
    [B + 10000, 1 + bogusB],
    [B + 15000, 1 + 10],
    [B + 20000, 2],
  ]); // b ended at +15 s: skipped after
});

test('TestAggregationIterator.testAggregate_doubleSpans on longs: integer LERP (60) and avg truncation (runLong)', () => {
  const ints = (pts: readonly (readonly [number, number])[]): SpanView =>
    new SpanView(
      pts.map((p) => p[0]),
      pts.map((p) => p[1]),
      true,
    );
  assertPoints(aggregate([ints(P1), ints(P2)], { startMs: START, endMs: END }, getAggregator('sum'), false), [
    [B, 40],
    [B + 10000, 87],
    [B + 20000, 108],
    [B + 30000, 70],
  ]);
  // avg of 50 and 37 is 43 (long division), of LERP 60 and 48 is 54
  assertPoints(aggregate([ints(P1), ints(P2)], { startMs: START, endMs: END }, getAggregator('avg'), false), [
    [B, 40],
    [B + 10000, 43],
    [B + 20000, 54],
    [B + 30000, 70],
  ]);
  // LERP truncates: between 0 and 10 over 3 s, at +1 s → 3 (not 3.33); the double path gives 10/3
  const a = [
    [B, 0],
    [B + 3000, 10],
  ] as const;
  const b = [[B + 1000, 1]] as const;
  assertPoints(aggregate([ints(a), ints(b)], { startMs: START, endMs: END }, getAggregator('sum'), false), [
    [B, 0],
    [B + 1000, 4],
    [B + 3000, 10],
  ]);
  assertPoints(aggregate([view(a), view(b)], { startMs: START, endMs: END }, getAggregator('sum'), false), [
    [B, 0],
    [B + 1000, 1 + 10 / 3],
    [B + 3000, 10],
  ]);
  // one double anywhere in the current/next slots → the double path
  const mixed = [[B + 1000, 1.5]] as const;
  assertPoints(aggregate([ints(a), view(mixed)], { startMs: START, endMs: END }, getAggregator('sum'), false), [
    [B, 0],
    [B + 1000, 1.5 + 10 / 3],
    [B + 3000, 10],
  ]);
});

test('TestAggregators.testPercentiles on longs: ep*r3 / ep*r7 use their estimation types, results truncated', () => {
  const values = Array.from({ length: 1000 }, (_, i) => i + 1);
  assert.equal(getAggregator('p50').runLong(values), 500); // (long) 500.5
  assert.equal(getAggregator('ep50r3').runLong(values), 500);
  assert.equal(getAggregator('ep50r7').runLong(values), 500);
  assert.equal(getAggregator('p999').runLong(values), 999);
  assert.equal(getAggregator('ep999r3').runLong(values), 999);
  assert.equal(getAggregator('ep999r7').runLong(values), 999);
  assert.equal(getAggregator('ep75r3').runLong([1, 2, 3, 4]), 3); // rint(3) → sorted[2]
  assert.equal(getAggregator('p75').runLong([1, 2, 3, 4]), 3); // legacy 3.75 → 3
  assert.equal(getAggregator('ep75r7').runLong([1, 2, 3, 4]), 3); // R_7 3.25 → 3
  assert.equal(getAggregator('dev').runLong(Array.from({ length: 10000 }, (_, i) => i)), 2886); // TestAggregators.testStdDevKnownValues
  assert.equal(getAggregator('median').runLong([5, 2, -1, 400, 3, -42]), 3); // TestAggregators.testMedian
});
