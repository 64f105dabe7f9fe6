/**
 * Deterministic salt ("hashing"): salt = uint32_BE(first 4 bytes of MD5(UTF-8(id))) mod B.
 * Pure: node:crypto's hash is a computation, not I/O.
 */
import { createHash } from 'node:crypto';
import { KeyError } from './key-error.ts';

export const MIN_BUCKETS = 1;
export const MAX_BUCKETS = 256;
export const DEFAULT_BUCKETS = 16;

export function assertBuckets(buckets: number): void {
  if (!Number.isInteger(buckets) || buckets < MIN_BUCKETS || buckets > MAX_BUCKETS) {
    throw new KeyError(
      'invalid_buckets',
      `buckets must be an integer in [${MIN_BUCKETS}, ${MAX_BUCKETS}], got ${String(buckets)}`,
    );
  }
}

/** uint32_BE(MD5(bytes)[0..4]) mod buckets, for any byte string (used by data and index salts). */
export function md5Bucket(bytes: Uint8Array, buckets: number): number {
  assertBuckets(buckets);
  return createHash('md5').update(bytes).digest().readUInt32BE(0) % buckets;
}

/** The data-row salt of an id; a string id is hashed as its UTF-8 bytes. */
export function saltOf(id: Buffer | string, buckets: number): number {
  return md5Bucket(typeof id === 'string' ? Buffer.from(id, 'utf8') : id, buckets);
}
