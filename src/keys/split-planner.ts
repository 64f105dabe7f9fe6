/**
 * Region split planning (pure). Salted tables are pre-split on the salt boundaries so each bucket
 * starts as its own region; unsalted comparison tables are split at quantiles of a sample of ids.
 */
import { KeyError } from './key-error.ts';
import { assertBuckets } from './salt.ts';
import type { KeyFormat } from './data-key.ts';

/**
 * Split points `[0x01] … [B−1]` (binary) or `"01" … hex2(B−1)` (printable). B = 1 → none.
 * HBase region i then holds salt bucket i.
 */
export function planSaltSplits(buckets: number, format: KeyFormat = 'binary'): Buffer[] {
  assertBuckets(buckets);
  const splits: Buffer[] = [];
  for (let salt = 1; salt < buckets; salt++) splits.push(saltPrefix(salt, format));
  return splits;
}

/** A bucket's salt as keys spell it: one byte (binary) or two lowercase hex characters (printable). */
export function saltPrefix(bucket: number, format: KeyFormat): Buffer {
  return format === 'binary' ? Buffer.from([bucket]) : Buffer.from(bucket.toString(16).padStart(2, '0'), 'latin1');
}

/** The salt bucket a data or index key belongs to. */
export function bucketOfKey(key: Buffer, format: KeyFormat = 'binary'): number {
  if (format === 'binary') {
    const salt = key[0];
    if (salt === undefined) throw new KeyError('MALFORMED_KEY', 'empty key has no salt byte');
    return salt;
  }
  const hex = key.length >= 2 ? key.toString('latin1', 0, 2) : '';
  if (!/^[0-9a-f]{2}$/.test(hex)) {
    throw new KeyError('MALFORMED_KEY', 'printable key must start with two lowercase hex salt chars');
  }
  return Number.parseInt(hex, 16);
}

function commonPrefixLength(a: Buffer, b: Buffer): number {
  const max = Math.min(a.length, b.length);
  let i = 0;
  while (i < max && a[i] === b[i]) i++;
  return i;
}

/**
 * Split points for an unsalted table (keys start with the raw UTF-8 id) that cut the sorted, de-duplicated
 * sample of ids into `regions` near-equal parts. Each split point is the shortest prefix of the first id
 * of a part that still sorts after the last id of the previous part, so every sample id (and all its
 * rows, `id‖0x00‖…`) falls entirely in one region. Returns fewer than `regions − 1` points when the
 * sample has fewer distinct ids than regions; strictly increasing, never an empty buffer.
 */
export function planIdPrefixSplits(sampleIds: readonly string[], regions: number): Buffer[] {
  if (!Number.isInteger(regions) || regions < 1) {
    throw new KeyError('INVALID_REGIONS', `regions must be a positive integer, got ${String(regions)}`);
  }
  const sorted = sampleIds.map((id) => Buffer.from(id, 'utf8')).sort((a, b) => Buffer.compare(a, b));
  const distinct = sorted.filter((id, i) => i === 0 || !id.equals(sorted[i - 1] ?? Buffer.alloc(0)));
  const splits: Buffer[] = [];
  for (let k = 1; k < regions; k++) {
    const index = Math.floor((k * distinct.length) / regions);
    const first = distinct[index];
    const previous = distinct[index - 1];
    if (first === undefined || previous === undefined) continue;
    const split = first.subarray(0, commonPrefixLength(previous, first) + 1);
    const last = splits[splits.length - 1];
    if (last === undefined || Buffer.compare(last, split) < 0) splits.push(Buffer.from(split));
  }
  return splits;
}
