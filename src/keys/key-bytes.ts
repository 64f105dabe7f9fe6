/**
 * Byte-level building blocks shared by the data and index key codecs: timestamp/id validation,
 * the reverse-timestamp field (binary and printable), strict UTF-8 decoding and scan-range helpers.
 */
import { KeyError } from './key-error.ts';

/** 0x7FFFFFFFFFFFFFFF: reverse ts = REVERSE_TS_BASE − ts, so newer rows sort first. */
export const REVERSE_TS_BASE = 0x7fff_ffff_ffff_ffffn;
export const MIN_TS = 0;
/** 2^53 − 1: the largest epoch-ms value a JS number represents exactly. */
export const MAX_TS = Number.MAX_SAFE_INTEGER;
/** Ids are 1–128 bytes of UTF-8 without NUL (DESIGN.md, event contract). */
export const MAX_ID_BYTES = 128;
export const REVERSE_TS_BYTES = 8;
/** Width of the zero-padded decimal reverse ts of the printable format (19 digits hold 2^63 − 1). */
export const REVERSE_TS_DIGITS = 19;

/** A forward scan: `startRow` inclusive, `stopRow` exclusive (HBase semantics). */
export type ScanRange = { readonly startRow: Buffer; readonly stopRow: Buffer };

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function assertTs(ts: number, name = 'ts'): void {
  if (!Number.isSafeInteger(ts) || ts < MIN_TS) {
    throw new KeyError('INVALID_TS', `${name} must be an integer epoch-ms in [0, 2^53−1], got ${String(ts)}`);
  }
}

export function assertTsRange(fromTs: number, toTs: number): void {
  assertTs(fromTs, 'fromTs');
  assertTs(toTs, 'toTs');
  if (fromTs > toTs) {
    throw new KeyError('INVALID_RANGE', `fromTs (${fromTs}) must be <= toTs (${toTs})`);
  }
}

/** Validates an id (1–128 UTF-8 bytes, no NUL, well-formed Unicode) and returns its UTF-8 length. */
export function idByteLength(id: string): number {
  if (typeof id !== 'string' || id.length === 0) {
    throw new KeyError('INVALID_ID', 'id must be a non-empty string');
  }
  if (!id.isWellFormed()) {
    throw new KeyError('INVALID_ID', 'id contains a lone surrogate (not representable in UTF-8)');
  }
  if (id.includes('\u0000')) {
    throw new KeyError('INVALID_ID', 'id must not contain a NUL (0x00) character');
  }
  const n = Buffer.byteLength(id, 'utf8');
  if (n > MAX_ID_BYTES) {
    throw new KeyError('INVALID_ID', `id is ${n} UTF-8 bytes, max ${MAX_ID_BYTES}`);
  }
  return n;
}

/** Validates an id (1–128 UTF-8 bytes, no NUL, well-formed Unicode) and returns its UTF-8 bytes. */
export function encodeId(id: string): Buffer {
  idByteLength(id);
  return Buffer.from(id, 'utf8');
}

/** Strict UTF-8 decode; throws a `MALFORMED_KEY` KeyError naming `what` on invalid bytes. */
/** Strict UTF-8; `what` names the bytes in the error (a function: built only when it is thrown). */
export function decodeUtf8(bytes: Uint8Array, what: string | (() => string)): string {
  try {
    return strictUtf8.decode(bytes);
  } catch (cause) {
    throw new KeyError('MALFORMED_KEY', `${typeof what === 'string' ? what : what()} is not valid UTF-8`, { cause });
  }
}

export function reverseTs(ts: number): bigint {
  return REVERSE_TS_BASE - BigInt(ts);
}

/** 8-byte big-endian reverse ts. `extra` = 1 yields the exclusive stop just after `ts`'s rows. */
export function writeReverseTs(ts: number, extra: 0 | 1 = 0): Buffer {
  const out = Buffer.allocUnsafe(REVERSE_TS_BYTES);
  if (extra === 0) writeReverseTsAt(out, 0, ts);
  else out.writeBigUInt64BE(reverseTs(ts) + 1n);
  return out;
}

/**
 * Writes the 8-byte reverse ts of `ts` (an integer in [0, 2^53−1], already checked) at `offset`,
 * without BigInt: 0x7FFFFFFF_FFFFFFFF − (hi·2^32 + lo) = (0x7FFFFFFF − hi)·2^32 + (0xFFFFFFFF − lo),
 * with no borrow since lo ≤ 0xFFFFFFFF. Returns the offset after it.
 */
export function writeReverseTsAt(buf: Buffer, offset: number, ts: number): number {
  const hi = Math.floor(ts / 0x1_0000_0000);
  const lo = ts - hi * 0x1_0000_0000;
  buf.writeUInt32BE(0x7fff_ffff - hi, offset);
  buf.writeUInt32BE(0xffff_ffff - lo, offset + 4);
  return offset + REVERSE_TS_BYTES;
}

/** 19-digit zero-padded decimal reverse ts (printable format). */
export function writeReverseTsDecimal(ts: number, extra: 0 | 1 = 0): Buffer {
  return Buffer.from((reverseTs(ts) + BigInt(extra)).toString().padStart(REVERSE_TS_DIGITS, '0'), 'latin1');
}

/** Turns a decoded reverse ts back into epoch ms, rejecting values outside [0, 2^53−1]. */
export function tsFromReverse(rev: bigint): number {
  if (rev > REVERSE_TS_BASE) {
    throw new KeyError('MALFORMED_KEY', `reverse ts 0x${rev.toString(16)} exceeds 0x7FFFFFFFFFFFFFFF`);
  }
  const ts = REVERSE_TS_BASE - rev;
  if (ts > BigInt(MAX_TS)) {
    throw new KeyError('MALFORMED_KEY', `reverse ts encodes ts ${ts} beyond 2^53−1`);
  }
  return Number(ts);
}

export function readReverseTs(buf: Buffer, offset: number): number {
  // MAX − rev in two 32-bit halves (no borrow: the low half of MAX is all ones), exact in a double
  // when the high half of ts is at most 21 bits (ts ≤ 2^53−1); anything else takes the checked path.
  const tsHi = 0x7fff_ffff - buf.readUInt32BE(offset);
  if (tsHi >= 0 && tsHi <= 0x1f_ffff) return tsHi * 0x1_0000_0000 + (0xffff_ffff - buf.readUInt32BE(offset + 4));
  return tsFromReverse(buf.readBigUInt64BE(offset));
}

/** Parses the 19 ASCII digits of a printable key's reverse ts. */
export function readReverseTsDecimal(buf: Buffer, offset: number): number {
  const digits = buf.subarray(offset, offset + REVERSE_TS_DIGITS);
  if (digits.length !== REVERSE_TS_DIGITS || !digits.every(isAsciiDigit)) {
    throw new KeyError('MALFORMED_KEY', `printable key must end with ${REVERSE_TS_DIGITS} decimal digits`);
  }
  return tsFromReverse(BigInt(digits.toString('latin1')));
}

export function isAsciiDigit(byte: number): boolean {
  return byte >= 0x30 && byte <= 0x39;
}

/**
 * The smallest row that sorts after every row starting with `prefix` (increment the last byte that is
 * not 0xFF and drop what follows). An all-0xFF (or empty) prefix has no such row: returns an empty
 * buffer, which HBase reads as "to the end of the table".
 */
export function prefixStopRow(prefix: Uint8Array): Buffer {
  const out = Buffer.from(prefix);
  for (let i = out.length - 1; i >= 0; i--) {
    const byte = out[i] ?? 0xff;
    if (byte !== 0xff) {
      out[i] = byte + 1;
      return out.subarray(0, i + 1);
    }
  }
  return Buffer.alloc(0);
}

export function prefixRange(prefix: Buffer): ScanRange {
  return { startRow: prefix, stopRow: prefixStopRow(prefix) };
}

/** Rows of `prefix` whose reverse-ts field covers [fromTs, toTs] (newer first, so toTs starts). */
export function timeRange(prefix: Buffer, fromTs: number, toTs: number, printable: boolean): ScanRange {
  assertTsRange(fromTs, toTs);
  const write = printable ? writeReverseTsDecimal : writeReverseTs;
  return {
    startRow: Buffer.concat([prefix, write(toTs)]),
    stopRow: Buffer.concat([prefix, write(fromTs, 1)]),
  };
}
