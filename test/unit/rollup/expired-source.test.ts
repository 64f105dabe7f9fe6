// Point blocks as the long-term tier (docs/RETENTION.md): a window recomputed after part of its source
// expired is rebuilt with its stored blocks standing in for what expired, so a late event, a cascade or
// a range delete never turns a whole window into what is left.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InputError } from '../../../src/errors.ts';
import { columnOf } from '../../../src/rollup/fold.ts';
import { runBackfill } from '../../../src/rollup/backfill.ts';
import { EXPIRY_MARGIN_MS, sourceMayLack, storedWindowOf, trimStoredRow, unionWithStored } from '../../../src/rollup/expired-source.ts';
import { RollupJob } from '../../../src/rollup/job.ts';
import { encodePointsBlock } from '../../../src/rollup/points-block.ts';
import type { RollupSettings } from '../../../src/rollup/rollup-settings.ts';
import { addEvent, decodeSummary, encodeSummary, type MetricSummary } from '../../../src/rollup/summary.ts';
import { WindowContent } from '../../../src/rollup/window-content.ts';
import { encodeMetricValue, metricQualifier } from '../../../src/events/index.ts';
import { FakeHBase } from '../../support/fake-hbase.ts';
import { BLOCK_FAMILY, blocksOfRows, brutePoints, bruteSummaries, sorted, sortedRuns, summariesOfRows, type Ev } from './brute.ts';
import { DAY0, HOUR, MIN, markEvents, randomEvents, readMetrics, settings, silentLog, writeEvents } from './job-fixture.ts';

const DAY = 24 * HOUR;
const BLOCKS = { family: BLOCK_FAMILY, maxPoints: 100_000, everySize: true };

/** The summary of points (ascending), folded newest first as the job folds them. */
function summaryOf(ts: readonly number[], values: readonly number[]): MetricSummary {
  let s: MetricSummary | undefined;
  for (let i = ts.length - 1; i >= 0; i--) s = addEvent(s, ts[i] as number, values[i] as number);
  if (s === undefined) throw new Error('no points');
  return s;
}
const SIZES = [3600, 86400];

const cell = (family: string, metric: string, value: Buffer, timestamp: number) => ({
  family: Buffer.from(family),
  qualifier: Buffer.from(metric),
  value,
  timestamp,
});

/** A stored 1h row of one metric: its summary and block at one timestamp. */
function storedRow(start: number, points: readonly [number, number][], at = 5) {
  const ts = points.map(([t]) => t);
  const values = points.map(([, v]) => v);
  const s = summaryOf(ts, values);
  return [cell('r1h', 'temp', encodeSummary(s), at), cell(BLOCK_FAMILY, 'temp', encodePointsBlock(start, { ts, values }), at)];
}

void test('sourceMayLack: the finest size counts from the raw TTL, a coarser one from the blocks’; no TTL, no lack; the margin counts', () => {
  const now = DAY0 + 10 * DAY;
  const r = { rawTtlMs: 3 * DAY, blocksTtlMs: 7 * DAY };
  assert.equal(sourceMayLack(undefined, true, DAY0, now), false);
  assert.equal(sourceMayLack({ rawTtlMs: null, blocksTtlMs: null }, true, DAY0, now), false);
  assert.equal(sourceMayLack(r, true, now - 3 * DAY - 1, now), true);
  assert.equal(sourceMayLack(r, true, now - 3 * DAY + EXPIRY_MARGIN_MS - 1, now), true, 'within the margin: treated as past the edge');
  assert.equal(sourceMayLack(r, true, now - 3 * DAY + EXPIRY_MARGIN_MS, now), false);
  assert.equal(sourceMayLack(r, false, now - 5 * DAY, now), false, 'a coarser window reads blocks, kept 7 days');
  assert.equal(sourceMayLack(r, false, now - 7 * DAY, now), true);
});

void test('storedWindowOf takes a block only with its summary’s timestamp and count', () => {
  const start = DAY0;
  const good = storedRow(start, [
    [start + 1, 1],
    [start + 2, 2],
  ]);
  assert.deepEqual([...storedWindowOf(good, BLOCK_FAMILY, start, HOUR).blocks.keys()], ['temp']);
  const [summary, block] = good as [ReturnType<typeof cell>, ReturnType<typeof cell>];
  const stale = storedWindowOf([summary, { ...block, timestamp: 4 }], BLOCK_FAMILY, start, HOUR);
  assert.deepEqual([...stale.summarised], ['temp']);
  assert.equal(stale.blocks.size, 0, 'a block of another write is not this summary’s');
  const wrongCount = storedWindowOf([cell('r1h', 'temp', encodeSummary(summaryOf([start + 1], [1])), 5), block], BLOCK_FAMILY, start, HOUR);
  assert.equal(wrongCount.blocks.size, 0);
  assert.equal(storedWindowOf(undefined, BLOCK_FAMILY, start, HOUR).summarised.size, 0);
});

void test('unionWithStored: stored points under the rows left, a raw row the newer word, a metric without a block left as stored', () => {
  const start = DAY0;
  const stored = storedWindowOf(
    [
      ...storedRow(start, [
        [start + 10, 1],
        [start + 20, 2],
        [start + 30, 3],
      ]),
      cell('r1h', 'hum', encodeSummary(summaryOf([start + 5], [9])), 5),
    ],
    BLOCK_FAMILY,
    start,
    HOUR,
  );
  const row = (ts: number, metric: string, v: number) => ({ ts, cells: [{ qualifier: metricQualifier(metric), value: encodeMetricValue(v) }] });
  const acc = unionWithStored([row(start + 30, 'temp', 33), row(start + 40, 'temp', 4), row(start + 40, 'hum', 7), row(start + 50, 'load', 5)], stored, BLOCKS);
  assert.deepEqual(acc.pointsOf('temp'), { ts: [start + 10, start + 20, start + 30, start + 40], values: [1, 2, 33, 4] });
  assert.equal(acc.summaries.has('hum'), false, 'hum: a stored summary, no block: what is left would be less');
  assert.deepEqual(acc.pointsOf('load'), { ts: [start + 50], values: [5] }, 'a metric never stored: its rows');
  const brute = new WindowContent(BLOCKS);
  for (const [t, v] of [
    [start + 40, 4],
    [start + 30, 33],
    [start + 20, 2],
    [start + 10, 1],
  ] as const)
    brute.addPoint('temp', t, v);
  assert.deepEqual(acc.summaries.get('temp'), brute.summaries.get('temp'), 'the summary a recompute from every row writes');
});

void test('trimStoredRow: the range’s points leave the block and the summary; a metric left with none is dropped; one without a block is kept', () => {
  const start = DAY0;
  const key = Buffer.from('k');
  const cells = [
    ...storedRow(start, [
      [start + 10, 1],
      [start + 20, 2],
      [start + 30, 3],
    ]),
    cell(BLOCK_FAMILY, 'hum', encodePointsBlock(start, { ts: [start + 25], values: [8] }), 5),
    cell('r1h', 'hum', encodeSummary(summaryOf([start + 25], [8])), 5),
    cell('r1h', 'load', encodeSummary(summaryOf([start + 22], [1])), 5),
  ];
  const t = trimStoredRow({ key, cells }, { start, ms: HOUR, family: 'r1h', mainFamily: 'd' }, BLOCKS, { from: start + 15, to: start + 26, timestamp: 9 });
  const put = t.put?.cells ?? [];
  assert.deepEqual(
    put.map((c) => [c.column.toString(), c.timestamp]),
    [
      ['r1h:temp', 9],
      [`${BLOCK_FAMILY}:temp`, 9],
    ],
  );
  assert.deepEqual(decodeSummary(put[0]?.value ?? Buffer.alloc(0)), summaryOf([start + 10, start + 30], [1, 3]));
  assert.deepEqual(
    t.drop.map((c) => c.toString('latin1')),
    ['r1h:hum', 'd:hum', `${BLOCK_FAMILY}:hum`, 'r1h:\u0000shum'],
  );
  const none = trimStoredRow({ key, cells }, { start, ms: HOUR, family: 'r1h', mainFamily: 'd' }, BLOCKS, { from: start + 40, to: start + 50, timestamp: 9 });
  assert.deepEqual([none.put, none.drop], [undefined, []], 'nothing in the range: nothing to write');
});

/** Events of one day, the job run once while every raw row is kept: the stored rows as the long-term copy. */
async function summarisedDay(s: RollupSettings, events: readonly Ev[], at: number): Promise<FakeHBase> {
  const store = new FakeHBase();
  await writeEvents(store, s, events);
  await markEvents(store, s, events);
  await new RollupJob({ store, settings: s, metrics: readMetrics(s).metrics, log: silentLog, now: () => at }).run();
  return store;
}

/** Deletes the data rows an HBase TTL would have expired (event ts before `edge`). */
async function expireRaw(store: FakeHBase, s: RollupSettings, events: readonly Ev[], edge: number): Promise<void> {
  for (const e of events) if (e.ts < edge) await store.deleteRow(s.dataTable, s.keyspace.dataKey(e.id, e.ts));
}

void test('the job: a late event into a window whose raw rows partly expired keeps every point, the day’s block rebuilt with a lost hour block', async () => {
  const events = randomEvents({ seed: 38, n: 3000, ids: 3, from: DAY0, hours: 24 }).filter((e) => e.id === 'dev-1');
  const edge = DAY0 + 12 * HOUR + 20 * MIN; // raw rows before it expired
  const late: Ev = { id: 'dev-1', ts: DAY0 + 12 * HOUR + 40 * MIN, metric: 'temp', value: 0.25 };
  const lost: Ev = { id: 'dev-1', ts: DAY0 + 5 * HOUR + 1, metric: 'temp', value: 100 }; // already past the TTL as it arrives
  const later = edge + 3 * DAY;
  const run = async (retention: RollupSettings['retention']) => {
    const s = settings(['1h', '1d'], { retention });
    const store = await summarisedDay(s, events, DAY0 + 2 * DAY);
    await expireRaw(store, s, events, edge);
    // hour 3's block expired (blocks kept shorter than the summaries, say)
    await store.deleteRow(s.rollupTable, s.keyspace.rollupKey({ id: 'dev-1', windowSec: 3600, windowStart: DAY0 + 3 * HOUR }), {
      columns: [columnOf(BLOCK_FAMILY, Buffer.from('temp')), columnOf(BLOCK_FAMILY, Buffer.from('hum'))],
    });
    await writeEvents(store, s, [late]);
    await markEvents(store, s, [late, lost]);
    await new RollupJob({ store, settings: s, metrics: readMetrics(s).metrics, log: silentLog, now: () => later }).run();
    return store.rows(s.rollupTable);
  };
  const rows = await run({ rawTtlMs: later - edge, blocksTtlMs: later - DAY0 - HOUR });
  const expected = [...events, late];
  assert.deepEqual(sorted(summariesOfRows(rows)), sorted(bruteSummaries(expected, SIZES)), 'every summary as if no row had expired');
  const blocks = blocksOfRows(rows);
  const day = sortedRuns(brutePoints(expected, SIZES)).filter(([k]) => k.includes('|86400|'));
  assert.deepEqual(
    day,
    sortedRuns(blocks).filter(([k]) => k.includes('|86400|')),
    'the day’s blocks whole: hour 3’s points from the stored day block',
  );
  // Without the retention known, the same run writes what is left: hour 12 loses its first 20 minutes.
  const blind = summariesOfRows(await run(undefined));
  const hour12 = `dev-1|3600|${DAY0 + 12 * HOUR}|temp`;
  const firstPart = expected.filter((e) => e.metric === 'temp' && e.ts >= DAY0 + 12 * HOUR && e.ts < edge).length;
  assert.ok(firstPart > 0, 'the fixture has points in the expired part of hour 12');
  assert.equal(blind.get(hour12)?.count, (bruteSummaries(expected, SIZES).get(hour12)?.count ?? 0) - firstPart);
});

void test('a backfill that reaches before the raw rows’ retention is refused with --from, before any read', async () => {
  const now = DAY0 + 10 * DAY;
  const s = settings(['1h', '1d'], { retention: { rawTtlMs: 3 * DAY, blocksTtlMs: null } });
  const store = new FakeHBase();
  await assert.rejects(
    () => runBackfill({ store, settings: s, params: { from: now - 4 * DAY, to: now - DAY }, now: () => now }),
    (err: unknown) =>
      err instanceof InputError &&
      err.field === '--from' &&
      /starts before the raw rows' retention.*Start at or after 2024-11-29T00:00:00.000Z/.test(err.message),
  );
  assert.equal(store.count('scan'), 0);
  const ok = await runBackfill({ store, settings: s, params: { from: now - 2 * DAY, to: now - DAY }, now: () => now });
  assert.equal(ok.status, 'finished');
});
