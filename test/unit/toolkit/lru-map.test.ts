// The LRU map (src/toolkit/lru-map.ts): use order, least recently used first; get and set move an entry
// to the newest end, peek does not; shift takes the oldest; entries may be deleted while iterated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LruMap } from '../../../src/toolkit/lru-map.ts';

const keys = (m: LruMap<string, number>): string[] => [...m.entries()].map(([k]) => k);

void test('entries in use order: get and set move to the newest end, peek and has do not', () => {
  const m = new LruMap<string, number>();
  m.set('a', 1).set('b', 2).set('c', 3);
  assert.deepEqual(keys(m), ['a', 'b', 'c']);
  assert.equal(m.get('a'), 1);
  assert.deepEqual(keys(m), ['b', 'c', 'a']);
  assert.equal(m.peek('b'), 2);
  assert.equal(m.has('b'), true);
  assert.deepEqual(keys(m), ['b', 'c', 'a']);
  m.set('c', 30);
  assert.deepEqual(
    [...m.entries()],
    [
      ['b', 2],
      ['a', 1],
      ['c', 30],
    ],
  );
  assert.deepEqual([...m.values()], [2, 1, 30]);
  assert.equal(m.get('missing'), undefined);
  assert.equal(m.size, 3);
});

void test('shift takes the least recently used; delete unlinks anywhere; clear empties', () => {
  const m = new LruMap<string, number>();
  for (const [i, k] of ['a', 'b', 'c', 'd'].entries()) m.set(k, i);
  assert.deepEqual(m.oldest(), ['a', 0]);
  assert.deepEqual(m.shift(), ['a', 0]);
  assert.equal(m.delete('c'), true);
  assert.equal(m.delete('c'), false);
  assert.deepEqual(keys(m), ['b', 'd']);
  assert.deepEqual(m.shift(), ['b', 1]);
  assert.deepEqual(m.shift(), ['d', 3]);
  assert.equal(m.shift(), undefined);
  assert.equal(m.size, 0);
  m.set('x', 1);
  assert.deepEqual(keys(m), ['x'], 'head and tail rebuilt after emptying');
  m.clear();
  assert.equal(m.size, 0);
  assert.equal(m.oldest(), undefined);
});

void test('deleting the entry just given while iterating goes on with the next', () => {
  const m = new LruMap<string, number>();
  for (let i = 0; i < 6; i++) m.set(`k${i}`, i);
  const seen: string[] = [];
  for (const [k, v] of m.entries()) {
    seen.push(k);
    if (v % 2 === 0) m.delete(k);
  }
  assert.deepEqual(seen, ['k0', 'k1', 'k2', 'k3', 'k4', 'k5']);
  assert.deepEqual(keys(m), ['k1', 'k3', 'k5']);
});

void test('a bounded use as a cache: the newest n kept, touched ones survive', () => {
  const m = new LruMap<number, number>();
  for (let i = 0; i < 1000; i++) {
    m.set(i, i);
    if (i % 10 === 0) m.get(0); // 0 stays in use
    while (m.size > 100) m.shift();
  }
  assert.equal(m.size, 100);
  assert.equal(m.has(0), true);
  assert.equal(m.has(1), false);
  assert.equal(m.has(999), true);
});
