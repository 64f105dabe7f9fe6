import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  KeyError,
  bucketOfKey,
  encodeDataKey,
  encodeIndexKey,
  encodePrintableDataKey,
  planIdPrefixSplits,
  planSaltSplits,
  saltOf,
} from '../../../src/keys/index.ts';

/** Index of the region a key falls in, given ascending split points (region 0 before the first). */
function regionOf(key: Buffer, splits: readonly Buffer[]): number {
  let region = 0;
  for (const split of splits) if (Buffer.compare(key, split) >= 0) region++;
  return region;
}

void test('planSaltSplits yields [0x01] … [B−1]', () => {
  assert.deepEqual(planSaltSplits(1), []);
  assert.deepEqual(planSaltSplits(2), [Buffer.from([1])]);
  const splits = planSaltSplits(16);
  assert.equal(splits.length, 15);
  assert.deepEqual(
    splits.map((s) => s.toString('hex')),
    Array.from({ length: 15 }, (_, i) => (i + 1).toString(16).padStart(2, '0')),
  );
  assert.equal(planSaltSplits(256).length, 255);
  assert.deepEqual(planSaltSplits(256).at(-1), Buffer.from([255]));
  assert.throws(
    () => planSaltSplits(0),
    (e: unknown) => e instanceof KeyError && e.code === 'INVALID_BUCKETS',
  );
  assert.throws(() => planSaltSplits(257), /buckets/);
});

void test('planSaltSplits printable: two lowercase hex chars per boundary', () => {
  assert.deepEqual(
    planSaltSplits(16, 'printable')
      .map((s) => s.toString('latin1'))
      .slice(8, 11),
    ['09', '0a', '0b'],
  );
});

void test('each salt bucket is exactly one region of the planned table', () => {
  const splits = planSaltSplits(16);
  const printable = planSaltSplits(16, 'printable');
  for (let i = 0; i < 300; i++) {
    const id = `dev-${i}`;
    const key = encodeDataKey({ id, ts: i }, 16);
    assert.equal(regionOf(key, splits), saltOf(id, 16));
    assert.equal(bucketOfKey(key), saltOf(id, 16));
    const pkey = encodePrintableDataKey({ id, ts: i }, 16);
    assert.equal(regionOf(pkey, printable), saltOf(id, 16));
    assert.equal(bucketOfKey(pkey, 'printable'), saltOf(id, 16));
  }
  const indexKey = encodeIndexKey({ indexName: 'site', value: 'sh-01', ts: 1, id: 'dev-1' }, 16);
  assert.equal(bucketOfKey(indexKey), indexKey[0]);
});

void test('bucketOfKey rejects keys without a salt', () => {
  assert.throws(
    () => bucketOfKey(Buffer.alloc(0)),
    (e: unknown) => e instanceof KeyError && e.code === 'MALFORMED_KEY',
  );
  assert.throws(() => bucketOfKey(Buffer.from('Zz'), 'printable'), /lowercase hex/);
  assert.throws(() => bucketOfKey(Buffer.from('0'), 'printable'), /lowercase hex/);
});

void test('planIdPrefixSplits divides a sample into near-equal regions', () => {
  const ids = Array.from({ length: 1000 }, (_, i) => `sensor-${String(i).padStart(4, '0')}`);
  const shuffled = [...ids].sort((a, b) => saltOf(a, 256) - saltOf(b, 256) || a.localeCompare(b));
  const splits = planIdPrefixSplits(shuffled, 8);
  assert.equal(splits.length, 7);
  for (let i = 1; i < splits.length; i++) {
    assert.ok(Buffer.compare(splits[i - 1] ?? Buffer.alloc(0), splits[i] ?? Buffer.alloc(0)) < 0);
  }
  const counts = new Array<number>(8).fill(0);
  for (const id of ids) {
    const region = regionOf(encodeDataKey({ id, ts: 1 }, 1).subarray(1), splits);
    counts[region] = (counts[region] ?? 0) + 1;
  }
  assert.deepEqual(counts, [125, 125, 125, 125, 125, 125, 125, 125]);
  assert.equal(splits[0]?.toString('utf8'), 'sensor-0125');
});

void test('planIdPrefixSplits uses the shortest separating prefix and keeps an id in one region', () => {
  const splits = planIdPrefixSplits(['apple', 'apricot', 'banana', 'blueberry'], 2);
  assert.deepEqual(
    splits.map((s) => s.toString('utf8')),
    ['b'],
  );
  const prefixed = planIdPrefixSplits(['dev1', 'dev10', 'dev11', 'dev2'], 2);
  assert.deepEqual(
    prefixed.map((s) => s.toString('utf8')),
    ['dev11'],
  );
  // every row of dev1 (dev1‖0x00‖…) sorts before the dev10 split
  const withPrefix = planIdPrefixSplits(['dev1', 'dev10'], 2);
  assert.deepEqual(
    withPrefix.map((s) => s.toString('utf8')),
    ['dev10'],
  );
  assert.ok(Buffer.compare(Buffer.from('dev1\u0000\u007f', 'latin1'), withPrefix[0] ?? Buffer.alloc(0)) < 0);
});

void test('planIdPrefixSplits sorts by UTF-8 bytes and de-duplicates', () => {
  assert.deepEqual(planIdPrefixSplits([], 4), []);
  assert.deepEqual(planIdPrefixSplits(['a', 'a', 'a'], 4), []);
  assert.deepEqual(
    planIdPrefixSplits(['b', 'a', 'b', 'a'], 2).map((s) => s.toString()),
    ['b'],
  );
  assert.deepEqual(planIdPrefixSplits(['x', 'y', 'z'], 1), []);
  // U+FF5E sorts before U+1F600 in UTF-8 (code point) order but after it in UTF-16 code units
  const splits = planIdPrefixSplits(['😀', '～'], 2);
  assert.deepEqual(splits, [Buffer.from([0xf0])]);
  assert.throws(
    () => planIdPrefixSplits(['a'], 0),
    (e: unknown) => e instanceof KeyError && e.code === 'INVALID_REGIONS',
  );
  assert.throws(() => planIdPrefixSplits(['a'], 2.5), /regions/);
});
