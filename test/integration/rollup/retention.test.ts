// Retention per window size against the real stack (docs/RETENTION.md): `tables apply` creates one
// family per size with its TTL and alters a TTL in place (read back through the admin tool); the job
// writes each size's summaries into its own family, and the rollup read API and the series API read
// them back; a rollup table of the old layout (one family) is upgraded by `tables apply` keeping every
// summary, which stays readable, is superseded by a recompute and is erased by the delete command.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyTables, checkTables } from '../../../src/admin/apply-tables.ts';
import { JavaTableAdmin } from '../../../src/admin/java-admin.ts';
import { planTables } from '../../../src/admin/table-plan.ts';
import { whatChanged } from '../../../src/cli/tables.ts';
import { deleteId } from '../../../src/delete/delete-id.ts';
import { deleteSettings } from '../../../src/delete/delete-settings.ts';
import { verifyDeleted } from '../../../src/delete/verify.ts';
import { decodeRollupKey } from '../../../src/keys/index.ts';
import { collectPage, readSettingsOf } from '../../../src/reads-v1/queries.ts';
import { readRollups } from '../../../src/reads-v1/scan-reads.ts';
import { idWindowRows } from '../../../src/rollup/backfill-plan.ts';
import { WindowContent } from '../../../src/rollup/window-content.ts';
import { columnOf } from '../../../src/rollup/fold.ts';
import { rollupSettings } from '../../../src/rollup/rollup-settings.ts';
import { parseWindows } from '../../../src/rollup/windows.ts';
import type { Config } from '../../../src/runtime/config.ts';
import { keyspaceOf, tablesOf } from '../../../src/service/keyspace.ts';
import { retryingRest } from '../../support/service-harness.ts';
import { bruteSummaries, type Ev } from '../../unit/rollup/brute.ts';
import { markEvents, newJob, rollupHarness, seriesSumsOf, writeEvents, type RollupHarness } from './helpers.ts';

const DAY = 86_400_000;
const MIDNIGHT = Math.floor((Date.now() - 20 * DAY) / DAY) * DAY;
const SIZES = [60, 3600, 86_400];
const TTL1 = '{"1m": 86400, "1h": 31536000}';
const TTL2 = '{"1m": 172800, "1h": 63072000}';

function events(id: string, n: number): Ev[] {
  return Array.from({ length: n }, (_, i) => ({ id, ts: MIDNIGHT + 5 * 60_000 + i * 17 * 60_000, metric: 'temp', value: (i % 9) - 3.25 }));
}

async function familyTtls(admin: JavaTableAdmin, table: string): Promise<Record<string, string | undefined>> {
  const d = await admin.describe(table);
  return Object.fromEntries(d.families.map((f) => [f.name, f.attrs['TTL']]));
}

/** Every window of each size through the rollup read API (GET /rollups), as `id|size|start|metric` → [count, sum, min, max]. */
async function readApi(r: RollupHarness, cfg: Config, id: string): Promise<Map<string, number[]>> {
  const s = readSettingsOf(cfg, r.s.keyspace, tablesOf(cfg));
  const out = new Map<string, number[]>();
  for (const w of parseWindows(cfg.rollup.windows)) {
    const { items } = await collectPage(
      readRollups(r.h.rest, { kind: 'rollups', id, window: w, from: MIDNIGHT - DAY, to: MIDNIGHT + 2 * DAY, metric: null, limit: 1000, after: null }, s),
    );
    for (const item of items) {
      for (const [m, v] of Object.entries(item.metrics)) out.set(`${id}|${w.seconds}|${item.windowStart}|${m}`, [v.count, v.sum, v.min, v.max]);
    }
  }
  return out;
}

function expected(evs: readonly Ev[]): Map<string, number[]> {
  return new Map([...bruteSummaries(evs, SIZES)].map(([k, s]) => [k, [s.count, s.sum, s.min, s.max]]));
}

/** The series API's answer (planner, series store, computation) for one id and a downsample, with the plan it took. */
/** Per window start of one size, the brute-force sum of the id's values: what a `<size>-sum` downsample answers. */
function bruteSums(evs: readonly Ev[], size: number): [number, number][] {
  return [...bruteSummaries(evs, [size])].map(([k, s]): [number, number] => [Number(k.split('|')[2]), s.sum]).sort((a, b) => a[0] - b[0]);
}

async function seriesSums(
  cfg: Config,
  r: RollupHarness,
  id: string,
  downsample: string,
): Promise<{ window: number | 'raw'; dps: (readonly [number, number | null])[] }> {
  const { plan, dps } = await seriesSumsOf(cfg, r, { id, downsample, from: MIDNIGHT, to: MIDNIGHT + DAY });
  return { window: plan.path === 'raw' ? 'raw' : plan.windowMs / 1000, dps };
}

void test("tables apply: a family per size with its TTL, altered in place; each size's summaries in its family, read back by the rollup and series APIs", async (t) => {
  const r = await rollupHarness(t, 'rttl');
  const cfg = r.h.config(['kafka.groupId=unused', 'tables.rollup.ttlSeconds=604800', `tables.rollup.ttlByWindow=${TTL1}`]);
  const admin = r.h.tableAdmin;
  await retryingRest('apply', () => applyTables(cfg, admin, r.h.rest));
  assert.deepEqual(
    await familyTtls(admin, r.h.names.rollup),
    { d: '604800', r1m: '86400', r1h: '31536000', r1d: '604800', p: 'FOREVER' },
    "point blocks: the data table's TTL (none here)",
  );

  const evs = events('dev-a', 40);
  await writeEvents(r, evs);
  await markEvents(r, evs);
  const run = await newJob(r).run();
  assert.equal(run.ok, true, JSON.stringify(run));
  // Each summary row's cells are in its size's family only; point blocks, in the points family, for the
  // finest size alone (rollup.pointBlocks.everySize off, the default). The blocks are kept for ever, as
  // long as the 1 m summaries: each stands for its summary, so the minute rows hold no summary cell
  // (rollup.pointBlocks.summaryInBlock, docs/ROLLUPS.md).
  const families = new Map<number, Set<string>>();
  for await (const row of r.h.rest.scan(r.h.names.rollup, { batch: 5000 })) {
    if (row.row[1] === 0x00) continue;
    const size = decodeRollupKey(row.row).windowSec;
    const seen = families.get(size) ?? new Set<string>();
    families.set(size, seen);
    for (const c of row.cells) seen.add(c.family.toString());
  }
  assert.deepEqual([...families].map(([size, f]) => [size, [...f].sort()]).sort(), [
    [3600, ['r1h']],
    [60, ['p']],
    [86_400, ['r1d']],
  ]);
  assert.deepEqual(await readApi(r, cfg, 'dev-a'), expected(evs));
  assert.deepEqual(await seriesSums(cfg, r, 'dev-a', '1h-sum'), { window: 3600, dps: bruteSums(evs, 3600) }, 'the 1 h tier: kept a year');
  // 1 d summaries are kept 7 days (the default ttlSeconds) and these are 20 days old: the planner takes
  // the 1 h tier, which still holds the day, and answers the same.
  assert.deepEqual(await seriesSums(cfg, r, 'dev-a', '1d-sum'), { window: 3600, dps: bruteSums(evs, 86_400) });
  const forever = r.h.config(['kafka.groupId=unused', 'tables.rollup.ttlSeconds=null', `tables.rollup.ttlByWindow=${TTL1}`]);
  assert.deepEqual(await seriesSums(forever, r, 'dev-a', '1d-sum'), { window: 86_400, dps: bruteSums(evs, 86_400) }, 'with 1 d kept forever: the 1 d tier');

  // A longer TTL for 1m and 1h: altered in place, the rest unchanged, the summaries still there.
  const cfg2 = r.h.config(['kafka.groupId=unused', 'tables.rollup.ttlSeconds=604800', `tables.rollup.ttlByWindow=${TTL2}`]);
  const applied = await retryingRest('apply again', () => applyTables(cfg2, admin, r.h.rest));
  const rollup = applied.find((a) => a.role === 'rollup');
  assert.ok(rollup !== undefined);
  assert.equal(whatChanged(rollup.result), 'unchanged');
  assert.deepEqual(
    rollup.families.map((f) => [f.family, whatChanged(f.result)]),
    [
      ['r1m', 'updated (TTL: 86400→172800)'],
      ['r1h', 'updated (TTL: 31536000→63072000)'],
      ['r1d', 'unchanged'],
      ['p', 'unchanged'],
    ],
  );
  assert.deepEqual(await familyTtls(admin, r.h.names.rollup), { d: '604800', r1m: '172800', r1h: '63072000', r1d: '604800', p: 'FOREVER' });
  assert.deepEqual(await readApi(r, cfg2, 'dev-a'), expected(evs), 'no summary lost by the alter');
});

void test('upgrade from one rollup family: tables apply adds the size families, old summaries stay readable, a recompute supersedes them, delete erases both', async (t) => {
  const r = await rollupHarness(t, 'rupg');
  const admin = r.h.tableAdmin;
  // A rollup table as versions before this change made it: the main family only, summaries in it.
  const old = `${r.h.names.rollup}_old`;
  r.h.defer(() => retryingRest(`drop ${old}`, () => r.h.rest.deleteTable(old, { ignoreMissing: true })));
  const cfg = r.h.config(['kafka.groupId=unused', `tables.rollup.name=${old}`]);
  const planned = planTables(cfg).find((p) => p.role === 'rollup');
  assert.ok(planned !== undefined);
  await retryingRest('create old layout', () => admin.ensureTable(planned.request));
  const s = { ...rollupSettings(cfg, keyspaceOf(cfg), tablesOf(cfg)) };
  const evs = events('legacy', 30);
  await writeEvents(r, evs);
  // Summaries only, as those versions wrote them: no point blocks, no packs.
  const fine = new Map<number, WindowContent>();
  for (const e of [...evs].sort((a, b) => b.ts - a.ts)) {
    const start = e.ts - (e.ts % 60_000);
    const c = fine.get(start) ?? new WindowContent(null);
    fine.set(start, c);
    c.addPoint(e.metric, e.ts, e.value);
  }
  const legacyRows = idWindowRows('legacy', fine, { ...s, blocks: null }, Date.now() - 60_000).rows.map((row) => ({
    row: row.row,
    cells: row.cells
      .map((c) => c.column.subarray(c.column.indexOf(0x3a) + 1))
      .flatMap((q, i) => (q[0] === 0x00 ? [] : [{ ...(row.cells[i] as (typeof row.cells)[number]), column: columnOf('d', q) }])),
  }));
  await retryingRest('put old summaries', () => r.h.rest.put(old, legacyRows));
  assert.match(
    (await checkTables(cfg, r.h.rest)).join('\n'),
    /has no column family 'r1m' \(1m summaries\), 'r1h' \(1h summaries\), 'r1d' \(1d summaries\)/,
    'the service refuses to start before the upgrade',
  );

  const applied = await retryingRest('apply (upgrade)', () => applyTables(cfg, admin, r.h.rest));
  assert.deepEqual(
    applied.find((a) => a.role === 'rollup')?.families.map((f) => [f.family, whatChanged(f.result)]),
    [
      ['r1m', 'added'],
      ['r1h', 'added'],
      ['r1d', 'added'],
      ['p', 'added'],
    ],
  );
  assert.deepEqual(await checkTables(cfg, r.h.rest), []);
  const uo = { ...r, cfg, s };
  assert.deepEqual(await readApi(uo, cfg, 'legacy'), expected(evs), 'every old summary read from the main family');
  assert.deepEqual(await seriesSums(cfg, uo, 'legacy', '1h-sum'), { window: 3600, dps: bruteSums(evs, 3600) }, 'and by the series API');

  // A late event: its windows are recomputed into the size families; the newer cells win over the old ones.
  const late: Ev = { id: 'legacy', ts: MIDNIGHT + 5 * 60_000 + 30_000, metric: 'temp', value: 100 };
  await writeEvents(uo, [late]);
  await markEvents(uo, [late]);
  const run = await newJob(uo).run();
  assert.equal(run.ok, true, JSON.stringify(run));
  assert.deepEqual(
    await readApi(uo, cfg, 'legacy'),
    expected([...evs, late]),
    'recomputed windows from the new families, the others still from the old one, nothing counted twice',
  );

  // The delete erases summaries in every family.
  const es = deleteSettings(cfg, s.keyspace, tablesOf(cfg), { id: 'legacy', range: null });
  const report = await deleteId(r.h.rest, es, { pageRows: 100, concurrency: 8, bucketConcurrency: 2, now: Date.now });
  assert.ok(report.deleted.summaries > 0);
  const left = await verifyDeleted(r.h.rest, es, report.seen);
  assert.equal(left.summaries, 0);
  let cells = 0;
  for await (const row of r.h.rest.scan(old, { batch: 5000 })) if (row.row[1] !== 0x00) cells += row.cells.length;
  assert.equal(cells, 0, 'no summary cell left in any family');
});
