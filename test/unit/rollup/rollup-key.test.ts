import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  KeyError,
  decodeMarkedId,
  decodeMarkerKey,
  decodeRollupKey,
  encodeIdMarkerKey,
  encodeMarkerKey,
  encodeRollupKey,
  markerScanRange,
  rollupScanRange,
  type ScanRange,
} from '../../../src/keys/index.ts';

const md5Mod = (text: string, buckets: number): number => createHash('md5').update(Buffer.from(text, 'utf8')).digest().readUInt32BE(0) % buckets;
const hex = (s: string): string => Buffer.from(s, 'utf8').toString('hex');
const u32 = (n: number): string => n.toString(16).padStart(8, '0');
const i64 = (n: bigint): string => n.toString(16).padStart(16, '0');
const MAX = 0x7fffffffffffffffn;
const inRange = (key: Buffer, r: ScanRange): boolean => Buffer.compare(key, r.startRow) >= 0 && (r.stopRow.length === 0 || Buffer.compare(key, r.stopRow) < 0);
const H = 3_600_000;

// The vectors documented in docs/ROLLUPS.md, rebuilt here from their definition.
const VECTORS = [
  {
    parts: { id: 'sensor-0042', windowSec: 3600, windowStart: 1_732_262_400_000 },
    summary: '0973656e736f722d303034320000000e107ffffe6cad1d6fff',
    marker: '090000000e100000019352e29000',
    idMarker: '090000000e100000019352e2900073656e736f722d30303432',
  },
  {
    parts: { id: 'dev-1', windowSec: 86_400, windowStart: 0 },
    summary: '0a6465762d3100000151807fffffffffffffff',
    marker: '0a00000151800000000000000000',
    idMarker: '0a000001518000000000000000006465762d31',
  },
];

void test('summary, marker row and per-id marker keys: documented vectors = their definition (B = 16)', () => {
  for (const v of VECTORS) {
    const { id, windowSec, windowStart } = v.parts;
    const salt = md5Mod(id, 16).toString(16).padStart(2, '0');
    const summary = `${salt}${hex(id)}00${u32(windowSec)}${i64(MAX - BigInt(windowStart))}`;
    const marker = `${salt}00${u32(windowSec)}${i64(BigInt(windowStart))}`;
    assert.equal(summary, v.summary);
    assert.equal(marker, v.marker);
    assert.equal(`${marker}${hex(id)}`, v.idMarker);
    assert.equal(encodeRollupKey(v.parts, 16).toString('hex'), v.summary);
    assert.equal(encodeMarkerKey(v.parts, 16).toString('hex'), v.marker);
    assert.equal(encodeIdMarkerKey(v.parts, 16).toString('hex'), v.idMarker);
  }
});

void test('round trips, including unicode ids and ids with 0x01/0xff-like characters', () => {
  const ids = ['sensor-0042', 'a', '设备-7', 'x\u0001\u00ffy', 'z'.repeat(128)];
  for (const id of ids) {
    for (const [windowSec, windowStart] of [
      [60, 0],
      [3600, 1_732_262_400_000],
      [86_400, 1_700_006_400_000],
    ] as const) {
      for (const b of [1, 4, 16, 256]) {
        const parts = { id, windowSec, windowStart };
        const salt = md5Mod(id, b);
        assert.deepEqual(decodeRollupKey(encodeRollupKey(parts, b), b), { ...parts, salt });
        assert.deepEqual(decodeMarkerKey(encodeMarkerKey(parts, b), b), { windowSec, windowStart, salt, id: null });
        assert.deepEqual(decodeMarkerKey(encodeIdMarkerKey(parts, b), b), { ...parts, salt });
        assert.equal(decodeMarkedId(Buffer.from(id, 'utf8'), salt, b), id);
      }
    }
  }
});

void test('a marker key never decodes as a summary key and vice versa', () => {
  for (const v of VECTORS) {
    const summary = Buffer.from(v.summary, 'hex');
    for (const marker of [Buffer.from(v.marker, 'hex'), Buffer.from(v.idMarker, 'hex')]) assert.throws(() => decodeRollupKey(marker, 16), KeyError);
    assert.throws(() => decodeMarkerKey(summary, 16), KeyError);
  }
  // Exhaustively over many ids: byte 1 is 0x00 exactly for markers.
  for (let i = 0; i < 300; i++) {
    const parts = { id: `id-${i}`, windowSec: 60, windowStart: i * 60_000 };
    assert.equal(encodeMarkerKey(parts, 8)[1], 0x00);
    assert.equal(encodeIdMarkerKey(parts, 8)[1], 0x00);
    assert.notEqual(encodeRollupKey(parts, 8)[1], 0x00);
    assert.throws(() => decodeRollupKey(encodeMarkerKey(parts, 8)), KeyError);
    assert.throws(() => decodeRollupKey(encodeIdMarkerKey(parts, 8)), KeyError);
    assert.throws(() => decodeMarkerKey(encodeRollupKey(parts, 8)), KeyError);
  }
});

void test('invalid windows and keys are rejected with a reason', () => {
  assert.throws(() => encodeRollupKey({ id: 'a', windowSec: 3600, windowStart: 1000 }, 16), /not aligned to a 3600s window/);
  assert.throws(() => encodeRollupKey({ id: 'a', windowSec: 0, windowStart: 0 }, 16), /window must be 1/);
  assert.throws(() => encodeMarkerKey({ id: '', windowSec: 60, windowStart: 0 }, 16), /non-empty/);
  const k = encodeRollupKey({ id: 'sensor-0042', windowSec: 3600, windowStart: 0 }, 16);
  assert.throws(() => decodeRollupKey(k, 7), /salt does not match/);
  assert.throws(() => decodeRollupKey(k.subarray(0, 5)), /too short/);
  assert.throws(() => markerScanRange(16, 60, 0, 16), /salt 16 is not a bucket of 16/);
  const m = encodeMarkerKey({ id: 'sensor-0042', windowSec: 3600, windowStart: 0 }, 16);
  assert.throws(() => decodeMarkerKey(m.subarray(0, 13)), /too short/);
  assert.throws(() => decodeMarkerKey(m, 8), /salt 9 is not a bucket of B=8/);
  assert.throws(() => decodeMarkerKey(encodeIdMarkerKey({ id: 'sensor-0042', windowSec: 3600, windowStart: 0 }, 16), 15), /salt does not match/);
  // an id cell must name an id of the row's bucket, non-empty, without NUL, valid UTF-8
  assert.throws(() => decodeMarkedId(Buffer.from('sensor-0042'), 3, 16), /not of bucket 3/);
  assert.throws(() => decodeMarkedId(Buffer.alloc(0), 0, 1), /empty/);
  assert.throws(() => decodeMarkedId(Buffer.from('a\u0000b'), 0, 1), /0x00/);
  assert.throws(() => decodeMarkedId(Buffer.from([0xc3, 0x28]), 0, 1), /UTF-8/);
});

void test('rollupScanRange includes exactly the windows starting in [from, to] of one id and size', () => {
  const id = 'sensor-0042';
  const from = 1_732_262_400_000;
  const r = rollupScanRange(id, 3600, { fromStart: from, toStart: from + 5 * H }, 16);
  for (let i = -3; i <= 8; i++) {
    const key = encodeRollupKey({ id, windowSec: 3600, windowStart: from + i * H }, 16);
    assert.equal(inRange(key, r), i >= 0 && i <= 5, `window ${i}`);
  }
  // Other sizes and ids sharing a prefix stay out.
  assert.equal(inRange(encodeRollupKey({ id, windowSec: 60, windowStart: from }, 16), r), false);
  assert.equal(inRange(encodeRollupKey({ id, windowSec: 86_400, windowStart: from - (from % 86_400_000) }, 16), r), false);
  assert.equal(inRange(encodeRollupKey({ id: `${id}0`, windowSec: 3600, windowStart: from }, 16), r), false);
  // Newest first: the start row is the latest window.
  assert.ok(
    rollupScanRange(id, 3600, { fromStart: from, toStart: from + 5 * H }, 16).startRow.equals(
      encodeRollupKey({ id, windowSec: 3600, windowStart: from + 5 * H }, 16),
    ),
  );
  assert.throws(() => rollupScanRange(id, 3600, { fromStart: from + H, toStart: from }, 16), /fromStart/);
});

void test('markerScanRange: closed marker rows (and per-id markers) of one bucket and size, oldest first; never summaries', () => {
  const b = 4;
  const startBefore = 1_732_262_400_000;
  const ids = Array.from({ length: 40 }, (_, i) => `m-${i}`);
  for (const id of ids) {
    const salt = md5Mod(id, b);
    const r = markerScanRange(salt, 3600, startBefore, b);
    for (const [offset, expected] of [
      [-2 * H, true],
      [-H, true],
      [0, false],
      [H, false],
    ] as const) {
      for (const key of [
        encodeMarkerKey({ id, windowSec: 3600, windowStart: startBefore + offset }, b),
        encodeIdMarkerKey({ id, windowSec: 3600, windowStart: startBefore + offset }, b),
      ]) {
        assert.equal(inRange(key, r), expected, `${id} ${offset}`);
      }
    }
    assert.equal(inRange(encodeMarkerKey({ id, windowSec: 60, windowStart: 0 }, b), r), false, 'other size');
    assert.equal(inRange(encodeRollupKey({ id, windowSec: 3600, windowStart: 0 }, b), r), false, 'summary');
    const other = markerScanRange((salt + 1) % b, 3600, startBefore, b);
    assert.equal(inRange(encodeMarkerKey({ id, windowSec: 3600, windowStart: 0 }, b), other), false, 'other bucket');
  }
  // Oldest first: key order of markers = window order; a window's per-id markers right after its row.
  const older = encodeMarkerKey({ id: 'zzz', windowSec: 60, windowStart: 60_000 }, 1);
  const olderId = encodeIdMarkerKey({ id: 'zzz', windowSec: 60, windowStart: 60_000 }, 1);
  const newer = encodeMarkerKey({ id: 'aaa', windowSec: 60, windowStart: 120_000 }, 1);
  assert.ok(Buffer.compare(older, olderId) < 0 && Buffer.compare(olderId, newer) < 0);
  // Nothing closed yet: an empty range.
  const none = markerScanRange(0, 60, 0, 1);
  assert.equal(inRange(encodeMarkerKey({ id: 'a', windowSec: 60, windowStart: 0 }, 1), none), false);
});
