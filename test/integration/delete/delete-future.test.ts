// `tsingest delete` of ids whose events lie partly after now (issue 39): a plain id, a spread id (its
// later events over 4 buckets) and an awkward id (non-ASCII, '/', ' ', ':'), ingested by the real
// service. Each delete leaves nothing in a raw scan of the four tables, counts what it removed, and a
// rerun converges (the id is then not there at all, said fast). An id never written is said so; an
// id the key layout refuses exits 2.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { registryStore, tablesOf } from '../../../src/service/keyspace.ts';
import { uniqueName } from '../../support/env.ts';
import { createHarness, type TestEvent } from '../../support/service-harness.ts';
import { ingestThroughService, jsonOf, tsingestCli } from '../index-tools/helpers.ts';
import { NOTHING, stateOf } from './raw-state.ts';

const MIN = 60_000;
const SETS = ['keys.saltBuckets=8', 'rollup.windows=["1m","1h"]'];
const PLAIN = 'dev-0500';
const SPREAD = 'dev1';
const AWKWARD = 'Zürich/Straße 5:7';

/** n events every `every` ms from `from`, every other one with indexed tags. */
function events(id: string, n: number, from: number, every: number): TestEvent[] {
  return Array.from({ length: n }, (_, i) => {
    const e = { id, ts: from + i * every, metric: i % 2 === 0 ? 'temp' : 'hum', value: i };
    return i % 2 === 0 ? e : { ...e, tags: { site: `s${i % 3}`, rack: 'r1' } };
  });
}

interface DeleteJson {
  status: string;
  clean: boolean | null;
  neverSeen: boolean;
  ms: number;
  deleted: { dataRows: number; indexRows: number; catalogRows: number; markerCells: number; registryEntries: number } | null;
}

void test('delete: future-dated events of a plain, a spread and an awkward id leave nothing; reruns converge', { timeout: 600_000 }, async (t) => {
  const h = await createHarness(t, { prefix: 'delete-fut', partitions: 1, sets: SETS });
  const cfg = h.config(['kafka.groupId=unused']);
  const now = Date.now();
  // The spread id: over 4 buckets from 30 min ago on, so its future events are spread.
  await registryStore(cfg, tablesOf(cfg), h.rest).update(SPREAD, () => ({ epochs: [{ since: now - 30 * MIN, k: 4 }], fence: null }));
  const written = new Map([
    [PLAIN, events(PLAIN, 50, now - 25 * MIN, MIN)], // 25 past, 25 future
    [SPREAD, events(SPREAD, 120, now - 60 * MIN, MIN)], // 60 past, 60 future
    [AWKWARD, events(AWKWARD, 10, now - 5 * MIN, 2 * MIN)], // 3 past, 7 future
  ]);
  await ingestThroughService(h, [...written.values()].flat());

  for (const [id, evs] of written) {
    await t.test(`${JSON.stringify(id)}: every row goes, future ones included, counted as removed`, async () => {
      const before = await stateOf(h, id, SETS);
      assert.equal(before.data, evs.length);
      assert.ok(
        before.dataTs.some((ts) => ts > Date.now() + MIN),
        'rows later than now',
      );
      assert.ok(before.index > 0 && before.catalog > 0, JSON.stringify(before));
      const r = await tsingestCli(h, ['delete', '--id', id, '--json'], SETS);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      const j = jsonOf(r) as unknown as DeleteJson;
      assert.equal(j.clean, true, r.stdout);
      const d = j.deleted;
      assert.ok(d !== null, r.stdout);
      assert.equal(d.dataRows, before.data, 'the data rows found, and gone after');
      assert.equal(d.indexRows, before.index, 'the index rows that existed, not the keys tried');
      assert.equal(d.catalogRows, before.catalog);
      assert.equal(d.registryEntries, before.registry);
      assert.deepEqual(await stateOf(h, id, SETS), NOTHING, 'a raw scan of every table finds nothing of the id');

      const again = await tsingestCli(h, ['delete', '--id', id, '--json'], SETS);
      assert.equal(again.code, 0, again.stdout + again.stderr);
      const k = jsonOf(again) as unknown as DeleteJson;
      assert.equal(k.neverSeen, true, 'a rerun converges: nothing of the id is there');
      assert.ok(k.ms < 10_000, `said fast: ${k.ms} ms`);
    });
  }

  await t.test('an id never written is said so, exit 0', async () => {
    const id = uniqueName('nobody');
    const r = await tsingestCli(h, ['delete', '--id', id], SETS);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /id never seen \(no data row in any bucket, no summary, registry entry or catalog row\): nothing to delete/);
  });

  await t.test('an id the key layout refuses exits 2 and names the problem', async () => {
    const r = await tsingestCli(h, ['delete', '--id', 'x'.repeat(130)], SETS);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /--id: id is 130 UTF-8 bytes, max 128/);
  });
});
