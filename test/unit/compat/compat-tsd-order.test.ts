// scripts/lib/compat/tsd-order.ts: 2.4.1's scan order of a query's series (salt bucket, then tsuid).
// The hash and bucket vectors come from java.util.Arrays.hashCode of JDK 17 and RowKey's
// `hash % buckets`, made positive (run by hand with `java H.java <hex>…`).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareScanOrder, javaArraysHashCode, saltBucket, seriesTsuidKey, tsdSeriesOrder, tsuidsOfAnswer } from '../../../scripts/lib/compat/tsd-order.ts';
import type { RawSeries } from '../../../src/series-language/types.ts';

const JAVA: readonly (readonly [string, number, number])[] = [
  // hex, Arrays.hashCode, |hash % 4|
  ['', 1, 1],
  ['00', 31, 3],
  ['0102', 994, 2],
  ['FF', 30, 2], // a signed byte: −1
  ['68656C6C6F', 127791473, 1], // "hello": 31^5 + "hello".hashCode()
  ['000001000001000001000002000002', -112887424, 0],
  ['000001000001000001000002000003', -112887423, 3],
  ['00000100000100000B00000200000F', 172214807, 3],
  ['000003000001000006000002000009', -557142322, 2],
  ['FFFFFFFFFFFFFFFFFFFFFFFFFFFFFF', -207185218, 2],
];

test("javaArraysHashCode and saltBucket: Java's values", () => {
  for (const [hex, hash, bucket] of JAVA) {
    assert.equal(javaArraysHashCode(Buffer.from(hex, 'hex')), hash, hex);
    if (hex.length === 30) assert.equal(saltBucket(hex, 4), bucket, hex);
  }
  assert.equal(saltBucket('000001000001000001000002000003', 0), 0, 'unsalted: one bucket');
});

test('compareScanOrder: salt bucket first, then the tsuid bytes unsigned', () => {
  const a = '000001000001000001000002000002'; // bucket 0
  const b = '000001000001000001000002000003'; // bucket 3
  const c = '00000100000100000B00000200000F'; // bucket 3, bytes after b
  assert.deepEqual(
    [c, b, a].sort((x, y) => compareScanOrder(x, y, 4)),
    [a, b, c],
  );
  assert.deepEqual(
    [c, b, a].sort((x, y) => compareScanOrder(x, y, 0)),
    [a, b, c],
    'unsalted: the bytes alone',
  );
  assert.ok(compareScanOrder('0000010000010000FF', '000001000001000001', 0) > 0, 'unsigned bytes: FF after 01');
});

test('tsuidsOfAnswer / tsdSeriesOrder: series keyed by metric and tags; an unknown series throws', () => {
  const body = [
    { metric: 'temp', tags: { site: 'north', id: 'n01' }, tsuids: ['000001000001000001000002000003'] },
    { metric: 'temp', tags: { id: 'n02', site: 'north' }, tsuids: ['000001000001000001000002000002'] },
  ];
  const m = tsuidsOfAnswer(body);
  assert.equal(m.get(seriesTsuidKey('temp', { id: 'n01', site: 'north' })), '000001000001000001000002000003');
  const s = (id: string): RawSeries => ({ kind: 'raw', tags: { id, site: 'north' }, ts: [], values: [] });
  const order = tsdSeriesOrder(m, 'temp', 4);
  // n02's bucket 0 comes before n01's bucket 3, though n01's tag value UID is the larger
  assert.deepEqual(
    [s('n01'), s('n02')].sort(order).map((x) => x.tags['id']),
    ['n02', 'n01'],
  );
  assert.throws(() => [s('n01'), s('n09')].sort(order), /no tsuid for temp/);
  assert.throws(() => tsdSeriesOrder(m, 'hum', 4)(s('n01'), s('n02')), /no tsuid for hum/);
  assert.throws(() => tsuidsOfAnswer([{ metric: 'temp', tags: {}, tsuids: ['a', 'b'] }]), /one tsuid/);
  assert.throws(() => tsuidsOfAnswer({}), /not an array/);
});
