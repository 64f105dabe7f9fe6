// Point blocks as the long-term tier, on the real stack (docs/RETENTION.md): with the data table's TTL
// shortened by `tables apply` so that HBase itself hides an hour's first half, the series API still
// answers the hour's raw points from its point blocks (tables.rollup.pointsTtlSeconds=null), a late
// event into that hour is added to every point the block kept, and a range delete inside the expired
// half takes its points out for good.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyTables } from '../../../src/admin/apply-tables.ts';
import { deleteId } from '../../../src/delete/delete-id.ts';
import { deleteSettings } from '../../../src/delete/delete-settings.ts';
import { rollupSettings } from '../../../src/rollup/rollup-settings.ts';
import type { Config } from '../../../src/runtime/config.ts';
import { tablesOf } from '../../../src/service/keyspace.ts';
import { retryingRest } from '../../support/service-harness.ts';
import type { Ev } from '../../unit/rollup/brute.ts';
import { markEvents, newJob, rollupHarness, seriesSumsOf, writeEvents, type RollupHarness } from './helpers.ts';

const MIN = 60_000;
const HOUR = 3_600_000;
const WINDOWS = 'rollup.windows=["1h","1d"]';
const ID = 'tier';

/** The id's `10m-sum` (planned raw: no window divides 10 minutes) over [from, to), with the plan's path. */
async function tenMinuteSums(cfg: Config, r: RollupHarness, from: number, to: number): Promise<{ path: string; dps: (readonly [number, number | null])[] }> {
  const { plan, dps } = await seriesSumsOf(cfg, r, { id: ID, downsample: '10m-sum', from, to });
  return { path: plan.path, dps };
}

/** What the sums must be: every event of the id, in 10-minute buckets. */
function bruteTenMinutes(evs: readonly Ev[]): [number, number][] {
  const sums = new Map<number, number>();
  for (const e of evs) {
    const b = e.ts - (e.ts % (10 * MIN));
    sums.set(b, (sums.get(b) ?? 0) + e.value);
  }
  return [...sums].sort((a, b) => a[0] - b[0]);
}

async function dataRowsOf(r: RollupHarness, from: number, to: number): Promise<number> {
  let n = 0;
  for await (const row of r.h.rest.scan(r.s.dataTable, { batch: 1000 })) {
    const k = r.s.keyspace.decodeDataKey(row.row);
    if (k.id === ID && k.ts >= from && k.ts < to) n++;
  }
  return n;
}

void test('raw rows past their TTL: the series API answers from the blocks, a late event keeps every point, a range delete stays deleted', async (t) => {
  const r0 = await rollupHarness(t, 'rtier');
  const hour = Math.floor((Date.now() - 5 * HOUR) / HOUR) * HOUR;
  const evs: Ev[] = Array.from({ length: 40 }, (_, i) => ({ id: ID, ts: hour + 30_000 + i * 90_000, metric: 'temp', value: (i % 7) - 2.5 }));
  const before: Ev[] = Array.from({ length: 10 }, (_, i) => ({ id: ID, ts: hour - HOUR + i * 6 * MIN, metric: 'temp', value: i + 0.25 }));
  const all = [...before, ...evs];
  const cfg0 = r0.h.config(['kafka.groupId=unused', WINDOWS]);
  await retryingRest('apply', () => applyTables(cfg0, r0.h.tableAdmin, r0.h.rest));
  const r: RollupHarness = { h: r0.h, cfg: cfg0, s: rollupSettings(cfg0, r0.s.keyspace, tablesOf(cfg0)) };
  await writeEvents(r, all);
  await markEvents(r, all);
  assert.equal((await newJob(r).run()).ok, true);
  const range = [hour - HOUR, hour + HOUR] as const;
  const kept = await tenMinuteSums(cfg0, r, ...range);
  assert.deepEqual(kept, { path: 'raw', dps: bruteTenMinutes(all) }, 'every raw row kept: the blocks answer exactly');

  // HBase now hides every raw row older than the hour's first 30 minutes.
  const edge = hour + 30 * MIN;
  const ttl = Math.floor((Date.now() - edge) / 1000);
  const cfg1 = r0.h.config(['kafka.groupId=unused', WINDOWS, `tables.data.ttlSeconds=${ttl}`, 'tables.rollup.pointsTtlSeconds=null']);
  await retryingRest('apply the TTL', () => applyTables(cfg1, r0.h.tableAdmin, r0.h.rest));
  const visible = evs.filter((e) => e.ts >= edge + 60_000).length;
  // (an alter reopens the regions: the new TTL holds once they are back)
  let rows = Infinity;
  for (let i = 0; i < 60 && rows > visible + 1; i++) {
    rows = await retryingRest('scan the data table', () => dataRowsOf(r, hour, hour + HOUR));
    if (rows > visible + 1) await new Promise((done) => setTimeout(done, 1000));
  }
  assert.ok(rows <= visible + 1 && rows >= visible, `HBase hides the hour's rows before the edge: ${rows} of ${evs.length} left`);
  assert.ok((await dataRowsOf(r, hour - HOUR, hour)) === 0, 'the hour before: every row expired');
  assert.deepEqual(await tenMinuteSums(cfg1, r, ...range), kept, 'blocks kept for ever: the same answer from them');
  const blocksAsData = r0.h.config(['kafka.groupId=unused', WINDOWS, `tables.data.ttlSeconds=${ttl}`]);
  const left = await tenMinuteSums(blocksAsData, r, ...range);
  assert.notDeepEqual(left.dps, kept.dps, 'blocks as long as the raw rows (the default): what the data table has left');

  // A late event into the hour whose first half expired: its recompute keeps the block's points.
  const r1: RollupHarness = { h: r0.h, cfg: cfg1, s: rollupSettings(cfg1, r0.s.keyspace, tablesOf(cfg1)) };
  const late: Ev = { id: ID, ts: hour + 50 * MIN + 7, metric: 'temp', value: 1.75 };
  await writeEvents(r1, [late]);
  await markEvents(r1, [late]);
  assert.equal((await newJob(r1).run()).ok, true);
  assert.deepEqual(await tenMinuteSums(cfg1, r1, ...range), { path: 'raw', dps: bruteTenMinutes([...all, late]) }, 'every point, the late one too');

  // A range delete inside the expired half: the cut hour's block loses those points, and the recompute does not bring them back.
  const cut = { from: hour + 10 * MIN, to: hour + 20 * MIN };
  const ds = deleteSettings(cfg1, r1.s.keyspace, tablesOf(cfg1), { id: ID, range: cut });
  await deleteId(r0.h.rest, ds, { pageRows: 100, concurrency: 4, bucketConcurrency: 2, now: Date.now });
  assert.equal((await newJob(r1).run()).ok, true);
  const remaining = [...all, late].filter((e) => e.ts < cut.from || e.ts >= cut.to);
  assert.ok(remaining.length < all.length + 1, 'the range held points');
  assert.deepEqual(await tenMinuteSums(cfg1, r1, ...range), { path: 'raw', dps: bruteTenMinutes(remaining) });
});
