import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as tick } from 'node:timers/promises';
import { createLimiter, limitIterator } from '../../../src/toolkit/limiter.ts';
import { mergeSorted } from '../../../src/scans/merge.ts';
import { prng } from '../../../src/demo/generate.ts';

interface Tracked<T> {
  readonly it: AsyncGenerator<T, void, undefined>;
  readonly pulled: () => number;
  readonly closed: () => boolean;
}

function source<T>(items: readonly T[]): Tracked<T> {
  let pulled = 0;
  let closed = false;
  const it = (async function* gen() {
    try {
      for (const x of items) {
        await tick();
        pulled++;
        yield x;
      }
    } finally {
      closed = true;
    }
  })();
  return { it, pulled: () => pulled, closed: () => closed };
}

async function collect<T>(gen: AsyncGenerator<T, void, undefined>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of gen) out.push(x);
  return out;
}

const num = (a: number, b: number): number => a - b;

test('merges sorted sources into one sorted stream (random data, compared with a sort)', async () => {
  const random = prng(7);
  for (let round = 0; round < 20; round++) {
    const k = 1 + Math.floor(random() * 8);
    const lists = Array.from({ length: k }, () => Array.from({ length: Math.floor(random() * 30) }, () => Math.floor(random() * 100)).sort(num));
    const merged = await collect(
      mergeSorted(
        lists.map((l) => source(l).it),
        num,
      ),
    );
    assert.deepEqual(merged, lists.flat().sort(num));
  }
});

test('stops at the limit, pulls each source only as far as needed, and closes every source', async () => {
  const srcs = [source([1, 4, 7, 10, 13]), source([2, 5, 8, 11]), source([3, 6, 9, 12]), source([])];
  const merged = await collect(
    mergeSorted(
      srcs.map((s) => s.it),
      num,
      5,
    ),
  );
  assert.deepEqual(merged, [1, 2, 3, 4, 5]);
  // the heads, then one refill per item taken except the last (1→4→7, 2→5, 3→6): read lazily
  assert.deepEqual(
    srcs.map((s) => s.pulled()),
    [3, 2, 2, 0],
  );
  assert.ok(
    srcs.every((s) => s.closed()),
    'all sources closed after the limit',
  );
  const none = source([1]);
  assert.deepEqual(await collect(mergeSorted([none.it], num, 0)), []);
  assert.equal(none.pulled(), 0);
});

test('ties come out in source order, and every tied item is kept', async () => {
  type T = { key: number; src: string };
  const by = (a: T, b: T): number => a.key - b.key;
  const a = source<T>([
    { key: 1, src: 'a' },
    { key: 2, src: 'a' },
  ]);
  const b = source<T>([
    { key: 1, src: 'b' },
    { key: 2, src: 'b' },
  ]);
  const c = source<T>([{ key: 1, src: 'c' }]);
  const merged = await collect(mergeSorted([c.it, a.it, b.it], by));
  assert.deepEqual(
    merged.map((x) => `${x.key}${x.src}`),
    ['1c', '1a', '1b', '2a', '2b'],
  );
});

test('a consumer that stops early or a failing source closes the others', async () => {
  const srcs = [source([1, 3, 5]), source([2, 4, 6])];
  for await (const x of mergeSorted(
    srcs.map((s) => s.it),
    num,
  ))
    if (x === 2) break;
  assert.ok(srcs.every((s) => s.closed()));

  const ok = source([1, 2, 3]);
  const failing = (async function* bad() {
    await tick();
    yield 1.5;
    throw new Error('bucket scan failed');
  })();
  await assert.rejects(collect(mergeSorted([ok.it, failing], num)), /bucket scan failed/);
  assert.ok(ok.closed());
});

test('the limiter never runs more than max tasks at once and runs them all', async () => {
  const limiter = createLimiter(3);
  let active = 0;
  let peak = 0;
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      limiter.run(async () => {
        active++;
        peak = Math.max(peak, active);
        await tick();
        await tick();
        active--;
        return i;
      }),
    ),
  );
  assert.deepEqual(
    results,
    Array.from({ length: 20 }, (_, i) => i),
  );
  assert.equal(peak, 3);
  assert.equal(limiter.active, 0);
  await assert.rejects(
    limiter.run(() => Promise.reject(new Error('task failed'))),
    /task failed/,
  );
  assert.equal(limiter.active, 0, 'a failed task releases its slot');
  assert.throws(() => createLimiter(0), RangeError);
});

test('merging through a limiter bounds the sources stepped at once', async () => {
  let active = 0;
  let peak = 0;
  const slow = (items: number[]): AsyncGenerator<number, void, undefined> =>
    (async function* gen() {
      for (const x of items) {
        active++;
        peak = Math.max(peak, active);
        await tick();
        active--;
        yield x;
      }
    })();
  const limiter = createLimiter(2);
  const lists = Array.from({ length: 8 }, (_, i) => [i, i + 8, i + 16]);
  const merged = await collect(
    mergeSorted(
      lists.map((l) => limitIterator(slow(l), limiter)),
      num,
    ),
  );
  assert.deepEqual(merged, lists.flat().sort(num));
  assert.equal(peak, 2);
});

test('distinct: an item equal to the one yielded before it is dropped (the first source wins)', async () => {
  type Row = { readonly pos: number; readonly from: string };
  const a = source<Row>([
    { pos: 1, from: 'a' },
    { pos: 3, from: 'a' },
    { pos: 5, from: 'a' },
  ]);
  const b = source<Row>([
    { pos: 3, from: 'b' },
    { pos: 4, from: 'b' },
    { pos: 5, from: 'b' },
  ]);
  const by = (x: Row, y: Row): number => x.pos - y.pos;
  const merged = await collect(mergeSorted([a.it, b.it], by, { distinct: true }));
  assert.deepEqual(merged, [
    { pos: 1, from: 'a' },
    { pos: 3, from: 'a' },
    { pos: 4, from: 'b' },
    { pos: 5, from: 'a' },
  ]);
  const c = source([1, 1, 2]);
  const d = source([1, 2, 2]);
  assert.deepEqual(await collect(mergeSorted([c.it, d.it], num)), [1, 1, 1, 2, 2, 2], 'without distinct every item comes out');
  const e = source([1, 2, 3]);
  const f = source([1, 2, 3]);
  assert.deepEqual(await collect(mergeSorted([e.it, f.it], num, { distinct: true, limit: 2 })), [1, 2], 'the limit counts distinct items');
});
