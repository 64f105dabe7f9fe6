import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import {
  CheckpointError,
  CheckpointWriter,
  decodeCheckpoint,
  encodeCheckpoint,
  fileCheckpointStore,
  identityDiff,
  memoryCheckpointStore,
  type CheckpointFormat,
} from '../../../src/toolkit/checkpoint-store.ts';

const schema = z.object({ version: z.literal(1), position: z.string().regex(/^[0-9a-f]*$/, 'hex'), count: z.number().int() }).strict();
type State = z.infer<typeof schema>;
const PLAIN: CheckpointFormat<State> = { schema };
const NAMED: CheckpointFormat<State> = { schema, label: (p) => `--checkpoint ${p}`, kind: 'a doctor checkpoint' };

const state: State = { version: 1, position: '0a0b', count: 3 };

function refused(code: string, message: RegExp): (e: unknown) => boolean {
  return (e) => e instanceof CheckpointError && e.code === code && message.test(e.message);
}

void test('encode/decode round-trip; a damaged checkpoint names the file and every field at fault', () => {
  assert.deepEqual(decodeCheckpoint(encodeCheckpoint(state), 'cp.json', PLAIN), state);
  assert.equal(new CheckpointError('CHECKPOINT_INVALID', 'x').retriable, false);
  assert.ok(encodeCheckpoint(state).endsWith('}\n'));
  assert.throws(() => decodeCheckpoint('{', 'cp.json', PLAIN), refused('CHECKPOINT_NOT_JSON', /^checkpoint cp\.json is not JSON$/));
  assert.throws(
    () => decodeCheckpoint('{', 'cp.json', NAMED),
    refused('CHECKPOINT_NOT_JSON', /^--checkpoint cp\.json is not JSON \(not a doctor checkpoint\?\)$/),
  );
  const bad = JSON.stringify({ version: 2, position: 'xyz', count: 3 });
  assert.throws(() => decodeCheckpoint(bad, 'cp.json', PLAIN), refused('CHECKPOINT_INVALID', /^checkpoint cp\.json: version: .+; position: hex$/));
  assert.throws(
    () => decodeCheckpoint(bad, 'cp.json', NAMED),
    refused('CHECKPOINT_INVALID', /^--checkpoint cp\.json is not a doctor checkpoint: version: .+; position: hex$/),
  );
  assert.throws(
    () => decodeCheckpoint(JSON.stringify({ ...state, extra: 1 }), 'cp.json', PLAIN),
    refused('CHECKPOINT_INVALID', /^checkpoint cp\.json: \(root\): /),
  );
});

void test('the file store: a missing file is a fresh run; saves replace the file atomically; an unreadable file is named', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'tsi-toolkit-cp-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'cp.json');
  const store = fileCheckpointStore(path, NAMED);
  assert.equal(store.where, path);
  assert.equal(await store.load(), undefined);
  await store.save(state);
  await store.save({ ...state, count: 4 });
  assert.deepEqual(await store.load(), { ...state, count: 4 });
  assert.deepEqual(await readdir(dir), ['cp.json'], 'no temp file left behind');
  assert.deepEqual(JSON.parse(await readFile(path, 'utf8')), { ...state, count: 4 });
  await writeFile(path, '{"hello":1}');
  await assert.rejects(store.load(), refused('CHECKPOINT_INVALID', /is not a doctor checkpoint: /));
  await assert.rejects(
    fileCheckpointStore(dir, PLAIN).load(),
    refused('CHECKPOINT_UNREADABLE', new RegExp(`^checkpoint ${dir.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: `)),
  );
});

void test('the memory store keeps the last state saved and counts saves', async () => {
  const mem = memoryCheckpointStore<State>();
  assert.equal(mem.where, 'memory');
  assert.equal(await mem.load(), undefined);
  await mem.save(state);
  await mem.save({ ...state, count: 9 });
  assert.deepEqual(await mem.load(), { ...state, count: 9 });
  assert.equal(mem.saves, 2);
  assert.deepEqual(await memoryCheckpointStore(state).load(), state);
});

void test('identityDiff names the first field that differs, by JSON value, with absent fields as undefined', () => {
  const a = { table: 't', tags: ['x'], from: null };
  assert.equal(identityDiff(a, { ...a }), undefined);
  assert.equal(identityDiff(a, { from: null, tags: ['x'], table: 't' }), undefined, 'key order does not matter');
  assert.deepEqual(
    identityDiff(a, { ...a, tags: ['x', 'y'], from: 5 }),
    { field: 'tags', saved: '["x"]', now: '["x","y"]' },
    "the checkpoint's field order decides which is first",
  );
  assert.deepEqual(identityDiff(a, { ...a, extra: 1 }), { field: 'extra', saved: undefined, now: '1' });
  assert.deepEqual(identityDiff({ ...a, gone: true }, a), { field: 'gone', saved: 'true', now: undefined });
});

void test('the writer spaces writes out, always writes a forced one, and writes one at a time in call order', async () => {
  const written: number[] = [];
  let inFlight = 0;
  let peak = 0;
  const store = {
    where: 'slow',
    load: () => Promise.resolve(undefined),
    async save(s: State) {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setImmediate(r));
      written.push(s.count);
      inFlight--;
    },
  };
  const w = new CheckpointWriter<State>(store, 1000);
  await w.write({ ...state, count: 1 }, 0);
  await w.write({ ...state, count: 2 }, 500);
  await w.write({ ...state, count: 3 }, 999, true);
  await w.write({ ...state, count: 4 }, 1500);
  await w.write({ ...state, count: 5 }, 2000);
  assert.deepEqual(written, [1, 3, 5], 'the first write goes at once; the next ones every 1000 ms from the last one, or forced');
  await Promise.all([6, 7, 8].map((count) => w.write({ ...state, count }, 5000, true)));
  assert.deepEqual(written.slice(3), [6, 7, 8]);
  assert.equal(peak, 1, 'never two writes at once');
  assert.throws(() => new CheckpointWriter(store, -1), /everyMs/);
});
