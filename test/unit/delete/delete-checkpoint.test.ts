import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  continueRun,
  deleteCheckpointFile,
  finishedCheckpoint,
  mergeSeen,
  newDeleteCheckpoint,
  withUnit,
  type DeleteRun,
} from '../../../src/delete/delete-checkpoint.ts';
import { CheckpointError } from '../../../src/toolkit/checkpoint-store.ts';

const run: DeleteRun = {
  id: 'dev-1',
  from: null,
  to: null,
  dataTable: 'd',
  indexTable: 'i',
  rollupTable: 'r',
  metaTable: 'm',
  buckets: 16,
  keyFormat: 'binary',
  indexTags: ['site'],
};

void test('a checkpoint round-trips through its file with positions and what was seen', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'delete-cp-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const store = deleteCheckpointFile(join(dir, 'cp.json'));
  assert.equal(await store.load(), undefined);
  let c = newDeleteCheckpoint(run, 0);
  c = withUnit(c, { unit: 'data/3', pos: { done: false, after: '03abcd' }, seen: mergeSeen(c.seen, [{ tag: 'site', value: 's1' }], 10, 20) }, 1000);
  c = finishedCheckpoint(c, 2000);
  await store.save(c);
  assert.deepEqual(await store.load(), c);
  assert.equal(continueRun(c, run, store.where, 3000), c);
});

void test('a checkpoint of another id or range is refused, naming the field', () => {
  const c = newDeleteCheckpoint(run, 0);
  assert.throws(
    () => continueRun(c, { ...run, id: 'dev-2' }, 'cp.json', 0),
    (e: unknown) => e instanceof CheckpointError && e.code === 'CHECKPOINT_OTHER_RUN' && /id is "dev-1" there, "dev-2" now/.test(e.message),
  );
  assert.throws(() => continueRun(c, { ...run, from: 1, to: 2 }, 'cp.json', 0), /from is null there, 1 now/);
  assert.deepEqual(continueRun(undefined, run, 'cp.json', 0).units, {});
});

void test('a damaged checkpoint file is an error naming it', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'delete-cp-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'cp.json');
  await writeFile(path, '{"version":1}');
  await assert.rejects(
    deleteCheckpointFile(path).load(),
    (e: unknown) => e instanceof CheckpointError && e.code === 'CHECKPOINT_INVALID' && e.message.includes(`--checkpoint ${path} is not a delete checkpoint`),
  );
});

void test('seen values stay distinct and the ts span widens', () => {
  let s = mergeSeen(
    { values: [], minTs: null, maxTs: null },
    [
      { tag: 'site', value: 'a' },
      { tag: 'site', value: 'a' },
    ],
    50,
    60,
  );
  s = mergeSeen(
    s,
    [
      { tag: 'site', value: 'b' },
      { tag: 'site', value: 'a' },
    ],
    40,
    55,
  );
  s = mergeSeen(s, [], null, null);
  assert.deepEqual(s, {
    values: [
      { tag: 'site', value: 'a' },
      { tag: 'site', value: 'b' },
    ],
    minTs: 40,
    maxTs: 60,
  });
});
