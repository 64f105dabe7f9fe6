// Point blocks and summary packs (docs/ROLLUPS.md): their byte layouts, and what the job writes —
// every point of each summarised window beside its summary, coarser windows' blocks joined from the
// finer ones, packs of the finer summaries — and when it writes none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeRollupKey } from '../../../src/keys/index.ts';
import { putRowOf } from '../../../src/rollup/fold.ts';
import { RollupJob } from '../../../src/rollup/job.ts';
import { decodePointsBlock, encodePointsBlock, pointsInBlock } from '../../../src/rollup/points-block.ts';
import { encodeSummary, summaryOf } from '../../../src/rollup/summary.ts';
import { decodeSummaryPack, encodeSummaryPack, encodeSummaryPackV1, type PackedSummary } from '../../../src/rollup/summary-pack.ts';
import { VarintReader, varintLength, writeVarint } from '../../../src/rollup/varint.ts';
import { PACK_PREFIX, windowCellsOf } from '../../../src/rollup/window-content.ts';
import { FakeHBase } from '../../support/fake-hbase.ts';
import { BLOCK_FAMILY, blocksOfRows, brutePoints, bruteSummaries, prng, sorted, sortedRuns, summariesOfRows, type Ev } from './brute.ts';
import { DAY0, HOUR, MIN, markEvents, randomEvents, readMetrics, settings, silentLog, writeEvents } from './job-fixture.ts';

const NOW = DAY0 + 5 * 24 * HOUR;

void test('varints: lengths, round trips up to 2^53 − 1, and a truncated or overlong one refused', () => {
  for (const n of [0, 1, 127, 128, 16_383, 16_384, 2 ** 32, 2 ** 49 + 3, Number.MAX_SAFE_INTEGER]) {
    const out = Buffer.alloc(varintLength(n));
    assert.equal(writeVarint(out, 0, n), out.length, `${n} fills exactly its length`);
    assert.equal(new VarintReader(out, 0, (w) => new Error(w)).next(), n);
  }
  assert.throws(() => new VarintReader(Buffer.from([0x80]), 0, (w) => new Error(w)).next(), /past the end/);
  assert.throws(() => new VarintReader(Buffer.alloc(9, 0x80), 0, (w) => new Error(w)).next(), /longer than 8 bytes/);
});

void test('a point block round-trips random runs, the window edges included, and counts its points', () => {
  const rand = prng(7);
  const start = DAY0;
  const w = HOUR;
  for (let round = 0; round < 50; round++) {
    const n = 1 + Math.floor(rand() * 300);
    const ts = [...new Set(Array.from({ length: n }, () => start + Math.floor(rand() * w)))].sort((a, b) => a - b);
    if (round === 0) ts.splice(0, ts.length, start, start + w - 1);
    const values = ts.map(() => (rand() - 0.5) * 1e9 * rand());
    if (round === 1) values[0] = -0;
    const block = encodePointsBlock(start, { ts, values });
    const back = decodePointsBlock(block, start, w);
    assert.deepEqual(back.ts, ts);
    assert.deepEqual(
      back.values.map((v) => (Object.is(v, -0) ? 'neg0' : v)),
      values.map((v) => (Object.is(v, -0) ? 'neg0' : v)),
    );
    assert.equal(pointsInBlock(block), ts.length);
  }
  const one = encodePointsBlock(start, { ts: [start + 5], values: [2.5] });
  assert.equal(one.length, 1 + 1 + 1 + 1 + 1 + 1, 'version, count, mode, unit (5 ms), one offset (1 unit), one value (25 tenths)');
  assert.equal(encodePointsBlock(start, { ts: [start + 5], values: [2.5] }, 1).length, 1 + 1 + 1 + 8, 'version 1: version, count, one offset, one double');
});

void test('a point block refuses what it cannot be: unsorted or empty input, a bad version, truncation, a ts past the window', () => {
  assert.throws(() => encodePointsBlock(DAY0, { ts: [], values: [] }), /needs ≥ 1 point/);
  assert.throws(() => encodePointsBlock(DAY0, { ts: [DAY0 + 2, DAY0 + 2], values: [1, 2] }), /without repeats/);
  assert.throws(() => encodePointsBlock(DAY0, { ts: [DAY0 - 1], values: [1] }), /ascend from the window start/);
  const good = encodePointsBlock(DAY0, { ts: [DAY0 + 1, DAY0 + 9], values: [1, 2] });
  for (let cut = 0; cut < good.length; cut++) assert.throws(() => decodePointsBlock(good.subarray(0, cut), DAY0, HOUR), /point block/, `cut at ${cut}`);
  assert.throws(() => decodePointsBlock(Buffer.concat([Buffer.from([3]), good.subarray(1)]), DAY0, HOUR), /version 3 is neither 1 nor 2/);
  assert.throws(() => pointsInBlock(Buffer.concat([Buffer.from([3]), good.subarray(1)])), /version 3 is neither 1 nor 2/);
  assert.throws(() => decodePointsBlock(good, DAY0, 5), /past the window's end/);
  assert.throws(() => decodePointsBlock(Buffer.concat([good, Buffer.alloc(8)]), DAY0, HOUR), /bytes past the values/);
  const v1 = encodePointsBlock(DAY0, { ts: [DAY0 + 1, DAY0 + 9], values: [1, 2] }, 1);
  assert.throws(() => decodePointsBlock(v1, DAY0, 5), /past the window's end/);
  assert.throws(() => decodePointsBlock(Buffer.concat([v1, Buffer.alloc(8)]), DAY0, HOUR), /value bytes/);
});

void test('a summary pack round-trips the finer windows of a coarse one, sparse and whole', () => {
  const rand = prng(11);
  for (const picked of [[0], [23], [0, 1, 2, 23], Array.from({ length: 24 }, (_, i) => i)]) {
    const windows: PackedSummary[] = picked.map((i) => ({
      startMs: DAY0 + i * HOUR,
      count: 1 + Math.floor(rand() * 5000),
      sum: rand() * 1e6,
      min: -rand(),
      max: rand(),
      first: rand(),
      last: rand(),
    }));
    assert.deepEqual(decodeSummaryPack(encodeSummaryPack(DAY0, HOUR, windows), DAY0, HOUR), windows);
    assert.deepEqual(decodeSummaryPack(encodeSummaryPackV1(DAY0, HOUR, windows), DAY0, HOUR), windows, 'version 1, still read');
  }
  assert.throws(() => encodeSummaryPack(DAY0, HOUR, []), /needs ≥ 1 window/);
  assert.throws(() => encodeSummaryPack(DAY0, HOUR, [{ startMs: DAY0 + 30 * MIN, count: 1, sum: 1, min: 1, max: 1, first: 1, last: 1 }]), /finer windows/);
  const good = encodeSummaryPack(DAY0, HOUR, [{ startMs: DAY0, count: 3, sum: 1, min: 1, max: 1, first: 1, last: 1 }]);
  for (let cut = 0; cut < good.length; cut++) assert.throws(() => decodeSummaryPack(good.subarray(0, cut), DAY0, HOUR), /summary pack/, `cut at ${cut}`);
  assert.throws(() => decodeSummaryPack(Buffer.concat([good, Buffer.from([0])]), DAY0, HOUR), /1 bytes after its values/);
  assert.throws(() => decodeSummaryPack(Buffer.concat([Buffer.from([3]), good.subarray(1)]), DAY0, HOUR), /version 3 is neither 1 nor 2/);
});

void test('a summary pack, version 2: the test vector of docs/ROLLUPS.md, and smaller than version 1 on decimal readings', () => {
  // hours 0 and 2 of a day: one point of 21.5; three points, first 1, last -0.5, min -0.5, max 2.25, sum 2.75
  const windows: PackedSummary[] = [
    { startMs: DAY0, count: 1, sum: 21.5, min: 21.5, max: 21.5, first: 21.5, last: 21.5 },
    { startMs: DAY0 + 2 * HOUR, count: 3, sum: 2.75, min: -0.5, max: 2.25, first: 1, last: -0.5 },
  ];
  const pack = encodeSummaryPack(DAY0, HOUR, windows);
  assert.equal(pack.toString('hex'), '02' + '02' + '0002' + '0103' + '11ae03' + '00000000' + '1002' + '1109' + '01' + '12c203' + '12a604');
  assert.equal(encodeSummaryPackV1(DAY0, HOUR, windows).length, 1 + 1 + 2 + 2 + 2 * 40);
  assert.deepEqual(decodeSummaryPack(pack, DAY0, HOUR), windows);
});

void test("a stored row: a block or a pack counts only when it has its summary's timestamp", () => {
  const cell = (
    family: string,
    qualifier: Buffer,
    value: Buffer,
    timestamp: number,
  ): { family: Buffer; qualifier: Buffer; value: Buffer; timestamp: number } => ({ family: Buffer.from(family), qualifier, value, timestamp });
  const m = Buffer.from('temp');
  const block = encodePointsBlock(DAY0, { ts: [DAY0], values: [1] });
  const pack = encodeSummaryPack(DAY0, MIN, [{ startMs: DAY0, count: 1, sum: 1, min: 1, max: 1, first: 1, last: 1 }]);
  const summary = encodeSummary(summaryOf(DAY0, 1));
  const fresh = windowCellsOf(
    [cell('r1h', m, summary, 9), cell('r1h', Buffer.concat([PACK_PREFIX, m]), pack, 9), cell(BLOCK_FAMILY, m, block, 9)],
    BLOCK_FAMILY,
  ).get('temp');
  assert.ok(fresh?.block !== undefined && fresh.pack !== undefined, 'same put: both taken');
  const stale = windowCellsOf(
    [cell('r1h', m, summary, 10), cell('r1h', Buffer.concat([PACK_PREFIX, m]), pack, 9), cell(BLOCK_FAMILY, m, block, 9)],
    BLOCK_FAMILY,
  ).get('temp');
  assert.ok(stale !== undefined && stale.block === undefined && stale.pack === undefined, 'a newer summary without them: neither taken');
  const legacy = windowCellsOf([cell('d', m, summary, 12), cell('r1h', m, summary, 9), cell(BLOCK_FAMILY, m, block, 9)], BLOCK_FAMILY).get('temp');
  assert.equal(legacy?.summary?.timestamp, 12, 'the newest summary of the families wins');
  assert.equal(legacy.block, undefined);
});

async function runJob(store: FakeHBase, s: ReturnType<typeof settings>, events: readonly Ev[]): Promise<void> {
  await markEvents(store, s, events);
  const report = await new RollupJob({ store, settings: s, metrics: readMetrics(s).metrics, log: silentLog, now: () => NOW }).run();
  assert.equal(report.ok, true);
}

/** The packs found in the coarse rows, as (id|sec|start|metric of each finer window) → summary fields. */
function packsOfRows(rows: ReturnType<FakeHBase['rows']>, finerSec: number): Map<string, [number, number, number, number]> {
  const out = new Map<string, [number, number, number, number]>();
  for (const row of rows) {
    if (row.row[1] === 0x00) continue;
    const k = decodeRollupKey(row.row);
    for (const c of row.cells) {
      if (!c.qualifier.subarray(0, 2).equals(PACK_PREFIX)) continue;
      const metric = c.qualifier.subarray(2).toString('utf8');
      for (const p of decodeSummaryPack(c.value, k.windowStart, finerSec * 1000))
        out.set(`${k.id}|${finerSec}|${p.startMs}|${metric}`, [p.count, p.sum, p.min, p.max]);
    }
  }
  return out;
}

void test('the job writes a block beside every summary and a pack in every coarser row, = brute force; a late event rewrites them', async () => {
  const s = settings(['1m', '1h']);
  const store = new FakeHBase();
  const events = randomEvents({ seed: 5, n: 600, ids: 7, from: DAY0 + 2 * HOUR, hours: 3 });
  await writeEvents(store, s, events);
  await runJob(store, s, events);
  assert.deepEqual(sortedRuns(blocksOfRows(store.rows(s.rollupTable))), sortedRuns(brutePoints(events, [60, 3600])));
  const fine = bruteSummaries(events, [60]);
  const want = new Map([...fine].map(([k, v]) => [k, [v.count, v.sum, v.min, v.max]]));
  assert.deepEqual([...packsOfRows(store.rows(s.rollupTable), 60)].sort(), [...want].sort(), "each hour's pack holds its minutes' summaries");

  const late: Ev = { id: events[0]?.id ?? 'x', ts: DAY0 + 2 * HOUR + 17, metric: 'late', value: 42 };
  await writeEvents(store, s, [late]);
  await runJob(store, s, [late]);
  const all = [...events, late];
  assert.deepEqual(
    sortedRuns(blocksOfRows(store.rows(s.rollupTable))),
    sortedRuns(brutePoints(all, [60, 3600])),
    "the late point in its minute's and hour's blocks",
  );
  assert.deepEqual(sorted(summariesOfRows(store.rows(s.rollupTable))), sorted(bruteSummaries(all, [60, 3600])));
});

void test('no block past maxPoints, nor for an hour with a minute over it; other metrics keep theirs', async () => {
  const s = settings(['1m', '1h'], { blocks: { family: BLOCK_FAMILY, maxPoints: 5, everySize: true } });
  const store = new FakeHBase();
  const busy: Ev[] = Array.from({ length: 6 }, (_, i) => ({ id: 'a', ts: DAY0 + HOUR + i, metric: 'busy', value: i }));
  const calm: Ev[] = [
    { id: 'a', ts: DAY0 + HOUR + 2 * MIN, metric: 'busy', value: 9 },
    { id: 'a', ts: DAY0 + HOUR, metric: 'calm', value: 1 },
  ];
  await writeEvents(store, s, [...busy, ...calm]);
  await runJob(store, s, [...busy, ...calm]);
  const blocks = [...blocksOfRows(store.rows(s.rollupTable)).keys()].sort();
  assert.deepEqual(blocks, [`a|3600|${DAY0 + HOUR}|calm`, `a|60|${DAY0 + HOUR + 2 * MIN}|busy`, `a|60|${DAY0 + HOUR}|calm`].sort());
  assert.deepEqual(sorted(summariesOfRows(store.rows(s.rollupTable))), sorted(bruteSummaries([...busy, ...calm], [60, 3600])), 'summaries as always');
});

void test('a finer row without a block (written before blocks) leaves its coarser window without one for that metric', async () => {
  const s = settings(['1m', '1h']);
  const store = new FakeHBase();
  const events: Ev[] = [
    { id: 'a', ts: DAY0 + HOUR + 1, metric: 'm', value: 1 },
    { id: 'a', ts: DAY0 + HOUR + 2 * MIN, metric: 'm', value: 2 },
  ];
  await writeEvents(store, s, events);
  // the first minute summarised by a version without blocks
  await store.put(s.rollupTable, [
    putRowOf({
      key: s.keyspace.rollupKey({ id: 'a', windowSec: 60, windowStart: DAY0 + HOUR }),
      cells: [{ family: 'r1m', qualifier: Buffer.from('m'), value: encodeSummary(summaryOf(DAY0 + HOUR + 1, 1)), timestamp: 5 }],
    }),
  ]);
  await runJob(store, s, [events[1] as Ev]);
  assert.deepEqual(
    [...blocksOfRows(store.rows(s.rollupTable)).keys()],
    [`a|60|${DAY0 + HOUR + 2 * MIN}|m`],
    "the hour has no block: it would miss the first minute's point",
  );
  assert.equal(summariesOfRows(store.rows(s.rollupTable)).get(`a|3600|${DAY0 + HOUR}|m`)?.count, 2, 'its summary counts both');
});

void test('blocks off: summaries and packs only, no cell in the points family', async () => {
  const s = settings(['1m', '1h'], { blocks: null });
  const store = new FakeHBase();
  const events = randomEvents({ seed: 3, n: 100, ids: 3, from: DAY0 + HOUR, hours: 2 });
  await writeEvents(store, s, events);
  await runJob(store, s, events);
  assert.equal(blocksOfRows(store.rows(s.rollupTable)).size, 0);
  assert.ok(packsOfRows(store.rows(s.rollupTable), 60).size > 0);
  assert.deepEqual(sorted(summariesOfRows(store.rows(s.rollupTable))), sorted(bruteSummaries(events, [60, 3600])));
});

void test("a finer window's version 1 block (written before version 2) joins its hour's block, which is written in version 2", async () => {
  const s = settings(['1m', '1h']);
  const store = new FakeHBase();
  const old: Ev = { id: 'a', ts: DAY0 + HOUR + 1, metric: 'm', value: 1.5 };
  const late: Ev = { id: 'a', ts: DAY0 + HOUR + 2 * MIN, metric: 'm', value: 2 };
  await writeEvents(store, s, [old, late]);
  // the first minute summarised by the version that wrote version 1 blocks
  await store.put(s.rollupTable, [
    putRowOf({
      key: s.keyspace.rollupKey({ id: 'a', windowSec: 60, windowStart: DAY0 + HOUR }),
      cells: [
        { family: 'r1m', qualifier: Buffer.from('m'), value: encodeSummary(summaryOf(old.ts, old.value)), timestamp: 5 },
        { family: BLOCK_FAMILY, qualifier: Buffer.from('m'), value: encodePointsBlock(DAY0 + HOUR, { ts: [old.ts], values: [old.value] }, 1), timestamp: 5 },
      ],
    }),
  ]);
  await runJob(store, s, [late]);
  assert.deepEqual(blocksOfRows(store.rows(s.rollupTable)).get(`a|3600|${DAY0 + HOUR}|m`), { ts: [old.ts, late.ts], values: [1.5, 2] });
  const versions = new Map<string, number | undefined>();
  for (const row of store.rows(s.rollupTable)) {
    if (row.row[1] === 0x00) continue;
    const k = decodeRollupKey(row.row);
    for (const c of row.cells) if (c.family.toString('utf8') === BLOCK_FAMILY) versions.set(`${k.windowSec}|${k.windowStart}`, c.value[0]);
  }
  assert.deepEqual(
    [...versions].sort(),
    (
      [
        [`3600|${DAY0 + HOUR}`, 2],
        [`60|${DAY0 + HOUR}`, 1],
        [`60|${DAY0 + HOUR + 2 * MIN}`, 2],
      ] as [string, number][]
    ).sort(),
    'the minute written before keeps version 1; the new minute and the hour are version 2',
  );
});
