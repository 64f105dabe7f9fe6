import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  SUMMARY_BYTES,
  SummaryDecodeError,
  addEvent,
  decodeSummary,
  encodeSummary,
  encodeSummaryV1,
  meanOf,
  mergeSummary,
  summaryOf,
  type MetricSummary,
} from '../../../src/rollup/summary.ts';
import { WindowContent } from '../../../src/rollup/window-content.ts';
import { TAGS_QUALIFIER, buildEventCells } from '../../../src/events/index.ts';

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

void test('version 1: 64 bytes big-endian at fixed offsets, still read', () => {
  const s: MetricSummary = { count: 3, sum: -1.5, min: -7.25, max: 1e300, firstTs: 1_732_262_400_000, first: Number.NaN, lastTs: 2 ** 53 - 1, last: -0 };
  const b = encodeSummaryV1(s);
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

void test('version 2: the test vectors of docs/ROLLUPS.md, byte for byte', () => {
  // one point: 23.45 at 2026-11-29T10:00:00.123Z; the four other values refer to the first
  const one = encodeSummary(summaryOf(1_764_410_400_123, 23.45));
  assert.equal(one.toString('hex'), '0201f6f5f0f0d96600' + '12d224' + '00000000');
  assert.equal(one.length, 16, 'against 64 in version 1');
  // three points: first 1 (ts 1000), last -0.5 (ts 3500), min -0.5 (= last), max 2.25, sum 2.75
  const three = encodeSummary({ count: 3, sum: 2.75, min: -0.5, max: 2.25, firstTs: 1000, first: 1, lastTs: 3500, last: -0.5 });
  assert.equal(three.toString('hex'), '0203d00fc413' + '1002' + '1109' + '01' + '12c203' + '12a604');
  // a value no decimal of up to 6 places holds exactly: its double
  const third = encodeSummary(summaryOf(0, 1 / 3));
  assert.equal(third.toString('hex'), '020100' + '00' + '203fd5555555555555' + '00000000');
});

void test('version 2 round-trips every kind of value exactly: decimals, doubles, -0, NaN, infinities, negative times', () => {
  let seed = 11;
  const rnd = (): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const odd = [0, -0, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1e300, -5e-324, 0.1 + 0.2, 2 ** 51, -(2 ** 51) - 1, 123.456789, 1e-7];
  for (let round = 0; round < 2000; round++) {
    const pick = (): number =>
      round % 3 === 0 ? (odd[Math.floor(rnd() * odd.length)] as number) : Math.round(rnd() * 2e6 - 1e6) / 10 ** Math.floor(rnd() * 8);
    const firstTs = Math.floor(rnd() * 2 ** 44) - (round % 7 === 0 ? 2 ** 43 : 0);
    const s: MetricSummary = {
      count: 1 + Math.floor(rnd() * (round % 5 === 0 ? 2 ** 50 : 100)),
      sum: pick(),
      min: pick(),
      max: pick(),
      firstTs,
      first: pick(),
      lastTs: firstTs + Math.floor(rnd() * 86_400_000),
      last: pick(),
    };
    const b = encodeSummary(s);
    assert.equal(b[0], 0x02);
    const d = decodeSummary(b);
    assert.deepEqual(d, s);
    for (const k of ['sum', 'min', 'max', 'first', 'last'] as const) assert.ok(Object.is(d[k], s[k]), `${k}: ${s[k]} back as ${d[k]}`);
  }
});

void test('version 2 refuses what it cannot be: truncated, a tag it does not know, a forward reference, bytes after its values', () => {
  const good = encodeSummary({ count: 3, sum: 2.75, min: -0.5, max: 2.25, firstTs: 1000, first: 1, lastTs: 3500, last: -0.5 });
  for (let cut = 1; cut < good.length; cut++) assert.throws(() => decodeSummary(good.subarray(0, cut), 'temp'), SummaryDecodeError, `cut at ${cut}`);
  const forward = Buffer.from(good);
  forward[6] = 0x01; // the first value refers to the second
  assert.throws(() => decodeSummary(forward, 'temp'), /temp \(version 2\): value 0 has the tag 0x1/);
  assert.throws(() => decodeSummary(Buffer.concat([good, Buffer.from([0])]), 'temp'), /1 bytes after its values/);
  assert.throws(() => encodeSummary({ ...summaryOf(10, 1), lastTs: 9 }), RangeError);
});

void test('decodeSummary names the metric when the cell is neither version', () => {
  assert.throws(
    () => decodeSummary(Buffer.alloc(8), 'temp'),
    (e: unknown) => e instanceof SummaryDecodeError && /temp is 8 bytes led by 0: neither version 1 \(64 bytes\) nor version 2/.test(e.message),
  );
});

void test("a data row's tags cell is not decoded by the summary fold: a cell that is not JSON leaves the row's metrics summed", () => {
  const content = new WindowContent(null);
  const good = buildEventCells({ id: 'a', ts: 1000, metric: 'temp', value: 2.5, tags: { site: 's1' } });
  const metricOnly = good.filter((c) => !c.qualifier.equals(TAGS_QUALIFIER));
  const badTags = { family: 'd', qualifier: TAGS_QUALIFIER, value: Buffer.from('not json {', 'utf8'), timestamp: 2000 };
  content.addDataRow(1000, good);
  content.addDataRow(2000, [...metricOnly.map((c) => ({ ...c, timestamp: 2000 })), badTags]);
  const s = content.summaries.get('temp');
  assert.ok(s !== undefined);
  assert.equal(s.count, 2);
  assert.equal(s.sum, 5);
});
