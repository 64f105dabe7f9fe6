// The rollup job against the real HBase: summaries equal a brute-force computation over random events
// (several ids, hours across a day boundary), late events re-marked after their window was rolled up,
// duplicates, window edges; a marker re-marked during a run survives it; two runners at once.
// (shutdown.test.ts: a SIGTERM during a run.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeIdMarkerKey, saltOf } from '../../../src/keys/index.ts';
import { LEGACY_QUALIFIER, VERSION_QUALIFIER, markerRow, newMarkerValue } from '../../../src/rollup/marker.ts';
import { putRowOf } from '../../../src/rollup/fold.ts';
import type { RollupStore } from '../../../src/rollup/store.ts';
import { Registry } from 'prom-client';
import { pino } from 'pino';
import { createReadMetrics } from '../../../src/metrics/read-metrics.ts';
import { RollupJob } from '../../../src/rollup/job.ts';
import { bruteSummaries, prng, sorted, type Ev } from '../../unit/rollup/brute.ts';
import { WINDOW_SECS, markEvents, newJob, readRollupTable, rollupHarness, writeEvents } from './helpers.ts';

const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// Long closed windows (graceMs 0): two days straddling a UTC midnight, a few weeks ago.
const MIDNIGHT = Math.floor((Date.now() - 20 * DAY) / DAY) * DAY;

/** `n` random events of `ids` ids over `hours` hours from `from`, drawn from `seed`. */
function randomEvents(draw: { readonly seed: number; readonly n: number; readonly ids: number; readonly from: number; readonly hours: number }): Ev[] {
  const { seed, n, ids, from, hours } = draw;
  const rnd = prng(seed);
  return Array.from({ length: n }, () => ({
    id: `dev-${Math.floor(rnd() * ids)}`,
    ts: from + Math.floor(rnd() * hours * HOUR),
    metric: rnd() < 0.6 ? 'temp' : 'hum',
    value: Math.round(rnd() * 4000 - 2000) / 4, // quarter integers: exact sums in any order
  }));
}

void test('rollups = brute force, with late events, duplicates and window edges', async (t) => {
  const r = await rollupHarness(t, 'rjob');
  const events: Ev[] = [
    ...randomEvents({ seed: 42, n: 500, ids: 6, from: MIDNIGHT - 2 * HOUR, hours: 4 }),
    { id: 'edge', ts: MIDNIGHT, metric: 'm', value: 1 }, // = start of a minute, hour and day
    { id: 'edge', ts: MIDNIGHT - 1, metric: 'm', value: 2 }, // last ms of the previous day
    { id: 'edge', ts: MIDNIGHT + MIN - 1, metric: 'm', value: 4 }, // last ms of the first minute
    { id: 'edge', ts: MIDNIGHT + MIN, metric: 'm', value: 8 }, // = end of the first minute: the next one
    { id: 'edge', ts: MIDNIGHT + HOUR, metric: 'm', value: 16 }, // = end of the first hour
  ];
  await writeEvents(r, events);
  // Duplicates: the same events again (one event each), and a same id+ts+metric rewritten with a new
  // value afterwards (the last write is the event).
  const again = events.slice(0, 40);
  const rewritten = events.slice(40, 45).map((e) => ({ ...e, value: e.value + 0.5 }));
  await writeEvents(r, again);
  await writeEvents(r, rewritten);
  const all = [...events, ...again, ...rewritten];
  const marked = await markEvents(r, all);

  const job = newJob(r);
  const first = await job.run();
  assert.equal(first.ok, true, JSON.stringify(first));
  assert.equal(first.sizes[0]?.pending, marked);
  let table = await readRollupTable(r);
  assert.deepEqual(sorted(table.summaries), sorted(bruteSummaries(all, WINDOW_SECS)));
  assert.deepEqual(table.markers, [], 'no marker of a closed window remains');
  const days = new Set([...table.summaries.keys()].filter((k) => k.split('|')[1] === '86400').map((k) => k.split('|')[2]));
  assert.equal(days.size, 2, 'both days rolled up');

  // Late events into windows already rolled up (a new minimum, a new last value, a new metric, a
  // new id), written like ingest does: data first, then a marker.
  const late: Ev[] = [
    { id: 'dev-1', ts: MIDNIGHT - HOUR + 7, metric: 'temp', value: -5000 },
    { id: 'dev-2', ts: MIDNIGHT + HOUR + 30 * MIN, metric: 'hum', value: 123.25 },
    { id: 'dev-3', ts: MIDNIGHT - 2 * HOUR, metric: 'pressure', value: 1013 },
    { id: 'edge', ts: MIDNIGHT + 2 * MIN, metric: 'm', value: 32 },
  ];
  await writeEvents(r, late);
  await markEvents(r, late);
  const second = await job.run();
  assert.equal(second.ok, true);
  assert.equal(second.sizes[0]?.written, late.length);
  assert.ok((second.sizes[2]?.written ?? 0) >= 2, 'the daily summaries followed');
  table = await readRollupTable(r);
  assert.deepEqual(sorted(table.summaries), sorted(bruteSummaries([...all, ...late], WINDOW_SECS)));
  assert.deepEqual(table.markers, []);
  assert.equal((await job.run()).written, 0, 'nothing left to do');
});

void test('a marker row re-marked while its windows are recomputed is left (its windows counted as found re-marked); the next run includes the late event', async (t) => {
  const r = await rollupHarness(t, 'rsup');
  const start = MIDNIGHT - 3 * HOUR;
  // 'calm' shares racy's marker row (same bucket and minute): the whole row stays when racy is re-marked
  const buckets = r.s.keyspace.buckets;
  const calm = Array.from({ length: 1000 }, (_, i) => `calm-${i}`).find((id) => saltOf(id, buckets) === saltOf('racy', buckets)) as string;
  const early: Ev[] = [
    { id: 'racy', ts: start + 1000, metric: 'v', value: 1 },
    { id: calm, ts: start + 2000, metric: 'v', value: 2 },
    { id: 'other', ts: start + MIN + 5, metric: 'v', value: 3 },
  ];
  const lateEv: Ev = { id: 'racy', ts: start + 3000, metric: 'v', value: 100 };
  await writeEvents(r, early);
  await markEvents(r, early);
  let raced = false;
  let newVersion: Buffer | undefined;
  // Ingest writes a late event and re-marks the window right after the job read the window's data.
  const racing: RollupStore = {
    scan: (table, opts) => {
      const real = r.h.rest.scan(table, opts);
      if (table !== r.s.dataTable || raced || opts.startRow?.[0] !== saltOf('racy', buckets)) return real;
      raced = true;
      return (async function* () {
        const rows = [];
        for await (const row of real) rows.push(row);
        await writeEvents(r, [lateEv]);
        const mark = markerRow({ id: 'racy', windowSec: 60, windowStart: start }, { keyspace: r.s.keyspace, family: r.s.rollupFamily, stamp: Date.now() });
        newVersion = mark.cells.find((c) => c.qualifier.equals(VERSION_QUALIFIER))?.value;
        await r.h.rest.put(r.s.rollupTable, [putRowOf(mark)]);
        yield* rows;
      })();
    },
    put: (table, rows) => r.h.rest.put(table, rows),
    checkAndDelete: (table, del) => r.h.rest.checkAndDelete(table, del),
  };
  const one = await newJob(r, racing).run();
  assert.equal(raced, true);
  assert.equal(one.sizes[0]?.remarked, 2, "racy's and calm's windows: their row was re-marked");
  assert.equal(one.ok, true, 'a re-marked row is not an error');
  let table = await readRollupTable(r);
  const key = r.s.keyspace.markerKey({ id: 'racy', windowSec: 60, windowStart: start });
  assert.deepEqual(
    table.markers.map((k) => k.toString('hex')),
    [key.toString('hex')],
    "only the re-marked row is left (other's went)",
  );
  assert.deepEqual(table.marks, [`${calm}|60|${start}`, `racy|60|${start}`].sort(), 'both marks of the row are kept');
  const version = (await r.h.rest.get(r.s.rollupTable, key))?.cells.find((c) => c.qualifier.equals(VERSION_QUALIFIER));
  assert.ok(newVersion !== undefined && version?.value.equals(newVersion) === true, 'the row holds the re-mark');
  assert.equal(table.summaries.get(`racy|60|${start}|v`)?.count, 1, 'the raced recompute missed the late event');

  const two = await newJob(r).run();
  assert.equal(two.remarked, 0);
  table = await readRollupTable(r);
  assert.deepEqual(table.markers, []);
  assert.deepEqual(sorted(table.summaries), sorted(bruteSummaries([...early, lateEv], WINDOW_SECS)));
});

void test('marker rows on the real gateway: settling ids survive the delete, per-id markers of earlier versions and version-less rows are removed', async (t) => {
  const r = await rollupHarness(t, 'rrow');
  const start = MIDNIGHT - 5 * HOUR;
  const buckets = r.s.keyspace.buckets;
  const [settled, settling, legacy] = Array.from({ length: 3000 }, (_, i) => `row-${i}`)
    .filter((id) => saltOf(id, buckets) === saltOf('row-0', buckets))
    .slice(0, 3) as [string, string, string];
  const evs: Ev[] = [settled, settling, legacy].map((id, i) => ({ id, ts: start + 10 + i, metric: 'v', value: i + 1 }));
  await writeEvents(r, evs);
  const now = Date.now();
  const settleMs = 120_000;
  const put = (id: string, stamp: number): Promise<void> =>
    r.h.rest.put(r.s.rollupTable, [
      putRowOf(markerRow({ id, windowSec: 60, windowStart: start }, { keyspace: r.s.keyspace, family: r.s.rollupFamily, stamp })),
    ]);
  await put(settled, now - 300_000);
  await put(settling, now - 10_000);
  // a per-id marker as earlier versions wrote it, and a marker row that lost its version cell
  const legacyKey = encodeIdMarkerKey({ id: legacy, windowSec: 60, windowStart: start }, buckets);
  await r.h.rest.put(r.s.rollupTable, [
    {
      row: legacyKey,
      cells: [
        { column: Buffer.concat([Buffer.from(`${r.s.rollupFamily}:`), LEGACY_QUALIFIER]), value: newMarkerValue(now - 400_000), timestamp: now - 400_000 },
      ],
    },
  ]);
  const bare = r.s.keyspace.markerKey({ id: legacy, windowSec: 60, windowStart: start - MIN });
  await r.h.rest.put(r.s.rollupTable, [
    { row: bare, cells: [{ column: Buffer.from(`${r.s.rollupFamily}:${legacy}`), value: Buffer.alloc(0), timestamp: now - 500_000 }] },
  ]);
  const job = (): ReturnType<RollupJob['run']> =>
    new RollupJob({
      store: r.h.rest,
      settings: { ...r.s, markerSettleMs: settleMs },
      metrics: createReadMetrics(new Registry(), r.cfg.rollup.windows),
      log: pino({ level: 'warn' }),
    }).run();
  const one = await job();
  assert.equal(one.ok, true, JSON.stringify(one));
  assert.deepEqual([one.sizes[0]?.pending, one.sizes[0]?.settling], [4, 1]);
  let table = await readRollupTable(r);
  assert.deepEqual(table.marks, [`${settling}|60|${start}`], 'only the settling mark is left');
  assert.equal(table.summaries.get(`${settled}|60|${start}|v`)?.sum, 1);
  assert.equal(table.summaries.get(`${legacy}|60|${start}|v`)?.sum, 3, 'the per-id marker was rolled up');
  assert.equal(table.summaries.has(`${settling}|60|${start}|v`), false);
  // once it has settled
  const two = await new RollupJob({
    store: r.h.rest,
    settings: { ...r.s, markerSettleMs: settleMs },
    metrics: createReadMetrics(new Registry(), r.cfg.rollup.windows),
    log: pino({ level: 'warn' }),
    now: () => Date.now() + settleMs,
  }).run();
  assert.equal(two.ok, true);
  table = await readRollupTable(r);
  assert.deepEqual(table.markers, []);
  assert.deepEqual(sorted(table.summaries), sorted(bruteSummaries(evs, WINDOW_SECS)));
});

void test('two job runners at once give the summaries one runner gives', async (t) => {
  const r = await rollupHarness(t, 'rtwo');
  const events = randomEvents({ seed: 7, n: 300, ids: 5, from: MIDNIGHT - HOUR, hours: 2 });
  await writeEvents(r, events);
  const marked = await markEvents(r, events);
  const [a, b] = await Promise.all([newJob(r).run(), newJob(r).run()]);
  assert.equal(a.ok && b.ok, true, JSON.stringify([a, b]));
  assert.ok((a.sizes[0]?.pending ?? 0) + (b.sizes[0]?.pending ?? 0) >= marked, 'every marker was seen');
  const table = await readRollupTable(r);
  assert.deepEqual(table.markers, []);
  assert.deepEqual(sorted(table.summaries), sorted(bruteSummaries(events, WINDOW_SECS)));
});
