// `tsingest delete` against the real stack: a hot id spread over several buckets by two epochs, its
// indexed tags, rollups and catalog rows written by the real service and the rollup job; a range
// delete; a whole-id delete stopped after its first page and resumed from its checkpoint; then every
// table scanned: nothing of the id is left, and an id it is a prefix of (same base bucket) is untouched.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deleteCheckpointFile } from '../../../src/delete/delete-checkpoint.ts';
import { deleteId } from '../../../src/delete/delete-id.ts';
import { DeleteProgress, type DeleteCounts } from '../../../src/delete/delete-progress.ts';
import { deleteSettings } from '../../../src/delete/delete-settings.ts';
import { verifyDeleted } from '../../../src/delete/verify.ts';
import { buildEventCells } from '../../../src/events/index.ts';
import { putRowOf } from '../../../src/rollup/fold.ts';
import { generationsOf, GENERATIONS_ROW } from '../../../src/rollup/generations.ts';
import { saltOf } from '../../../src/keys/index.ts';
import { openKeyspace, registryStore, tablesOf } from '../../../src/service/keyspace.ts';
import { createHarness, retryingRest, type Harness, type TestEvent } from '../../support/service-harness.ts';
import { stateOf as rawStateOf, type IdState } from './raw-state.ts';
import { ingestThroughService, jsonOf, tsingestCli } from '../index-tools/helpers.ts';

const BASE = 1_732_262_400_000; // 2024-11-22T08:00:00Z
const MIN = 60_000;
const HOT = 'dev';
const SETS = ['keys.saltBuckets=8', 'rollup.windows=["1m","1h"]', 'rollup.graceMs=0', 'rollup.markerSettleMs=0'];

/** An id that `dev` is a prefix of, in dev's base bucket (its marker rows are shared with dev's). */
function neighbour(): string {
  for (let i = 0; i < 1000; i++) if (saltOf(`dev${i}`, 8) === saltOf(HOT, 8)) return `dev${i}`;
  throw new Error('no neighbour id');
}
const OTHER = neighbour();

function events(id: string, n: number, from: number, every: number): TestEvent[] {
  return Array.from({ length: n }, (_, i) => {
    const e = { id, ts: from + i * every, metric: i % 2 === 0 ? 'temp' : 'hum', value: i };
    return i % 3 === 0 ? e : { ...e, tags: { site: `s${i % 4}`, rack: 'r1' } };
  });
}

/** Everything of `id` in the four tables, found by scanning each table whole and decoding every key. */
const stateOf = (h: Harness, id: string): Promise<IdState> => rawStateOf(h, id, SETS);

void test('delete: range, interrupted and resumed, verified; the neighbour id untouched', { timeout: 600_000 }, async (t) => {
  const h = await createHarness(t, { prefix: 'delete', partitions: 1, sets: SETS });
  const cfg = h.config(['kafka.groupId=unused']);
  const tables = tablesOf(cfg);
  // The hot id: plain until BASE + 60 min, over 2 buckets from then, over 4 from BASE + 120 min.
  await registryStore(cfg, tables, h.rest).update(HOT, () => ({
    epochs: [
      { since: BASE + 60 * MIN, k: 2 },
      { since: BASE + 120 * MIN, k: 4 },
    ],
    fence: null,
  }));
  const hot = events(HOT, 360, BASE, 30_000); // 3 h
  const other = events(OTHER, 120, BASE, 90_000);
  await ingestThroughService(h, [...hot, ...other]);
  const rollup = await tsingestCli(h, ['rollup', 'run'], SETS);
  assert.equal(rollup.code, 0, rollup.stderr);
  // Later events: pending markers of both ids in the same marker rows.
  const late = [...events(HOT, 20, BASE + 200 * MIN, 30_000), ...events(OTHER, 20, BASE + 200 * MIN, 30_000)];
  await ingestThroughService(h, late);

  const before = await stateOf(h, HOT);
  const otherBefore = await stateOf(h, OTHER);
  assert.equal(before.data, 380);
  assert.ok(before.index > 0 && before.summaries > 0 && before.markerCells > 0 && before.catalog > 0 && before.registry === 1, JSON.stringify(before));
  assert.ok(otherBefore.markerCells > 0 && otherBefore.summaries > 0, JSON.stringify(otherBefore));

  await t.test('a range delete removes the events in [from, to) only and marks the cut windows', async () => {
    const from = BASE + 50 * MIN + 15_000;
    const to = BASE + 70 * MIN;
    const r = await tsingestCli(h, ['delete', '--id', HOT, '--from', String(from), '--to', String(to), '--json'], SETS);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const j = jsonOf(r) as { clean: boolean; deleted: { dataRows: number; windowsMarked: number } };
    assert.equal(j.clean, true);
    const inRange = hot.filter((e) => e.ts >= from && e.ts < to).length;
    assert.equal(j.deleted.dataRows, inRange);
    assert.equal(j.deleted.windowsMarked, 3, 'the minute at from, the hours at from and at to');
    const after = await stateOf(h, HOT);
    assert.equal(after.data, before.data - inRange);
    assert.equal(after.dataTs.filter((ts) => ts >= from && ts < to).length, 0);
    assert.equal(after.registry, 1, 'a range delete keeps the registry entry');
    assert.equal(after.catalog, before.catalog, 'and the catalog rows');
    assert.deepEqual(await stateOf(h, OTHER), otherBefore);
  });

  await t.test('a whole-id delete stopped after its first page resumes from its checkpoint and leaves nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'delete-it-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, 'cp.json');
    const { keyspace } = await openKeyspace(cfg, tables, h.rest);
    const s = deleteSettings(h.config(['kafka.groupId=unused', ...SETS]), keyspace, tables, { id: HOT, range: null });
    const ac = new AbortController();
    class StopAfterFirstPage extends DeleteProgress {
      override add(delta: Partial<DeleteCounts>): void {
        super.add(delta);
        if ((delta.dataRows ?? 0) > 0) ac.abort();
      }
    }
    const first = await deleteId(h.rest, s, {
      pageRows: 50,
      concurrency: 8,
      bucketConcurrency: 1,
      now: Date.now,
      checkpoint: deleteCheckpointFile(path),
      signal: ac.signal,
      progress: new StopAfterFirstPage(Date.now()),
    });
    assert.equal(first.status, 'interrupted');
    assert.ok(first.deleted.dataRows > 0 && first.deleted.dataRows <= 50, `one page of the first bucket: ${first.deleted.dataRows}`);
    const saved = JSON.parse(await readFile(path, 'utf8')) as { units: Record<string, { after: string | null }>; finishedAt: string | null };
    assert.equal(saved.finishedAt, null);
    assert.equal(Object.values(saved.units).filter((u) => u.after !== null).length, 1, 'one bucket has a position');
    const mid = await stateOf(h, HOT);
    assert.ok(mid.data > 0 && mid.registry === 1, 'the first part only');

    const gensBefore = generationsOf(await h.rest.get(tables.meta.name, GENERATIONS_ROW));
    const rerun = await tsingestCli(h, ['delete', '--id', HOT, '--checkpoint', path, '--json'], SETS);
    assert.equal(rerun.code, 0, rerun.stdout + rerun.stderr);
    const j = jsonOf(rerun) as { status: string; clean: boolean; deleted: { dataRows: number; registryEntries: number; catalogRows: number } };
    assert.equal(j.status, 'finished');
    assert.equal(j.clean, true);
    assert.equal(j.deleted.dataRows, mid.data, 'the resumed run deletes the rest, not the first page again');
    assert.equal(j.deleted.registryEntries, 1);
    assert.deepEqual(await stateOf(h, HOT), { data: 0, dataTs: [], index: 0, summaries: 0, markerCells: 0, catalog: 0, registry: 0 });
    assert.deepEqual(await stateOf(h, OTHER), otherBefore, 'the neighbour id keeps every row, marker cell and catalog entry');
    const gensAfter = generationsOf(await h.rest.get(tables.meta.name, GENERATIONS_ROW));
    assert.notEqual(
      gensAfter.get(keyspace.baseSalt(HOT)),
      gensBefore.get(keyspace.baseSalt(HOT)),
      "the deleted id's bucket has a new window generation: the series API's window caches drop its windows",
    );
  });

  await t.test('an event written after the delete is there again: the verification finds it, a rerun removes it', async () => {
    const { keyspace } = await openKeyspace(cfg, tables, h.rest);
    const s = deleteSettings(h.config(['kafka.groupId=unused', ...SETS]), keyspace, tables, { id: HOT, range: null });
    const ts = BASE + 400 * MIN;
    const row = putRowOf({
      key: keyspace.dataKey(HOT, ts),
      cells: buildEventCells({ id: HOT, ts, metric: 'temp', value: 1, tags: {} }, cfg.tables.data.family),
    });
    await retryingRest('put a late event', () => h.rest.put(h.names.data, [row]));
    const left = await verifyDeleted(h.rest, s, { values: [], minTs: null, maxTs: null });
    assert.deepEqual(left, { dataRows: 1, indexRows: 0, summaries: 0, markerCells: 0, catalogRows: 0, registryEntries: 0 });
    const r = await tsingestCli(h, ['delete', '--id', HOT, '--json'], SETS);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal((jsonOf(r) as { deleted: { dataRows: number } }).deleted.dataRows, 1);
  });

  await t.test('a delete of an id with nothing left is a clean no-op: it says the id is not there', async () => {
    const r = await tsingestCli(h, ['delete', '--id', HOT], SETS);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /delete "dev": id never seen .*: nothing to delete/);
    assert.deepEqual(await stateOf(h, OTHER), otherBefore);
  });
});
