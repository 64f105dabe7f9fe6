import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  REBUILD_CHECKPOINT,
  finished,
  newCheckpoint,
  rebuildCheckpointFile,
  runMismatch,
  runOf,
  withUnit,
  type Checkpoint,
} from '../../../src/index-tools/index-checkpoint.ts';
import { decodeCheckpoint as decodeAny, encodeCheckpoint } from '../../../src/toolkit/checkpoint-store.ts';
import { configOf, toolSettings } from './fixtures.ts';

const decodeCheckpoint = (text: string, source: string): Checkpoint => decodeAny(text, source, REBUILD_CHECKPOINT);
const run = runOf(toolSettings(configOf(), { tag: 'rack', from: 1000, to: 2000 }));

void test('the run records tables, key layout, tags and window', () => {
  assert.deepEqual(run, { dataTable: 'd', indexTable: 'i', buckets: 4, keyFormat: 'binary', saltMode: 'entry', tags: ['rack'], from: 1000, to: 2000 });
  assert.equal(runOf(toolSettings(configOf())).from, null);
});

void test('round-trips through JSON with positions per unit', () => {
  let c = newCheckpoint(run, 0);
  c = withUnit(c, 'data/0', { done: false, after: '00ab' }, 1000);
  c = withUnit(c, 'data/1', { done: true, after: null }, 2000);
  assert.equal(c.updatedAt, new Date(2000).toISOString());
  assert.deepEqual(decodeCheckpoint(encodeCheckpoint(c), 'f'), c);
  const f = finished(c, 3000);
  assert.equal(f.finishedAt, new Date(3000).toISOString());
  assert.deepEqual(decodeCheckpoint(encodeCheckpoint(f), 'f'), f);
});

void test('a damaged checkpoint is refused naming the file and the field', () => {
  assert.throws(() => decodeCheckpoint('{', 'cp.json'), /checkpoint cp\.json is not JSON/);
  const good = JSON.parse(encodeCheckpoint(withUnit(newCheckpoint(run, 0), 'data/0', { done: false, after: '00' }, 0))) as Record<string, unknown>;
  assert.throws(() => decodeCheckpoint(JSON.stringify({ ...good, version: 2 }), 'cp.json'), /cp\.json: version:/);
  assert.throws(
    () => decodeCheckpoint(JSON.stringify({ ...good, units: { 'data/0': { done: false, after: 'xyz' } } }), 'cp.json'),
    /cp\.json: units\.data\/0\.after: a rowkey in lowercase hex/,
  );
  assert.throws(() => decodeCheckpoint(JSON.stringify({ ...good, extra: 1 }), 'cp.json'), /cp\.json: /);
});

void test('a checkpoint of another run says which setting differs', () => {
  assert.equal(runMismatch(run, { ...run }), null);
  assert.equal(runMismatch(run, { ...run, buckets: 16 }), 'buckets is 4 in the checkpoint but 16 now');
  assert.equal(runMismatch(run, { ...run, to: null }), 'to is 2000 in the checkpoint but null now');
  assert.equal(runMismatch(run, { ...run, tags: ['site', 'rack'] }), 'tags is ["rack"] in the checkpoint but ["site","rack"] now');
});

void test('the file store: a missing file is a fresh run; saves replace the file atomically', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'tsi-cp-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'cp.json');
  const store = rebuildCheckpointFile(path);
  assert.equal(await store.load(), undefined);
  const c = withUnit(newCheckpoint(run, 0), 'index/2/rack', { done: false, after: '02ff' }, 5);
  await store.save(c);
  await store.save(finished(c, 9));
  assert.deepEqual(await store.load(), finished(c, 9));
  assert.deepEqual(await readdir(dir), ['cp.json'], 'no temp file left behind');
  assert.equal((JSON.parse(await readFile(path, 'utf8')) as { finishedAt: unknown }).finishedAt, new Date(9).toISOString());
  await writeFile(path, 'garbage');
  await assert.rejects(store.load(), new RegExp(`checkpoint ${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is not JSON`));
});
