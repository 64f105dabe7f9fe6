// verify and rebuild over an in-memory store filled by the ingest's own planner.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { column } from '../../../src/hbase/codec.ts';
import { encodeTags, TAGS_QUALIFIER } from '../../../src/events/index.ts';
import { rebuildIndex, type RebuildOptions } from '../../../src/index-tools/rebuild.ts';
import type { IndexToolSettings } from '../../../src/index-tools/index-settings.ts';
import { verifyIndex } from '../../../src/index-tools/verify.ts';
import { encodeDataKey, encodeIndexKey } from '../../../src/keys/index.ts';
import type { Config } from '../../../src/runtime/config.ts';
import { FakeHBase } from '../../support/fake-hbase.ts';
import { BASE_TS, MemoryCheckpoints, configOf, distinctRows, expectedIndex, ingest, makeEvents, toolSettings, type Ev } from './fixtures.ts';

const VOPTS = { chunkSize: 7, concurrency: 3, sampleSize: 10 };
const ropts = (over: Partial<RebuildOptions> = {}): RebuildOptions => ({ chunkSize: 7, concurrency: 3, sampleSize: 10, graceMs: 0, now: Date.now, ...over });
const EMPTY = Buffer.alloc(0);

function setup(sets: readonly string[] = [], n = 60): { cfg: Config; s: IndexToolSettings; store: FakeHBase; events: Ev[] } {
  const cfg = configOf(sets);
  const store = new FakeHBase();
  const events = makeEvents(n);
  ingest(store, cfg, events, cfg.index.tags);
  return { cfg, s: toolSettings(cfg), store, events };
}

function putIndexCell(store: FakeHBase, key: Buffer, metric: string, ts: number): void {
  void store.put('i', [{ row: key, cells: [{ column: column('d', metric), value: EMPTY, timestamp: ts }] }]);
}

void test('an index written by the ingest verifies consistent, with every row of both tables checked', async () => {
  const { cfg, s, store, events } = setup();
  const r = await verifyIndex(store, s, VOPTS);
  assert.equal(r.consistent, true);
  assert.deepEqual(r.counts, {
    dataRowsChecked: distinctRows(events),
    indexRowsChecked: expectedIndex(cfg, events, ['site', 'rack']).size,
    dangling: 0,
    missing: 0,
    malformed: 0,
  });
  const siteOnly = await verifyIndex(store, toolSettings(cfg, { tag: 'site' }), VOPTS);
  assert.equal(siteOnly.counts.indexRowsChecked, expectedIndex(cfg, events, ['site']).size);
});

void test('verify finds each kind of inconsistency; rebuild repairs them; a second rebuild changes nothing', async () => {
  const { cfg, s, store, events } = setup();
  const tagged = events.filter((e) => e.tags !== undefined);
  const [a, b, c] = [tagged[0], tagged[1], tagged[2]];
  assert.ok(a !== undefined && b !== undefined && c !== undefined);
  // 1. dangling: an index row for an event that does not exist
  const ghost = { indexName: 'site', value: 's9', ts: BASE_TS - 5000, id: 'ghost' };
  putIndexCell(store, encodeIndexKey(ghost, 4), 'temp', ghost.ts);
  // 2. missing: one index row deleted
  const deleted = { indexName: 'site', value: a.tags?.['site'] ?? '', ts: a.ts, id: a.id };
  await store.deleteRow('i', encodeIndexKey(deleted, 4));
  // 3. dangling (metrics_missing): an index row names a metric its data row lacks
  putIndexCell(store, encodeIndexKey({ indexName: 'rack', value: b.tags?.['rack'] ?? '', ts: b.ts, id: b.id }, 4), 'pressure', b.ts);
  // 4. the data row's tag changed: the old index row dangles (tag_mismatch), the new one is missing
  const newTags = { ...c.tags, site: 'moved' };
  void store.put('d', [{ row: encodeDataKey(c, 4), cells: [{ column: column('d', TAGS_QUALIFIER), value: encodeTags(newTags), timestamp: c.ts }] }]);

  const before = await verifyIndex(store, s, VOPTS);
  assert.equal(before.consistent, false);
  assert.equal(before.counts.dangling, 3);
  assert.equal(before.counts.missing, 2);
  const reasons = (xs: readonly { reason: string; id: string }[]): string[] => xs.map((x) => `${x.reason}:${x.id}`).sort();
  assert.deepEqual(reasons(before.samples.dangling), [`metrics_missing:${b.id}`, `tag_mismatch:${c.id}`, 'no_data_row:ghost'].sort());
  assert.deepEqual(reasons(before.samples.missing), [`no_index_row:${a.id}`, `no_index_row:${c.id}`].sort());
  const g = before.samples.dangling.find((x) => x.id === 'ghost');
  assert.deepEqual(g, {
    tag: 'site',
    value: 's9',
    id: 'ghost',
    ts: ghost.ts,
    iso: new Date(ghost.ts).toISOString(),
    reason: 'no_data_row',
    metrics: ['temp'],
    key: encodeIndexKey(ghost, 4).toString('hex'),
  });
  assert.equal(before.samples.dangling.find((x) => x.reason === 'tag_mismatch')?.dataValue, 'moved');

  const r1 = await rebuildIndex(store, s, ropts());
  assert.equal(r1.status, 'finished');
  assert.equal(r1.indexRowsWritten, 2);
  assert.equal(r1.danglingDeleted, 3);
  const finalEvents = events.map((e) => (e.id === c.id && e.ts === c.ts ? { ...e, tags: newTags } : e));
  assert.deepEqual(store.snapshot('i'), expectedIndex(cfg, finalEvents, ['site', 'rack']));
  assert.equal((await verifyIndex(store, s, VOPTS)).consistent, true);

  const [puts, deletes] = [store.count('put'), store.count('deleteRow')];
  const r2 = await rebuildIndex(store, s, ropts());
  assert.deepEqual([r2.indexRowsWritten, r2.danglingDeleted, r2.danglingKept], [0, 0, 0]);
  assert.equal(store.count('put'), puts, 'no writes');
  assert.equal(store.count('deleteRow'), deletes, 'no deletes');
});

void test('dangling rows of recent events are kept within the grace period', async () => {
  const { s, store } = setup([], 10);
  const now = BASE_TS + 3_600_000;
  putIndexCell(store, encodeIndexKey({ indexName: 'site', value: 'x', ts: now - 1000, id: 'fresh' }, 4), 'temp', now - 1000);
  putIndexCell(store, encodeIndexKey({ indexName: 'site', value: 'x', ts: now - 120_000, id: 'old' }, 4), 'temp', now - 120_000);
  const r = await rebuildIndex(store, s, ropts({ graceMs: 60_000, now: () => now }));
  assert.deepEqual([r.danglingDeleted, r.danglingKept], [1, 1]);
  const left = await verifyIndex(store, s, VOPTS);
  assert.deepEqual(
    left.samples.dangling.map((d) => d.id),
    ['fresh'],
  );
});

void test('--from/--to limit both directions to events in [from, to)', async () => {
  const { cfg, store, events } = setup();
  const from = BASE_TS + 10_000;
  const to = BASE_TS + 30_000;
  const inWindow = events.filter((e) => e.ts >= from && e.ts < to);
  const outside = events.find((e) => e.ts >= to && e.tags !== undefined);
  assert.ok(outside !== undefined);
  await store.deleteRow('i', encodeIndexKey({ indexName: 'site', value: outside.tags?.['site'] ?? '', ts: outside.ts, id: outside.id }, 4));
  const s = toolSettings(cfg, { from, to });
  const r = await verifyIndex(store, s, VOPTS);
  assert.equal(r.counts.dataRowsChecked, distinctRows(inWindow));
  assert.equal(r.counts.indexRowsChecked, expectedIndex(cfg, inWindow, ['site', 'rack']).size);
  assert.equal(r.consistent, true, 'the problem outside the window is not seen');
  assert.equal((await verifyIndex(store, toolSettings(cfg), VOPTS)).counts.missing, 1);
});

void test('backfilling a newly indexed tag: rebuild --tag writes exactly the rows ingest would have', async () => {
  const cfg = configOf();
  const store = new FakeHBase();
  const events = makeEvents(80);
  ingest(store, cfg, events, ['site']);
  const rack = toolSettings(cfg, { tag: 'rack' });
  const v = await verifyIndex(store, rack, VOPTS);
  assert.equal(v.counts.missing, expectedIndex(cfg, events, ['rack']).size);
  assert.equal(v.counts.indexRowsChecked, 0);
  const r = await rebuildIndex(store, rack, ropts());
  assert.equal(r.indexRowsWritten, expectedIndex(cfg, events, ['rack']).size);
  assert.deepEqual(store.snapshot('i'), expectedIndex(cfg, events, ['site', 'rack']));
  assert.equal((await verifyIndex(store, toolSettings(cfg), VOPTS)).consistent, true);
});

void test('an interrupted rebuild resumes from its checkpoint to the same result, and a finished one says so', async () => {
  const cfg = configOf();
  const events = makeEvents(120);
  const full = new FakeHBase();
  ingest(full, cfg, events, ['site']);
  const fullReport = await rebuildIndex(full, toolSettings(cfg), ropts({ concurrency: 1 }));

  const store = new FakeHBase();
  ingest(store, cfg, events, ['site']);
  const cp = new MemoryCheckpoints();
  const ac = new AbortController();
  let chunks = 0;
  const stopAfter3 = (rows: number): Promise<void> => {
    if (rows > 0 && ++chunks === 3) ac.abort();
    return Promise.resolve();
  };
  const first = await rebuildIndex(store, toolSettings(cfg), ropts({ concurrency: 1, checkpoint: cp, signal: ac.signal, throttle: { take: stopAfter3 } }));
  assert.equal(first.status, 'interrupted');
  assert.ok(first.found.dataRowsChecked > 14 && first.found.dataRowsChecked <= 3 * 7, `three chunks of at most 7 rows, got ${first.found.dataRowsChecked}`);
  const saved = cp.saved;
  assert.ok(saved !== null && saved.finishedAt === null);
  const positions = Object.values(saved.units);
  assert.ok(positions.length > 0 && positions.some((p) => p.after !== null));
  assert.notDeepEqual(store.snapshot('i'), full.snapshot('i'), 'only part of the work was done');

  const second = await rebuildIndex(store, toolSettings(cfg), ropts({ concurrency: 2, checkpoint: cp }));
  assert.equal(second.status, 'finished');
  assert.equal(first.found.dataRowsChecked + second.found.dataRowsChecked, distinctRows(events), 'no data row scanned twice');
  assert.equal(first.indexRowsWritten + second.indexRowsWritten, fullReport.indexRowsWritten);
  assert.deepEqual(store.snapshot('i'), full.snapshot('i'));
  assert.ok(cp.saved?.finishedAt != null);

  const scans = store.count('scan');
  const third = await rebuildIndex(store, toolSettings(cfg), ropts({ checkpoint: cp }));
  assert.equal(third.status, 'already_finished');
  assert.equal(store.count('scan'), scans, 'nothing scanned');

  await assert.rejects(
    rebuildIndex(store, toolSettings(cfg, { tag: 'rack' }), ropts({ checkpoint: cp })),
    /belongs to another run \(tags is \["site","rack"\] in the checkpoint but \["rack"\] now\)/,
  );
});

void test('printable data keys and value-salted index: verify and rebuild work the same', async () => {
  const { cfg, s, store, events } = setup(['keys.format=printable', 'index.saltMode=value']);
  assert.equal((await verifyIndex(store, s, VOPTS)).consistent, true);
  const e = events.find((x) => x.tags !== undefined);
  assert.ok(e !== undefined);
  await store.deleteRow('i', encodeIndexKey({ indexName: 'rack', value: e.tags?.['rack'] ?? '', ts: e.ts, id: e.id }, 4, 'value'));
  const v = await verifyIndex(store, s, VOPTS);
  assert.deepEqual([v.counts.missing, v.counts.dangling], [1, 0]);
  await rebuildIndex(store, s, ropts());
  assert.deepEqual(store.snapshot('i'), expectedIndex(cfg, events, ['site', 'rack']));
});

void test('malformed rows are counted and sampled, not judged and not deleted', async () => {
  const { s, store } = setup([], 10);
  void store.put('d', [{ row: Buffer.from([1, 0x41]), cells: [{ column: column('d', 'temp'), value: Buffer.alloc(8), timestamp: BASE_TS }] }]);
  const bad = encodeIndexKey({ indexName: 'site', value: 'v', ts: BASE_TS, id: 'x' }, 4);
  bad[0] = ((bad[0] ?? 0) + 1) % 4;
  putIndexCell(store, bad, 'temp', BASE_TS);
  const v = await verifyIndex(store, s, VOPTS);
  assert.equal(v.counts.malformed, 2);
  assert.equal(v.consistent, true);
  assert.deepEqual(v.samples.malformed.map((m) => m.table).sort(), ['d', 'i']);
  const r = await rebuildIndex(store, s, ropts());
  assert.equal(r.danglingDeleted, 0);
  assert.ok(store.snapshot('i').has(bad.toString('hex')));
});
