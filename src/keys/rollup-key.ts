/**
 * Rollup summary rowkeys and marker rows of the rollup table, always binary. Specification:
 * docs/ROLLUPS.md, "Keys".
 * Design notes: docs/DECISIONS.md#rollup-keys
 */
import { REVERSE_TS_BYTES, assertTs, decodeUtf8, encodeId, readReverseTs, writeReverseTs, type ScanRange } from './key-bytes.ts';
import { KeyError } from './key-error.ts';
import { assertBuckets, saltOf } from './salt.ts';

export type RollupKeyParts = { readonly id: string; readonly windowSec: number; readonly windowStart: number };
export type DecodedRollupKey = RollupKeyParts & { readonly salt: number };
/** A marker key: a marker row (id null) or a per-id marker of an earlier version (its id). */
export type DecodedMarkerKey = { readonly salt: number; readonly windowSec: number; readonly windowStart: number; readonly id: string | null };

const NUL = Buffer.from([0x00]);
const WINDOW_BYTES = 4;
/** 0x00 + window + reverse start */
const SUMMARY_TAIL = 1 + WINDOW_BYTES + REVERSE_TS_BYTES;
/** salt ‖ 0x00 ‖ window ‖ start: the whole key of a marker row, the head of a per-id marker */
export const MARKER_ROW_BYTES = 2 + WINDOW_BYTES + 8;
/** The largest window: uint32 seconds. */
export const MAX_WINDOW_SEC = 0xffff_ffff;

export function assertWindow(windowSec: number, windowStart?: number): void {
  if (!Number.isSafeInteger(windowSec) || windowSec < 1 || windowSec > MAX_WINDOW_SEC) {
    throw new KeyError('INVALID_WINDOW', `window must be 1 … ${MAX_WINDOW_SEC} seconds, got ${String(windowSec)}`);
  }
  if (windowStart !== undefined) {
    assertTs(windowStart, 'windowStart');
    if (windowStart % (windowSec * 1000) !== 0) {
      throw new KeyError('INVALID_WINDOW', `windowStart ${windowStart} is not aligned to a ${windowSec}s window`);
    }
  }
}

function windowBytes(windowSec: number): Buffer {
  const out = Buffer.alloc(WINDOW_BYTES);
  out.writeUInt32BE(windowSec);
  return out;
}

function startBytes(ms: number): Buffer {
  const out = Buffer.alloc(8);
  out.writeBigUInt64BE(BigInt(ms));
  return out;
}

/** salt(id) ‖ id ‖ 0x00 ‖ window — the prefix of one id's summaries of one window size. */
export function rollupPrefix(id: string, windowSec: number, buckets: number): Buffer {
  assertWindow(windowSec);
  const idBytes = encodeId(id);
  return Buffer.concat([Buffer.from([saltOf(id, buckets)]), idBytes, NUL, windowBytes(windowSec)]);
}

export function encodeRollupKey(parts: RollupKeyParts, buckets: number): Buffer {
  assertWindow(parts.windowSec, parts.windowStart);
  return Buffer.concat([rollupPrefix(parts.id, parts.windowSec, buckets), writeReverseTs(parts.windowStart)]);
}

export function decodeRollupKey(key: Buffer, buckets?: number): DecodedRollupKey {
  // (the hex only for an error: a read decodes a key per row)
  const bad = (why: string): KeyError => new KeyError('MALFORMED_KEY', `rollup key ${key.toString('hex')}${why}`);
  if (key.length < 2 + SUMMARY_TAIL || key[1] === 0x00) throw bad(' is too short or is a marker key');
  const sep = key.length - SUMMARY_TAIL;
  if (key[sep] !== 0x00) throw bad(': no 0x00 after the id');
  const idBytes = key.subarray(1, sep);
  if (idBytes.includes(0x00)) throw bad(': id contains 0x00');
  const decoded = {
    salt: key[0] ?? 0,
    id: decodeUtf8(idBytes, () => `id of rollup key ${key.toString('hex')}`),
    windowSec: key.readUInt32BE(sep + 1),
    windowStart: readReverseTs(key, sep + 1 + WINDOW_BYTES),
  };
  if (buckets !== undefined && saltOf(decoded.id, buckets) !== decoded.salt) throw bad(`: salt does not match the id for buckets=${buckets}`); // the id's UTF-8 bytes, memoised
  return decoded;
}

/**
 * Summaries of one id and window size whose window starts in [fromStart, toStart] (both inclusive),
 * newest first.
 */
export function rollupScanRange(id: string, windowSec: number, starts: { readonly fromStart: number; readonly toStart: number }, buckets: number): ScanRange {
  const { fromStart, toStart } = starts;
  assertTs(fromStart, 'fromStart');
  assertTs(toStart, 'toStart');
  if (fromStart > toStart) throw new KeyError('INVALID_RANGE', `fromStart (${fromStart}) must be <= toStart (${toStart})`);
  const prefix = rollupPrefix(id, windowSec, buckets);
  return { startRow: Buffer.concat([prefix, writeReverseTs(toStart)]), stopRow: Buffer.concat([prefix, writeReverseTs(fromStart, 1)]) };
}

function markerHead(salt: number, windowSec: number, windowStart: number): Buffer {
  return Buffer.concat([Buffer.from([salt, 0x00]), windowBytes(windowSec), startBytes(windowStart)]);
}

/**
 * Touch rows (docs/DECISIONS.md#touch-rows): in each bucket, a ring of rows, one per minute slot,
 * naming the ids written, `salt ‖ 0x00 ‖ window 0 ‖ int64 slot`. No window has size 0, so they sit
 * before every marker row of the bucket and no marker scan (one size each) reads them.
 */
export const TOUCH_WINDOW_SEC = 0;

export function encodeTouchKey(salt: number, slot: number, buckets: number): Buffer {
  assertBuckets(buckets);
  if (!Number.isInteger(salt) || salt < 0 || salt >= buckets) throw new KeyError('INVALID_BUCKETS', `salt ${salt} is not a bucket of ${buckets}`);
  assertTs(slot, 'slot');
  return markerHead(salt, TOUCH_WINDOW_SEC, slot);
}

/** The touch rows of one bucket whose slot is in [fromSlot, toSlot] (both inclusive). */
export function touchScanRange(salt: number, slots: { readonly fromSlot: number; readonly toSlot: number }, buckets: number): ScanRange {
  return { startRow: encodeTouchKey(salt, slots.fromSlot, buckets), stopRow: encodeTouchKey(salt, slots.toSlot + 1, buckets) };
}

/** The marker row that marks (id, window): the row of the id's base bucket, size and window. */
export function encodeMarkerKey(parts: RollupKeyParts, buckets: number): Buffer {
  assertWindow(parts.windowSec, parts.windowStart);
  encodeId(parts.id); // checks the id
  return markerHead(saltOf(parts.id, buckets), parts.windowSec, parts.windowStart);
}

/** A per-id marker key as earlier versions wrote it (kept to test that the job still reads them). */
export function encodeIdMarkerKey(parts: RollupKeyParts, buckets: number): Buffer {
  assertWindow(parts.windowSec, parts.windowStart);
  const idBytes = encodeId(parts.id);
  return Buffer.concat([markerHead(saltOf(idBytes, buckets), parts.windowSec, parts.windowStart), idBytes]);
}

/** A marker row key (id null) or a per-id marker key (its id, whose salt must match for `buckets`). */
export function decodeMarkerKey(key: Buffer, buckets?: number): DecodedMarkerKey {
  const hex = key.toString('hex');
  if (key.length < MARKER_ROW_BYTES || key[1] !== 0x00) throw new KeyError('MALFORMED_KEY', `marker key ${hex} is too short or not a marker`);
  const windowStart = Number(key.readBigUInt64BE(2 + WINDOW_BYTES));
  assertTs(windowStart, 'windowStart');
  const salt = key[0] ?? 0;
  if (buckets !== undefined && salt >= buckets) throw new KeyError('MALFORMED_KEY', `marker key ${hex}: salt ${salt} is not a bucket of B=${buckets}`);
  const head = { salt, windowSec: key.readUInt32BE(2), windowStart };
  if (key.length === MARKER_ROW_BYTES) return { ...head, id: null };
  const idBytes = key.subarray(MARKER_ROW_BYTES);
  if (idBytes.includes(0x00)) throw new KeyError('MALFORMED_KEY', `marker key ${hex}: id contains 0x00`);
  if (buckets !== undefined && saltOf(idBytes, buckets) !== salt) {
    throw new KeyError('MALFORMED_KEY', `marker key ${hex}: salt does not match the id for buckets=${buckets}`);
  }
  return { ...head, id: decodeUtf8(idBytes, `id of marker key ${hex}`) };
}

/** The id an id cell of the marker row in bucket `salt` names (its qualifier), checked like a key's id. */
export function decodeMarkedId(qualifier: Buffer, salt: number, buckets: number): string {
  const what = `marked id ${qualifier.toString('hex')}`;
  if (qualifier.length === 0 || qualifier.includes(0x00)) throw new KeyError('MALFORMED_KEY', `${what} is empty or contains 0x00`);
  if (saltOf(qualifier, buckets) !== salt) throw new KeyError('MALFORMED_KEY', `${what} is not of bucket ${salt} for buckets=${buckets}`);
  return decodeUtf8(qualifier, what);
}

/**
 * Markers of one bucket and window size whose window starts in [fromStart, startBefore): the marks
 * a read of those windows must know of (the series API reads such windows raw).
 */
export function markerWindowRange(
  salt: number,
  windowSec: number,
  starts: { readonly fromStart: number; readonly startBefore: number },
  buckets: number,
): ScanRange {
  const all = markerScanRange(salt, windowSec, starts.startBefore, buckets);
  assertTs(starts.fromStart, 'fromStart');
  return { startRow: Buffer.concat([all.startRow, startBytes(starts.fromStart)]), stopRow: all.stopRow };
}

/**
 * Markers of one bucket and window size whose window starts before `startBefore` (exclusive),
 * oldest first: the closed windows when startBefore = the first start that is not closed yet.
 */
export function markerScanRange(salt: number, windowSec: number, startBefore: number, buckets: number): ScanRange {
  assertBuckets(buckets);
  if (!Number.isInteger(salt) || salt < 0 || salt >= buckets) throw new KeyError('INVALID_BUCKETS', `salt ${salt} is not a bucket of ${buckets}`);
  assertWindow(windowSec);
  assertTs(startBefore, 'startBefore');
  const head = Buffer.concat([Buffer.from([salt, 0x00]), windowBytes(windowSec)]);
  return { startRow: head, stopRow: Buffer.concat([head, startBytes(startBefore)]) };
}
