/**
 * Deterministic salt ("hashing"): salt = uint32_BE(first 4 bytes of MD5(UTF-8(id))) mod B.
 * Pure: node:crypto's hash is a computation, not I/O.
 *
 * The write path computes a salt for every event, so MD5 is taken with the one-shot `crypto.hash`
 * (no Hash object; the digest comes back as a latin1 string, one char per byte, no Buffer), and the
 * salts of string ids are memoised in a bounded table (ids repeat: a few hot ids carry most events).
 */
import { hash } from 'node:crypto';
import { KeyError } from './key-error.ts';

export const MIN_BUCKETS = 1;
export const MAX_BUCKETS = 256;
export const DEFAULT_BUCKETS = 16;

export function assertBuckets(buckets: number): void {
  if (!Number.isInteger(buckets) || buckets < MIN_BUCKETS || buckets > MAX_BUCKETS) {
    throw new KeyError('INVALID_BUCKETS', `buckets must be an integer in [${MIN_BUCKETS}, ${MAX_BUCKETS}], got ${String(buckets)}`);
  }
}

/** uint32_BE(MD5(data)[0..4]); a string is hashed as its UTF-8 bytes. */
function md5Prefix32(data: Uint8Array | string): number {
  const d = hash('md5', data, 'binary'); // 'binary' = latin1: one char per digest byte
  return d.charCodeAt(0) * 0x100_0000 + ((d.charCodeAt(1) << 16) | (d.charCodeAt(2) << 8) | d.charCodeAt(3));
}

/** uint32_BE(MD5(bytes)[0..4]) mod buckets, for any byte string (used by data and index salts). */
export function md5Bucket(bytes: Uint8Array | string, buckets: number): number {
  assertBuckets(buckets);
  return md5Prefix32(bytes) % buckets;
}

/** Entries of the string → salt memo before it starts over (bounded memory, ~100 bytes each). */
export const SALT_MEMO_SIZE = 65_536;
const memo = new Map<number, Map<string, number>>();

/**
 * md5Bucket of a string's UTF-8 bytes, memoised: the same string always hashes the same, so data
 * salts (the id) and index salts (name ‖ 0x00 ‖ value ‖ 0x00 ‖ id) share one table.
 */
export function memoBucket(text: string, buckets: number): number {
  let table = memo.get(buckets);
  if (table === undefined) {
    assertBuckets(buckets);
    table = new Map();
    memo.set(buckets, table);
  }
  let salt = table.get(text);
  if (salt === undefined) {
    salt = md5Prefix32(text) % buckets;
    if (table.size >= SALT_MEMO_SIZE) table.clear();
    table.set(text, salt);
  }
  return salt;
}

/** The data-row salt of an id; a string id is hashed as its UTF-8 bytes. */
export function saltOf(id: Buffer | string, buckets: number): number {
  return typeof id === 'string' ? memoBucket(id, buckets) : md5Bucket(id, buckets);
}
