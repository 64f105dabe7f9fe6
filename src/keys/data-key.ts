/**
 * Data rowkey codec, binary and printable; a fixed format that other programs compute too.
 * Specification: docs/KEYS.md, "Data rowkey".
 * Design notes: docs/DECISIONS.md#data-rowkeys
 */
import type { TsBounds } from './index-key.ts';
import {
  REVERSE_TS_BYTES,
  REVERSE_TS_DIGITS,
  assertTs,
  decodeUtf8,
  idByteLength,
  isAsciiDigit,
  prefixRange,
  readReverseTs,
  readReverseTsDecimal,
  timeRange,
  writeReverseTsAt,
  writeReverseTsDecimal,
  type ScanRange,
} from './key-bytes.ts';
import { KeyError } from './key-error.ts';
import { saltOf } from './salt.ts';

export const KEY_FORMATS = ['binary', 'printable'] as const;
export type KeyFormat = (typeof KEY_FORMATS)[number];

export type DataKeyParts = { readonly id: string; readonly ts: number };
export type DecodedDataKey = { readonly salt: number; readonly id: string; readonly ts: number };
export type DecodedAnyKey = DecodedDataKey & {
  readonly format: KeyFormat;
  /** ISO-8601 UTC of ts, or null when ts is beyond the JS Date range (> 8.64e15 ms). */
  readonly iso: string | null;
};

/** salt + 1-byte id + 0x00 + 8-byte reverse ts */
const MIN_BINARY_LENGTH = 1 + 1 + 1 + REVERSE_TS_BYTES;
/** 2 hex chars + 1-byte id + 0x00 + 19 digits */
const MIN_PRINTABLE_LENGTH = 2 + 1 + 1 + REVERSE_TS_DIGITS;
const BINARY_REVERSE_TS_LEAD = 0x7f;

/**
 * salt ‖ id ‖ 0x00 written into a new Buffer with `tail` more bytes after it (for the reverse ts):
 * one allocation per key. `salt` is the bucket the key goes to (0 … 255).
 */
function writePrefix(id: string, salt: number, format: KeyFormat, tail: number): { key: Buffer; end: number } {
  const n = idByteLength(id);
  const saltBytes = format === 'binary' ? 1 : 2;
  const key = Buffer.allocUnsafe(saltBytes + n + 1 + tail);
  if (format === 'binary') key[0] = salt;
  else key.write(salt.toString(16).padStart(2, '0'), 0, 'latin1');
  key.write(id, saltBytes, 'utf8');
  key[saltBytes + n] = 0x00;
  return { key, end: saltBytes + n + 1 };
}

/** salt ‖ id ‖ 0x00 in the given format — the scan prefix for "latest N of an id". */
export function idPrefix(id: string, buckets: number, format: KeyFormat = 'binary'): Buffer {
  return writePrefix(id, saltOf(id, buckets), format, 0).key;
}

/** salt ‖ id ‖ 0x00 with an explicit salt (a spread id's other buckets). */
export function idPrefixAt(id: string, salt: number, format: KeyFormat): Buffer {
  return writePrefix(id, salt, format, 0).key;
}

/** The data key of (id, ts) in bucket `salt` (the plain key when salt = saltOf(id, B)). */
export function encodeDataKeyAt(parts: DataKeyParts, salt: number, format: KeyFormat): Buffer {
  assertTs(parts.ts);
  if (format === 'binary') {
    const { key, end } = writePrefix(parts.id, salt, 'binary', REVERSE_TS_BYTES);
    writeReverseTsAt(key, end, parts.ts);
    return key;
  }
  const { key, end } = writePrefix(parts.id, salt, 'printable', REVERSE_TS_DIGITS);
  writeReverseTsDecimal(parts.ts).copy(key, end);
  return key;
}

export function encodeDataKey(parts: DataKeyParts, buckets: number): Buffer {
  return encodeDataKeyAt(parts, saltOf(parts.id, buckets), 'binary');
}

export function encodePrintableDataKey(parts: DataKeyParts, buckets: number): Buffer {
  return encodeDataKeyAt(parts, saltOf(parts.id, buckets), 'printable');
}

/** All rows of one id (newest first): [salt‖id‖0x00, salt‖id‖0x01). */
export function idScanRange(id: string, buckets: number, format: KeyFormat = 'binary'): ScanRange {
  return prefixRange(idPrefix(id, buckets, format));
}

/**
 * Forward scan over an id's rows with fromTs ≤ ts ≤ toTs (both inclusive). Reverse time: the start
 * row is at toTs (newest), the exclusive stop row just past fromTs.
 */
export function idTimeRange(id: string, bounds: TsBounds, buckets: number, format: KeyFormat = 'binary'): ScanRange {
  return timeRange(idPrefix(id, buckets, format), bounds.fromTs, bounds.toTs, format === 'printable');
}

// Readers decode many keys of one id in a row: the last id decoded is kept (a copy of its bytes).
let lastIdBytes: Buffer | null = null;
let lastId = '';

function decodeIdBytes(idBytes: Buffer, key: Buffer): string {
  if (lastIdBytes?.equals(idBytes) === true) return lastId;
  const id = checkIdBytes(idBytes, key);
  lastIdBytes = Buffer.from(idBytes);
  lastId = id;
  return id;
}

function checkIdBytes(idBytes: Buffer, key: Buffer): string {
  if (idBytes.length === 0) {
    throw new KeyError('MALFORMED_KEY', `key ${key.toString('hex')} has an empty id`);
  }
  if (idBytes.includes(0x00)) {
    throw new KeyError('MALFORMED_KEY', `key ${key.toString('hex')}: id contains 0x00`);
  }
  return decodeUtf8(idBytes, () => `id of key ${key.toString('hex')}`);
}

function checkSalt(decoded: DecodedDataKey, buckets: number | undefined, key: Buffer): DecodedDataKey {
  if (buckets !== undefined) {
    const expected = saltOf(decoded.id, buckets);
    if (expected !== decoded.salt) {
      throw new KeyError('MALFORMED_KEY', `key ${key.toString('hex')}: salt ${decoded.salt} does not match salt ${expected} of id for buckets=${buckets}`);
    }
  }
  return decoded;
}

/**
 * Decodes a binary data key. Positions are taken from the end (the reverse ts may contain 0x00
 * bytes). Pass `buckets` to also verify the salt against the id.
 */
export function decodeDataKey(key: Buffer, buckets?: number): DecodedDataKey {
  if (key.length < MIN_BINARY_LENGTH) {
    throw new KeyError('MALFORMED_KEY', `data key is ${key.length} bytes, shorter than the minimum ${MIN_BINARY_LENGTH} (salt, id, 0x00, 8-byte ts)`);
  }
  const sep = key.length - REVERSE_TS_BYTES - 1;
  if (key[sep] !== 0x00) {
    throw new KeyError('MALFORMED_KEY', `key ${key.toString('hex')}: no 0x00 terminator before the 8-byte reverse ts`);
  }
  const id = decodeIdBytes(key.subarray(1, sep), key);
  const ts = readReverseTs(key, sep + 1);
  return checkSalt({ salt: key[0] ?? 0, id, ts }, buckets, key);
}

function isLowerHex(byte: number | undefined): boolean {
  return byte !== undefined && ((byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66));
}

export function decodePrintableDataKey(key: Buffer, buckets?: number): DecodedDataKey {
  if (key.length < MIN_PRINTABLE_LENGTH) {
    throw new KeyError('MALFORMED_KEY', `printable data key is ${key.length} bytes, shorter than the minimum ${MIN_PRINTABLE_LENGTH}`);
  }
  if (!isLowerHex(key[0]) || !isLowerHex(key[1])) {
    throw new KeyError('MALFORMED_KEY', 'printable data key must start with two lowercase hex salt chars');
  }
  const sep = key.length - REVERSE_TS_DIGITS - 1;
  if (key[sep] !== 0x00) {
    throw new KeyError('MALFORMED_KEY', 'printable data key: no 0x00 terminator before the 19-digit reverse ts');
  }
  const ts = readReverseTsDecimal(key, sep + 1);
  const id = decodeIdBytes(key.subarray(2, sep), key);
  const salt = Number.parseInt(key.toString('latin1', 0, 2), 16);
  return checkSalt({ salt, id, ts }, buckets, key);
}

function isoOf(ts: number): string | null {
  const date = new Date(ts);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** Recognises a binary or printable data key and decodes it (for `keys decode`). */
export function decodeAnyKey(key: Buffer, buckets?: number): DecodedAnyKey {
  const decoded = decodeKeyOfEitherFormat(key, buckets);
  return { ...decoded, iso: isoOf(decoded.ts) };
}

/** decodeAnyKey without the ISO time (readers decoding many keys). */
export function decodeKeyOfEitherFormat(key: Buffer, buckets?: number): DecodedDataKey & { readonly format: KeyFormat } {
  if (key.length < REVERSE_TS_BYTES + 3) {
    throw new KeyError('MALFORMED_KEY', `key is ${key.length} bytes, too short to be a data key`);
  }
  const lead = key[key.length - REVERSE_TS_BYTES] ?? 0;
  const format: KeyFormat | null = lead === BINARY_REVERSE_TS_LEAD ? 'binary' : isAsciiDigit(lead) ? 'printable' : null;
  if (format === null) {
    throw new KeyError(
      'MALFORMED_KEY',
      `key ${key.toString('hex')} is neither a binary data key (… 0x00 + 8-byte reverse ts starting 0x7F) ` +
        'nor a printable one (… 0x00 + 19 decimal digits)',
    );
  }
  const decoded = format === 'binary' ? decodeDataKey(key, buckets) : decodePrintableDataKey(key, buckets);
  return { format, salt: decoded.salt, id: decoded.id, ts: decoded.ts };
}
