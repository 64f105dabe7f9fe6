// The order of the series within a group (group.ts orderSeries / nameOrder), which first, last and
// diff across series depend on: 2.4.1 walks its spans in row-key order (TsdbQuery.SpanCmp), and we in
// name order unless the caller gives the TSD's (ComputeOptions.seriesOrder). And which series gives
// the value at each timestamp: first and last interpolate ZIM (Aggregators.FIRST/LAST).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { computeSubQuery } from '../../../src/series-compute/compute.ts';
import { nameOrder, orderSeries } from '../../../src/series-compute/group.ts';
import type { AggregatorName, Downsample, RawSeries, SeriesInput, SubQuery, TagFilter } from '../../../src/series-language/types.ts';
import { assertPoints } from './compute-helpers.ts';

const T0 = 1772323200000;
const S = 1000;
const MIN = 60_000;

const raw = (tags: Record<string, string>, points: readonly (readonly [number, number])[]): RawSeries => ({
  kind: 'raw',
  tags,
  ts: points.map((p) => p[0]),
  values: points.map((p) => p[1]),
});
const TEN_MIN_AVG: Downsample = {
  spec: '10m-avg',
  all: false,
  count: 10,
  unit: 'm',
  intervalMs: 10 * MIN,
  calendar: false,
  timezone: 'UTC',
  aggregator: 'avg',
  fill: 'none',
};
function sub(aggregator: AggregatorName, downsample?: Downsample, filters: TagFilter[] = []): SubQuery {
  return {
    index: 0,
    metric: 'temp',
    aggregator,
    downsample,
    rate: false,
    rateOptions: { counter: false, counterMax: Number.MAX_SAFE_INTEGER, resetValue: 0, dropResets: false },
    filters,
    explicitTags: false,
  };
}
const bySite: TagFilter = { type: 'wildcard', tagk: 'site', filter: '*', groupBy: true };

/** Every permutation of `xs`. */
function permutations<T>(xs: readonly T[]): T[][] {
  if (xs.length <= 1) return [[...xs]];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
}

test('name order: tag pairs in tag-key order, compared key, value, key, value, … by code point; a prefix first', () => {
  const s = (tags: Record<string, string>): RawSeries => raw(tags, [[T0, 1]]);
  const want = [
    s({ dc: 'a', host: 'z' }), // dc=a before dc=b, whatever the host
    s({ dc: 'b', host: 'a' }),
    s({ host: 'a' }), // key dc < host
    s({ host: 'a', rack: 'r1' }), // its pairs extend host=a's: after it
    s({ host: 'b' }),
    s({ id: 'Z' }), // code points: 'Z' < 'a' < … < '\uFFFF' < '\u{1F600}' (UTF-16 units would put the emoji first)
    s({ id: 'a' }),
    s({ id: 'n01', site: 'south' }), // id before site: the id decides first, as in the catalog
    s({ id: 'n02', site: 'north' }),
    s({ id: '\uFFFF' }),
    s({ id: '\u{1F600}' }),
  ];
  const shuffled = [...want].reverse();
  assert.deepEqual(
    [...shuffled].sort(nameOrder).map((x) => x.tags),
    want.map((x) => x.tags),
  );
  assert.deepEqual(
    orderSeries(shuffled, 'first').map((x) => x.tags),
    want.map((x) => x.tags),
  );
});

test('orderSeries: for first/last/diff the input itself when already in name order, a stable sorted copy otherwise; a given order wins', () => {
  const a = raw({ id: 'a' }, [[T0, 1]]);
  const b = raw({ id: 'b' }, [[T0, 2]]);
  const b2 = raw({ id: 'b' }, [[T0 + S, 3]]);
  const sorted = [a, b, b2];
  for (const agg of ['first', 'last', 'diff'] as const) {
    assert.equal(orderSeries(sorted, agg), sorted, agg);
    assert.deepEqual(orderSeries([b2, a, b], agg), [a, b2, b], `${agg}: equal names keep their given order`);
  }
  assert.deepEqual(
    orderSeries(sorted, 'sum', (x, y) => -nameOrder(x, y)),
    [b, b2, a],
  );
  assert.deepEqual(orderSeries([], 'first'), []);
});

test('orderSeries: every other aggregator keeps the given order (it changes only the rounding of a sum), at no cost', () => {
  const input = [raw({ id: 'b' }, [[T0, 2]]), raw({ id: 'a' }, [[T0, 1]])];
  for (const agg of ['sum', 'avg', 'min', 'max', 'count', 'dev', 'none', 'zimsum', 'mult', 'p99'] as const) assert.equal(orderSeries(input, agg), input, agg);
});

// Three ids of two sites, 10m-avg: every series has a bucket at every timestamp, so first/last take
// the name-first/last series' bucket whatever order the series come in.
const N01 = raw({ id: 'n01', site: 'north' }, [
  [T0 + 5 * S, 1],
  [T0 + 10 * MIN + 5 * S, 2],
  [T0 + 20 * MIN + 5 * S, 3],
]);
const N02 = raw({ id: 'n02', site: 'north' }, [
  [T0 + 7 * S, 10],
  [T0 + 10 * MIN + 7 * S, 20],
  [T0 + 20 * MIN + 7 * S, 30],
]);
const S01 = raw({ id: 's01', site: 'south' }, [
  [T0 + 9 * S, 100],
  [T0 + 10 * MIN + 9 * S, 200],
  [T0 + 20 * MIN + 9 * S, 300],
]);
const RANGE = { startMs: T0, endMs: T0 + 30 * MIN };
const B = [T0, T0 + 10 * MIN, T0 + 20 * MIN];

test('first / last / diff across series: the name-first and name-last series, whatever the input order', () => {
  for (const input of permutations([N01, N02, S01])) {
    const one = (agg: AggregatorName, filters: TagFilter[] = []): [number, number | null][][] =>
      computeSubQuery(sub(agg, TEN_MIN_AVG, filters), RANGE, input).map((r) => r.dps.map(([t, v]) => [t, v]));
    assert.deepEqual(one('first'), [B.map((t, i) => [t, i + 1])], 'first: n01');
    assert.deepEqual(one('last'), [B.map((t, i) => [t, (i + 1) * 100])], 'last: s01');
    assert.deepEqual(one('diff'), [B.map((t, i) => [t, (i + 1) * 99])], 'diff: s01 − n01');
    // grouped by site: north's first is n01, its last n02; south has s01 alone
    assert.deepEqual(one('first', [bySite]), [B.map((t, i) => [t, i + 1]), B.map((t, i) => [t, (i + 1) * 100])]);
    assert.deepEqual(one('last', [bySite]), [B.map((t, i) => [t, (i + 1) * 10]), B.map((t, i) => [t, (i + 1) * 100])]);
  }
});

test("first / last across series in a given order (the TSD's, when its UIDs are known)", () => {
  const tsd = ['s01', 'n02', 'n01'];
  const order = (a: SeriesInput, b: SeriesInput): number => tsd.indexOf(a.tags['id'] ?? '') - tsd.indexOf(b.tags['id'] ?? '');
  const [first] = computeSubQuery(sub('first', TEN_MIN_AVG), RANGE, [N01, N02, S01], { seriesOrder: order });
  assertPoints(first?.dps ?? [], [
    [B[0] ?? 0, 100],
    [B[1] ?? 0, 200],
    [B[2] ?? 0, 300],
  ]);
  const [last] = computeSubQuery(sub('last', TEN_MIN_AVG), RANGE, [N01, N02, S01], { seriesOrder: order });
  assertPoints(last?.dps ?? [], [
    [B[0] ?? 0, 1],
    [B[1] ?? 0, 2],
    [B[2] ?? 0, 3],
  ]);
});

test('first / last interpolate ZIM: a series between two points gives 0, one before its first or after its last point gives nothing', () => {
  // a: points at +0 s and +20 s; b: at +5 s, +10 s, +25 s. Raw, no downsample.
  const a = raw({ host: 'a' }, [
    [T0, 1],
    [T0 + 20 * S, 2],
  ]);
  const b = raw({ host: 'b' }, [
    [T0 + 5 * S, 10],
    [T0 + 10 * S, 20],
    [T0 + 25 * S, 30],
  ]);
  const run = (agg: AggregatorName): readonly (readonly [number, number | null])[] =>
    computeSubQuery(sub(agg), { startMs: T0, endMs: T0 + MIN }, [b, a])[0]?.dps ?? [];
  assertPoints(run('first'), [
    [T0, 1], // b has not started: a alone
    [T0 + 5 * S, 0], // a between its points: 0
    [T0 + 10 * S, 0],
    [T0 + 20 * S, 2],
    [T0 + 25 * S, 30], // a has ended: b alone
  ]);
  assertPoints(run('last'), [
    [T0, 1],
    [T0 + 5 * S, 10],
    [T0 + 10 * S, 20],
    [T0 + 20 * S, 0], // b between its points: 0
    [T0 + 25 * S, 30],
  ]);
});
