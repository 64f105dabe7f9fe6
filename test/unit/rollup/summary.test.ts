import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  SUMMARY_BYTES,
  SummaryDecodeError,
  addEvent,
  decodeSummary,
  encodeSummary,
  meanOf,
  mergeSummary,
  summaryOf,
  type MetricSummary,
} from '../../../src/rollup/summary.ts';

type Ev = readonly [ts: number, value: number];

function brute(events: readonly Ev[]): MetricSummary {
  const byTs = [...events].sort((a, b) => a[0] - b[0]);
  const first = byTs[0] as Ev;
  const last = byTs[byTs.length - 1] as Ev;
  return {
    count: events.length,
    sum: events.reduce((s, e) => s + e[1], 0),
    min: Math.min(...events.map((e) => e[1])),
    max: Math.max(...events.map((e) => e[1])),
    firstTs: first[0],
    first: first[1],
    lastTs: last[0],
    last: last[1],
  };
}

function fold(events: readonly Ev[]): MetricSummary | undefined {
  let acc: MetricSummary | undefined;
  for (const [ts, v] of events) acc = addEvent(acc, ts, v);
  return acc;
}

void test('addEvent folds count, sum, min, max, first and last by timestamp (any arrival order)', () => {
  const events: Ev[] = [
    [50, 2.5],
    [10, -1],
    [90, 7],
    [30, 0.25],
  ];
  assert.deepEqual(fold(events), brute(events));
  assert.deepEqual(fold([...events].reverse()), brute(events));
  assert.deepEqual(summaryOf(5, 3), { count: 1, sum: 3, min: 3, max: 3, firstTs: 5, first: 3, lastTs: 5, last: 3 });
});

void test('mergeSummary is associative: any split of the events into parts merges to the whole', () => {
  let seed = 7;
  const rnd = (): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  for (let round = 0; round < 50; round++) {
    const n = 2 + Math.floor(rnd() * 30);
    // distinct timestamps, quarter-integer values (exact sums in any order)
    const events: Ev[] = Array.from({ length: n }, (_, i) => [i * 1000 + Math.floor(rnd() * 999), Math.round(rnd() * 400 - 200) / 4]);
    const cut1 = 1 + Math.floor(rnd() * (n - 1));
    const cut2 = cut1 + Math.floor(rnd() * (n - cut1));
    const parts = [events.slice(0, cut1), events.slice(cut1, cut2), events.slice(cut2)].filter((p) => p.length > 0).map((p) => fold(p) as MetricSummary);
    const left = parts.reduce<MetricSummary | undefined>((acc, p) => mergeSummary(acc, p), undefined);
    const right = [...parts].reverse().reduce<MetricSummary | undefined>((acc, p) => mergeSummary(acc, p), undefined);
    assert.deepEqual(left, brute(events));
    assert.deepEqual(right, brute(events));
  }
});

void test('encode/decode round trip; 64 bytes big-endian at fixed offsets', () => {
  const s: MetricSummary = { count: 3, sum: -1.5, min: -7.25, max: 1e300, firstTs: 1_732_262_400_000, first: Number.NaN, lastTs: 2 ** 53 - 1, last: -0 };
  const b = encodeSummary(s);
  assert.equal(b.length, SUMMARY_BYTES);
  assert.equal(b.readBigInt64BE(0), 3n);
  assert.equal(b.readDoubleBE(8), -1.5);
  assert.equal(b.readBigInt64BE(32), 1_732_262_400_000n);
  assert.equal(b.readBigInt64BE(48), BigInt(2 ** 53 - 1));
  const d = decodeSummary(b);
  assert.deepEqual(d, s);
  assert.ok(Object.is(d.last, -0));
  assert.equal(meanOf(d), -0.5);
  assert.ok(Number.isNaN(meanOf({ ...d, count: 0 })));
});

void test('decodeSummary names the metric when the cell has the wrong size', () => {
  assert.throws(
    () => decodeSummary(Buffer.alloc(8), 'temp'),
    (e: unknown) => e instanceof SummaryDecodeError && /temp is 8 bytes, expected 64/.test(e.message),
  );
});
