import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { KeyError, MAX_TS, decodeIndexKey, encodeIndexKey, indexSaltOf, indexScanRanges, type ScanRange } from '../../../src/keys/index.ts';

const md5Mod = (text: string, buckets: number): number => createHash('md5').update(Buffer.from(text, 'utf8')).digest().readUInt32BE(0) % buckets;
const inRange = (key: Buffer, range: ScanRange): boolean =>
  Buffer.compare(key, range.startRow) >= 0 && (range.stopRow.length === 0 || Buffer.compare(key, range.stopRow) < 0);
const entry = { indexName: 'site', value: 'sh-01', ts: 1732262400000, id: 'sensor-0042' };

void test("encodes salt' ‖ indexName ‖ 0x00 ‖ value ‖ 0x00 ‖ reverse ts ‖ id", () => {
  const key = encodeIndexKey(entry, 16);
  const salt = md5Mod('site\u0000sh-01\u0000sensor-0042', 16);
  assert.equal(
    key.toString('hex'),
    Buffer.from([salt]).toString('hex') +
      Buffer.from('site\u0000sh-01\u0000').toString('hex') +
      '7ffffe6cad1d6fff' +
      Buffer.from('sensor-0042').toString('hex'),
  );
  assert.equal(indexSaltOf(entry, 16), salt);
  assert.equal(indexSaltOf(entry, 16, 'value'), md5Mod('site\u0000sh-01', 16));
  assert.equal(encodeIndexKey(entry, 16, 'value')[0], md5Mod('site\u0000sh-01', 16));
});

void test('round-trips, including empty values, unicode and ids containing separators-like bytes', () => {
  const entries = [
    entry,
    { indexName: 'i', value: '', ts: 0, id: 'a' },
    { indexName: '站点', value: '上海|01', ts: MAX_TS, id: '设备-7' },
    { indexName: 'k', value: 'v', ts: 255, id: 'x\u0001\u00ffy' },
  ];
  for (const e of entries) {
    for (const mode of ['entry', 'value'] as const) {
      const key = encodeIndexKey(e, 16, mode);
      assert.deepEqual(decodeIndexKey(key, 16, mode), { salt: key[0], ...e });
    }
  }
});

void test('"value" mode puts one value in one bucket; "entry" mode spreads it', () => {
  const byValue = new Set<number>();
  const byEntry = new Set<number>();
  for (let i = 0; i < 200; i++) {
    const e = { ...entry, id: `dev-${i}` };
    byValue.add(encodeIndexKey(e, 16, 'value')[0] ?? -1);
    byEntry.add(encodeIndexKey(e, 16)[0] ?? -1);
  }
  assert.equal(byValue.size, 1);
  assert.equal(byEntry.size, 16);
});

void test('newer entries sort first within a value and bucket', () => {
  const tss = [0, 10, 1732262400000, MAX_TS];
  const keys = tss.map((ts) => encodeIndexKey({ ...entry, ts }, 1)).sort((a, b) => Buffer.compare(a, b));
  assert.deepEqual(
    keys.map((k) => decodeIndexKey(k).ts),
    [...tss].reverse(),
  );
});

void test('rejects NUL and empty parts, bad ts, bad ids, bad mode', () => {
  const code = (c: string) => (e: unknown) => e instanceof KeyError && e.code === c;
  assert.throws(() => encodeIndexKey({ ...entry, indexName: 'a\u0000b' }, 16), /indexName must not contain a NUL/);
  assert.throws(() => encodeIndexKey({ ...entry, value: 'a\u0000b' }, 16), /value must not contain a NUL/);
  assert.throws(() => encodeIndexKey({ ...entry, indexName: '' }, 16), code('INVALID_INDEX_PART'));
  assert.throws(() => encodeIndexKey({ ...entry, value: '\udc00' }, 16), code('INVALID_INDEX_PART'));
  assert.throws(() => encodeIndexKey({ ...entry, id: '' }, 16), code('INVALID_ID'));
  assert.throws(() => encodeIndexKey({ ...entry, id: 'a\u0000' }, 16), code('INVALID_ID'));
  assert.throws(() => encodeIndexKey({ ...entry, ts: -5 }, 16), code('INVALID_TS'));
  assert.throws(() => encodeIndexKey(entry, 300), code('INVALID_BUCKETS'));
  assert.throws(() => indexScanRanges('site', 'a\u0000', 16), /value must not contain a NUL/);
  assert.throws(() => indexScanRanges('site', 'v', 16, { saltMode: 'bogus' as 'entry' }), code('INVALID_SALT_MODE'));
});

void test('decodeIndexKey reports malformed keys', () => {
  const malformed = (e: unknown) => e instanceof KeyError && e.code === 'MALFORMED_KEY';
  const key = encodeIndexKey(entry, 16);
  assert.throws(() => decodeIndexKey(Buffer.alloc(0)), malformed);
  assert.throws(() => decodeIndexKey(Buffer.from([3, 0, 0x61, 0])), /empty indexName/);
  assert.throws(() => decodeIndexKey(Buffer.from([3, 0x61, 0x62])), /missing or empty indexName/);
  assert.throws(() => decodeIndexKey(Buffer.from([3, 0x61, 0, 0x62])), /no 0x00 terminator after the value/);
  assert.throws(() => decodeIndexKey(key.subarray(0, key.length - 11)), /too short/);
  const rev = Buffer.from('7ffffe6cad1d6fff', 'hex');
  assert.throws(() => decodeIndexKey(Buffer.concat([Buffer.from([1, 0x61, 0, 0x62, 0]), rev, Buffer.from([0x61, 0])])), /id contains 0x00/);
  const badName = Buffer.concat([Buffer.from([1, 0xff, 0, 0x62, 0]), rev, Buffer.from('a')]);
  assert.throws(() => decodeIndexKey(badName), { message: `indexName of index key ${badName.toString('hex')} is not valid UTF-8` });
  const badValue = Buffer.concat([Buffer.from([1, 0x61, 0, 0xfe, 0]), rev, Buffer.from('a')]);
  assert.throws(() => decodeIndexKey(badValue), { message: `value of index key ${badValue.toString('hex')} is not valid UTF-8` });
  const badId = Buffer.concat([Buffer.from([1, 0x61, 0, 0x62, 0]), rev, Buffer.from([0xc3])]);
  assert.throws(() => decodeIndexKey(badId), { message: `id of index key ${badId.toString('hex')} is not valid UTF-8` });
  const wrongSalt = Buffer.from(key);
  wrongSalt[0] = ((key[0] ?? 0) + 1) % 16;
  assert.throws(() => decodeIndexKey(wrongSalt, 16), /does not match/);
});

void test('indexScanRanges: one range per bucket in entry mode, covering every entry of the value only', () => {
  const ranges = indexScanRanges('site', 'sh-01', 16);
  assert.equal(ranges.length, 16);
  ranges.forEach((r, salt) => {
    assert.equal(r.startRow[0], salt);
    assert.equal(r.startRow.toString('hex'), Buffer.concat([Buffer.from([salt]), Buffer.from('site\u0000sh-01\u0000')]).toString('hex'));
    assert.equal(r.stopRow.toString('hex'), Buffer.concat([Buffer.from([salt]), Buffer.from('site\u0000sh-01\u0001')]).toString('hex'));
  });
  for (let i = 0; i < 100; i++) {
    const key = encodeIndexKey({ ...entry, id: `dev-${i}`, ts: i }, 16);
    assert.equal(ranges.filter((r) => inRange(key, r)).length, 1);
    const other = encodeIndexKey({ ...entry, value: 'sh-010', id: `dev-${i}`, ts: i }, 16);
    assert.equal(ranges.filter((r) => inRange(other, r)).length, 0);
  }
});

void test('indexScanRanges: single range in value mode, and time bounds are inclusive', () => {
  const [only, ...rest] = indexScanRanges('site', 'sh-01', 16, { saltMode: 'value', bounds: { fromTs: 100, toTs: 200 } });
  assert.equal(rest.length, 0);
  assert.ok(only);
  assert.equal(only.startRow[0], md5Mod('site\u0000sh-01', 16));
  for (const ts of [100, 150, 200]) {
    assert.ok(inRange(encodeIndexKey({ ...entry, ts, id: `d${ts}` }, 16, 'value'), only), `ts ${ts}`);
  }
  for (const ts of [99, 201, 0]) {
    assert.ok(!inRange(encodeIndexKey({ ...entry, ts, id: `d${ts}` }, 16, 'value'), only), `ts ${ts}`);
  }
  const fanned = indexScanRanges('site', 'sh-01', 16, { saltMode: 'entry', bounds: { fromTs: 100, toTs: 200 } });
  assert.equal(fanned.length, 16);
  for (const id of ['a', 'b', 'zzzz', '设备-7']) {
    for (const ts of [100, 200]) {
      assert.equal(fanned.filter((r) => inRange(encodeIndexKey({ ...entry, ts, id }, 16), r)).length, 1);
    }
    assert.equal(fanned.filter((r) => inRange(encodeIndexKey({ ...entry, ts: 201, id }, 16), r)).length, 0);
  }
  assert.throws(() => indexScanRanges('site', 'v', 16, { saltMode: 'entry', bounds: { fromTs: 2, toTs: 1 } }), /fromTs/);
  assert.equal(indexScanRanges('site', 'v', 1).length, 1);
});
