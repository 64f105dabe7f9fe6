import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  MAX_TS,
  encodeDataKey,
  encodeIndexKey,
  encodePrintableDataKey,
  idScanRange,
  idTimeRange,
  indexSaltOf,
  saltOf,
  spreadOffset,
  type ScanRange,
  type SpreadEntry,
} from '../../../src/keys/index.ts';
import { fixedSpread, testKeyspace } from '../../support/keyspace.ts';

const B = 16;
const T0 = 1_732_262_400_000;
const HOT: SpreadEntry = {
  epochs: [
    { since: T0 + 10_000, k: 4 },
    { since: T0 + 20_000, k: 16 },
  ],
  fence: null,
};
const inRange = (k: Buffer, r: ScanRange): boolean => Buffer.compare(k, r.startRow) >= 0 && (r.stopRow.length === 0 || Buffer.compare(k, r.stopRow) < 0);

void test('an id without a registry entry keeps the plain key, ranges and index keys, in both formats', () => {
  for (const format of ['binary', 'printable'] as const) {
    const ks = testKeyspace(B, format);
    const enc = format === 'binary' ? encodeDataKey : encodePrintableDataKey;
    for (const id of ['sensor-0042', 'dev-1', '设备-7']) {
      assert.deepEqual(ks.dataKey(id, T0), enc({ id, ts: T0 }, B));
      assert.deepEqual(
        ks.dataRanges(id).map((r) => r.range),
        [idScanRange(id, B, format)],
      );
      assert.deepEqual(
        ks.dataRanges(id, T0, T0 + 5).map((r) => r.range),
        [idTimeRange(id, { fromTs: T0, toTs: T0 + 5 }, B, format)],
      );
      const d = ks.decodeDataKey(ks.dataKey(id, T0));
      assert.deepEqual([d.id, d.ts, d.offset, d.salt], [id, T0, 0, saltOf(id, B)]);
    }
  }
  const ks = testKeyspace(B);
  const entry = { indexName: 'site', value: 'sh-01', ts: T0, id: 'sensor-0042' };
  assert.deepEqual(ks.indexKey(entry), encodeIndexKey(entry, B, 'entry'));
});

void test('a spread id: salt = (salt(id) + j) mod B with j from the epoch containing ts; decode recovers j', () => {
  const ks = testKeyspace(B, 'binary', 'entry', fixedSpread({ hot: HOT }));
  const base = saltOf('hot', B);
  assert.equal(ks.offsetOf('hot', T0), 0, 'before the first epoch: the plain key');
  assert.deepEqual(ks.dataKey('hot', T0), encodeDataKey({ id: 'hot', ts: T0 }, B));
  for (const ts of [T0 + 10_000, T0 + 15_000, T0 + 20_000, T0 + 99_999]) {
    const k = ts < T0 + 20_000 ? 4 : 16;
    const j = spreadOffset(ts, k);
    assert.equal(ks.offsetOf('hot', ts), j);
    const key = ks.dataKey('hot', ts);
    assert.equal(key[0], (base + j) % B);
    assert.deepEqual(key.subarray(1), encodeDataKey({ id: 'hot', ts }, B).subarray(1), 'only the salt differs');
    const d = ks.decodeDataKey(key);
    assert.equal(d.offset, j);
    assert.equal(ks.fits(d), true);
  }
  const moved = ks.dataKey('hot', T0 + 15_000, (ks.offsetOf('hot', T0 + 15_000) + 1) % 4);
  assert.equal(ks.fits(ks.decodeDataKey(moved)), false, 'a row in a bucket its epoch does not give is misplaced');
});

void test('ranges of a spread id: one per bucket its epochs use, each from the epoch that starts using it', () => {
  const ks = testKeyspace(B, 'binary', 'entry', fixedSpread({ hot: HOT }));
  assert.deepEqual(
    ks.dataRanges('hot', T0, T0 + 9_999).map((r) => r.offset),
    [0],
    'before the epochs: one bucket',
  );
  assert.deepEqual(
    ks.dataRanges('hot', T0, T0 + 19_999).map((r) => r.offset),
    [0, 1, 2, 3],
  );
  assert.deepEqual(
    ks.dataRanges('hot').map((r) => r.offset),
    Array.from({ length: 16 }, (_, j) => j),
  );
  assert.deepEqual(
    ks.idBuckets('hot'),
    Array.from({ length: 16 }, (_, j) => (saltOf('hot', B) + j) % B),
  );
  // Every event of the id in [from, to] is in exactly one range, the one of its bucket; none outside.
  for (const [from, to] of [
    [T0, T0 + 30_000],
    [T0 + 12_000, T0 + 25_000],
    [T0 + 20_000, MAX_TS],
    [0, MAX_TS],
  ] as const) {
    const ranges = ks.dataRanges('hot', from, to);
    for (let ts = T0 - 500; ts < T0 + 30_500; ts += 37) {
      const key = ks.dataKey('hot', ts);
      const hits = ranges.filter((r) => inRange(key, r.range));
      assert.equal(hits.length, ts >= from && ts <= to ? 1 : 0, `ts ${ts} in [${from}, ${to}]`);
      if (hits.length === 1) assert.equal(hits[0]?.bucket, key[0]);
    }
  }
});

void test('index keys of a spread id carry its j; an index hit recovers j and its data key, without the registry', () => {
  const spread = testKeyspace(B, 'binary', 'entry', fixedSpread({ hot: HOT }));
  const blind = testKeyspace(B); // knows no spread ids
  for (const format of ['binary', 'printable'] as const) {
    const ks = testKeyspace(B, format, 'entry', fixedSpread({ hot: HOT }));
    const ts = T0 + 25_000;
    const j = ks.offsetOf('hot', ts);
    const entry = { indexName: 'site', value: 'sh-01', ts, id: 'hot' };
    const key = ks.indexKey(entry, j);
    assert.equal(key[0], (indexSaltOf(entry, B, 'entry') + j) % B);
    const hit = testKeyspace(B, format).decodeIndexKey(key);
    assert.equal(hit.offset, j);
    assert.deepEqual(hit.dataKey, ks.dataKey('hot', ts), `${format}: the hit points at the event's data row`);
  }
  assert.equal(blind.decodeIndexKey(spread.indexKey({ indexName: 'a', value: 'b', ts: T0, id: 'x' })).offset, 0);
});

void test('by-tag ranges: B buckets in entry mode; value mode scans one bucket until an id is spread', () => {
  assert.equal(testKeyspace(B).indexRanges('site', 'x').length, B);
  assert.equal(testKeyspace(B, 'binary', 'value').indexRanges('site', 'x').length, 1);
  assert.equal(testKeyspace(B, 'binary', 'value', fixedSpread({ hot: HOT })).indexRanges('site', 'x').length, B);
});

void test('rollup and marker keys stay in the base bucket of a spread id (one summary row per window)', () => {
  const ks = testKeyspace(B, 'binary', 'entry', fixedSpread({ hot: HOT }));
  const parts = { id: 'hot', windowSec: 3600, windowStart: 1_732_262_400_000 };
  assert.equal(ks.rollupKey(parts)[0], saltOf('hot', B));
  assert.equal(ks.markerKey(parts)[0], saltOf('hot', B));
  assert.deepEqual(ks.decodeRollupKey(ks.rollupKey(parts)), { ...parts, salt: saltOf('hot', B) });
});

void test('spread ids before a time: only those whose first epoch starts earlier', () => {
  const ks = testKeyspace(B, 'binary', 'entry', fixedSpread({ hot: HOT, later: { epochs: [{ since: T0 + 50_000, k: 2 }], fence: null } }));
  assert.deepEqual(ks.spreadIdsBefore(T0 + 10_000), []);
  assert.deepEqual(ks.spreadIdsBefore(T0 + 10_001), ['hot']);
  assert.deepEqual(ks.spreadIdsBefore(MAX_TS), ['hot', 'later']);
});

void test('dataKeyTs: the event ts read from the end of a data key, in both formats, as decodeDataKey reads it', () => {
  for (const format of ['binary', 'printable'] as const) {
    const ks = testKeyspace(16, format);
    for (const ts of [0, 1, 1_732_262_400_000, 2 ** 53 - 1]) {
      const key = ks.dataKey('sensor-\u00e9-42', ts);
      assert.equal(ks.dataKeyTs(key), ts, `${format} ${ts}`);
      assert.equal(ks.dataKeyTs(key), ks.decodeDataKey(key).ts);
    }
  }
});
