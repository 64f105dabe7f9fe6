import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  KeyError,
  MAX_TS,
  decodeAnyKey,
  decodeDataKey,
  decodePrintableDataKey,
  encodeDataKey,
  encodePrintableDataKey,
  idPrefix,
  idScanRange,
  idTimeRange,
  type ScanRange,
} from '../../../src/keys/index.ts';

const VECTORS = [
  { id: 'sensor-0042', ts: 1732262400000, salt: 9, hex: '0973656e736f722d30303432007ffffe6cad1d6fff' },
  { id: 'dev-1', ts: 0, salt: 10, hex: '0a6465762d31007fffffffffffffff' },
  { id: '设备-7', ts: 1700000000123, salt: 0, hex: '00e8aebee5a4872d37007ffffe74301a9784' },
] as const;

const malformed = (error: unknown): boolean => error instanceof KeyError && error.code === 'MALFORMED_KEY';
const inRange = (key: Buffer, range: ScanRange): boolean => Buffer.compare(key, range.startRow) >= 0 && Buffer.compare(key, range.stopRow) < 0;

void test('DESIGN.md test vectors encode exactly (B = 16)', () => {
  for (const v of VECTORS) {
    assert.equal(encodeDataKey({ id: v.id, ts: v.ts }, 16).toString('hex'), v.hex, v.id);
  }
});

void test('DESIGN.md test vectors decode back to salt, id, ts', () => {
  for (const v of VECTORS) {
    assert.deepEqual(decodeDataKey(Buffer.from(v.hex, 'hex')), { salt: v.salt, id: v.id, ts: v.ts });
    assert.deepEqual(decodeDataKey(Buffer.from(v.hex, 'hex'), 16), { salt: v.salt, id: v.id, ts: v.ts });
  }
});

void test('round-trips ids and timestamps at the edges', () => {
  const ids = ['a', 'x'.repeat(128), 'é'.repeat(64), '😀-id', 'with space|pipe:colon', '\u0001\u00ff'];
  const tss = [0, 1, 1732262400000, MAX_TS];
  for (const id of ids) {
    for (const ts of tss) {
      for (const buckets of [1, 16, 256]) {
        const decoded = decodeDataKey(encodeDataKey({ id, ts }, buckets), buckets);
        assert.deepEqual({ id: decoded.id, ts: decoded.ts }, { id, ts });
        const printable = decodePrintableDataKey(encodePrintableDataKey({ id, ts }, buckets), buckets);
        assert.deepEqual(printable, decoded);
      }
    }
  }
});

void test('a reverse ts containing 0x00 bytes still decodes (positions come from the end)', () => {
  const ts = 255; // reverse ts = 0x7FFFFFFFFFFFFF00
  const key = encodeDataKey({ id: 'dev', ts }, 16);
  assert.equal(key[key.length - 1], 0x00);
  assert.deepEqual(decodeDataKey(key), { salt: key[0], id: 'dev', ts });
});

void test('newer timestamps sort first for one id', () => {
  const tss = [0, 1, 999, 1700000000000, 1732262400000, 1732262400001, MAX_TS];
  const keys = tss.map((ts) => encodeDataKey({ id: 'sensor-0042', ts }, 16));
  const sorted = [...keys].sort((a, b) => Buffer.compare(a, b));
  assert.deepEqual(
    sorted.map((k) => decodeDataKey(k).ts),
    [...tss].reverse(),
  );
  const printable = tss.map((ts) => encodePrintableDataKey({ id: 'sensor-0042', ts }, 16)).sort((a, b) => Buffer.compare(a, b));
  assert.deepEqual(
    printable.map((k) => decodePrintableDataKey(k).ts),
    [...tss].reverse(),
  );
});

void test('the dev1 prefix does not match dev10 (same bucket with B = 1)', () => {
  const prefix = idPrefix('dev1', 1);
  assert.equal(prefix.toString('hex'), '0064657631' + '00');
  const dev1 = encodeDataKey({ id: 'dev1', ts: 5 }, 1);
  const dev10 = encodeDataKey({ id: 'dev10', ts: 5 }, 1);
  assert.ok(dev1.subarray(0, prefix.length).equals(prefix));
  assert.ok(!dev10.subarray(0, prefix.length).equals(prefix));
  assert.ok(!inRange(dev10, idScanRange('dev1', 1)));
  assert.ok(inRange(dev1, idScanRange('dev1', 1)));
  assert.ok(!idPrefix('dev1', 1, 'printable').equals(encodePrintableDataKey({ id: 'dev10', ts: 5 }, 1).subarray(0, 7)));
});

void test('idPrefix is salt ‖ id ‖ 0x00 and prefixes every key of the id', () => {
  assert.equal(idPrefix('sensor-0042', 16).toString('hex'), '0973656e736f722d3030343200');
  assert.equal(idPrefix('sensor-0042', 16, 'printable').toString('latin1'), '09sensor-0042\u0000');
  assert.deepEqual(idScanRange('sensor-0042', 16).stopRow.toString('hex'), '0973656e736f722d3030343201');
});

void test('idTimeRange covers exactly [fromTs, toTs] in both formats', () => {
  const from = 1_000_000;
  const to = 2_000_000;
  for (const format of ['binary', 'printable'] as const) {
    const encode = format === 'binary' ? encodeDataKey : encodePrintableDataKey;
    const range = idTimeRange('dev-1', { fromTs: from, toTs: to }, 16, format);
    assert.ok(Buffer.compare(range.startRow, range.stopRow) < 0);
    for (const ts of [from, from + 1, 1_500_000, to - 1, to]) {
      assert.ok(inRange(encode({ id: 'dev-1', ts }, 16), range), `${format} ${ts} inside`);
    }
    for (const ts of [0, from - 1, to + 1, MAX_TS]) {
      assert.ok(!inRange(encode({ id: 'dev-1', ts }, 16), range), `${format} ${ts} outside`);
    }
    assert.ok(!inRange(encode({ id: 'dev-10', ts: from }, 16), range));
  }
  const whole = idTimeRange('dev-1', { fromTs: 0, toTs: MAX_TS }, 16);
  assert.ok(inRange(encodeDataKey({ id: 'dev-1', ts: 0 }, 16), whole));
  assert.ok(inRange(encodeDataKey({ id: 'dev-1', ts: MAX_TS }, 16), whole));
  assert.equal(whole.stopRow.subarray(-8).toString('hex'), '8000000000000000');
  assert.throws(
    () => idTimeRange('dev-1', { fromTs: 10, toTs: 9 }, 16),
    (e: unknown) => e instanceof KeyError && e.code === 'INVALID_RANGE',
  );
});

void test('encode rejects bad ids and timestamps', () => {
  const invalid = (code: string) => (e: unknown) => e instanceof KeyError && e.code === code;
  for (const id of ['', 'a\u0000b', 'x'.repeat(129), 'é'.repeat(65), '\ud800']) {
    assert.throws(() => encodeDataKey({ id, ts: 0 }, 16), invalid('INVALID_ID'), JSON.stringify(id));
  }
  for (const ts of [-1, 1.5, MAX_TS + 1, Number.NaN, Number.POSITIVE_INFINITY]) {
    assert.throws(() => encodeDataKey({ id: 'a', ts }, 16), invalid('INVALID_TS'), String(ts));
    assert.throws(() => encodePrintableDataKey({ id: 'a', ts }, 16), invalid('INVALID_TS'), String(ts));
  }
  assert.throws(() => encodeDataKey({ id: 'a', ts: 0 }, 0), invalid('INVALID_BUCKETS'));
});

void test('decodeDataKey reports malformed keys clearly', () => {
  const good = encodeDataKey({ id: 'dev-1', ts: 5 }, 16);
  assert.throws(() => decodeDataKey(Buffer.alloc(0)), /shorter than the minimum/);
  assert.throws(() => decodeDataKey(good.subarray(0, 10)), /shorter than the minimum/);
  const noTerminator = Buffer.from(good);
  noTerminator[good.length - 9] = 0x41;
  assert.throws(() => decodeDataKey(noTerminator), /no 0x00 terminator/);
  const emptyId = Buffer.concat([Buffer.from([1]), good.subarray(good.length - 9)]);
  assert.throws(() => decodeDataKey(emptyId), /10 bytes, shorter than the minimum 11/);
  const nulInId = Buffer.concat([Buffer.from([3, 0x61, 0x00, 0x62]), good.subarray(good.length - 9)]);
  assert.throws(() => decodeDataKey(nulInId), /id contains 0x00/);
  const badUtf8 = Buffer.concat([Buffer.from([3, 0xff, 0xfe]), good.subarray(good.length - 9)]);
  assert.throws(() => decodeDataKey(badUtf8), { message: `id of key ${badUtf8.toString('hex')} is not valid UTF-8` });
  const topBit = Buffer.from(good);
  topBit[good.length - 8] = 0x80;
  assert.throws(() => decodeDataKey(topBit), /exceeds 0x7FFFFFFFFFFFFFFF/);
  const tooOld = Buffer.from(good);
  tooOld.fill(0x00, good.length - 8);
  assert.throws(() => decodeDataKey(tooOld), /beyond 2\^53/);
  const wrongSalt = Buffer.from(good);
  wrongSalt[0] = (good[0] ?? 0) + 1;
  assert.throws(() => decodeDataKey(wrongSalt, 16), /does not match salt/);
  for (const key of [Buffer.alloc(0), noTerminator, nulInId, badUtf8, topBit]) {
    assert.throws(() => decodeDataKey(key), malformed);
  }
});

void test('decodeDataKey: the reverse ts read in two halves and the id kept from the last key agree with the checked path', () => {
  for (const ts of [0, 1, 2 ** 32 - 1, 2 ** 32, 1732262400000, 2 ** 53 - 2, 2 ** 53 - 1]) {
    for (const id of ['dev-1', 'dev-1', '设备-7']) {
      const key = encodeDataKey({ id, ts }, 16);
      assert.deepEqual(decodeDataKey(key, 16), { salt: key[0], id, ts });
    }
  }
  const good = encodeDataKey({ id: 'dev-1', ts: 5 }, 16);
  decodeDataKey(good);
  const sameLengthBadId = Buffer.from(good);
  sameLengthBadId[3] = 0xff; // the kept id's bytes are compared, not trusted
  assert.throws(() => decodeDataKey(sameLengthBadId), /not valid UTF-8/);
  assert.throws(() => decodeDataKey(sameLengthBadId), /not valid UTF-8/, 'a bad id is never kept');
});

void test('printable format: exact layout and malformed input', () => {
  const key = encodePrintableDataKey({ id: 'sensor-0042', ts: 1732262400000 }, 16);
  assert.equal(key.toString('latin1'), '09sensor-0042\u00009223370304592375807');
  assert.equal(encodePrintableDataKey({ id: 'dev-1', ts: 0 }, 16).toString('latin1'), '0adev-1\u00009223372036854775807');
  const tail = key.subarray(key.length - 20);
  assert.throws(() => decodePrintableDataKey(Buffer.from('0A')), malformed);
  assert.throws(() => decodePrintableDataKey(Buffer.concat([Buffer.from('0Ax'), tail])), /lowercase hex/);
  assert.throws(() => decodePrintableDataKey(Buffer.concat([Buffer.from('0ax'), Buffer.from('1'), tail.subarray(1)])), /0x00 terminator/);
  assert.throws(() => decodePrintableDataKey(Buffer.from(`0ax\u0000922337203685477580a`, 'latin1')), /19 decimal digits/);
  assert.throws(() => decodePrintableDataKey(Buffer.from(`0ax\u00009999999999999999999`, 'latin1')), /exceeds/);
});

void test('decodeAnyKey recognises binary and printable keys', () => {
  for (const v of VECTORS) {
    const binary = decodeAnyKey(Buffer.from(v.hex, 'hex'));
    assert.deepEqual(binary, {
      format: 'binary',
      salt: v.salt,
      id: v.id,
      ts: v.ts,
      iso: new Date(v.ts).toISOString(),
    });
    const printable = decodeAnyKey(encodePrintableDataKey({ id: v.id, ts: v.ts }, 16), 16);
    assert.deepEqual(printable, { ...binary, format: 'printable' });
  }
  assert.equal(decodeAnyKey(encodeDataKey({ id: 'a', ts: 1732262400000 }, 16)).iso, '2024-11-22T08:00:00.000Z');
  assert.equal(decodeAnyKey(encodeDataKey({ id: 'a', ts: MAX_TS }, 16)).iso, null);
  assert.throws(() => decodeAnyKey(Buffer.from('short')), malformed);
  assert.throws(() => decodeAnyKey(Buffer.from('hello world, not a key at all')), malformed);
  assert.throws(() => decodeAnyKey(Buffer.from('hello world, not a key at all')), /neither a binary data key/);
  assert.throws(() => decodeAnyKey(Buffer.from('0adev\u000012345678901234', 'latin1')), /shorter than the minimum 23/);
});
