/**
 * Secondary index key codec and its salt modes ('entry', 'value'). Specification: docs/KEYS.md,
 * "Secondary index key".
 * Design notes: docs/DECISIONS.md#index-keys
 */
import { REVERSE_TS_BYTES, assertTs, decodeUtf8, idByteLength, prefixRange, readReverseTs, timeRange, writeReverseTsAt, type ScanRange } from './key-bytes.ts';
import { KeyError } from './key-error.ts';
import { assertBuckets, md5Bucket, memoBucket } from './salt.ts';

export const INDEX_SALT_MODES = ['entry', 'value'] as const;
export type IndexSaltMode = (typeof INDEX_SALT_MODES)[number];
export const DEFAULT_INDEX_SALT_MODE: IndexSaltMode = 'entry';

export type IndexEntry = {
  readonly indexName: string;
  readonly value: string;
  readonly ts: number;
  readonly id: string;
};
export type DecodedIndexKey = IndexEntry & { readonly salt: number };
export type TsBounds = { readonly fromTs: number; readonly toTs: number };

const NUL = Buffer.from([0x00]);

/** Validates one text part of an index key; returns its UTF-8 length. */
function checkPart(text: string, name: 'indexName' | 'value'): number {
  if (typeof text !== 'string') {
    throw new KeyError('INVALID_INDEX_PART', `${name} must be a string`);
  }
  if (name === 'indexName' && text.length === 0) {
    throw new KeyError('INVALID_INDEX_PART', 'indexName must not be empty');
  }
  if (text.includes('\u0000')) {
    throw new KeyError('INVALID_INDEX_PART', `${name} must not contain a NUL (0x00) character`);
  }
  if (!text.isWellFormed()) {
    throw new KeyError('INVALID_INDEX_PART', `${name} contains a lone surrogate (not representable in UTF-8)`);
  }
  return Buffer.byteLength(text, 'utf8');
}

function encodePart(text: string, name: 'indexName' | 'value'): Buffer {
  checkPart(text, name);
  return Buffer.from(text, 'utf8');
}

function assertSaltMode(mode: IndexSaltMode): void {
  if (!(INDEX_SALT_MODES as readonly string[]).includes(mode)) {
    throw new KeyError('INVALID_SALT_MODE', `saltMode must be one of ${INDEX_SALT_MODES.join(', ')}, got ${mode}`);
  }
}

/** MD5 input of salt' as text: its UTF-8 bytes are name ‖ 0x00 ‖ value [‖ 0x00 ‖ id] (parts checked). */
function saltText(name: string, value: string, id: string | null): string {
  return id === null ? `${name}\u0000${value}` : `${name}\u0000${value}\u0000${id}`;
}

function saltFromParts(name: Buffer, value: Buffer, id: Buffer | null, buckets: number): number {
  const parts = id === null ? [name, NUL, value] : [name, NUL, value, NUL, id];
  return md5Bucket(Buffer.concat(parts), buckets);
}

/** The salt' of an index entry under the given mode (the id is ignored in 'value' mode). */
export function indexSaltOf(entry: Pick<IndexEntry, 'indexName' | 'value' | 'id'>, buckets: number, saltMode: IndexSaltMode = DEFAULT_INDEX_SALT_MODE): number {
  assertSaltMode(saltMode);
  checkPart(entry.indexName, 'indexName');
  checkPart(entry.value, 'value');
  if (saltMode === 'entry') idByteLength(entry.id);
  return memoBucket(saltText(entry.indexName, entry.value, saltMode === 'entry' ? entry.id : null), buckets);
}

/**
 * One allocation per key; salt' from the memo in salt.ts. `offset` is the spread offset j of the
 * event (docs/KEYS.md, spread keys): the key goes to bucket (salt' + j) mod B; 0 for a plain id.
 */
export function encodeIndexKey(entry: IndexEntry, buckets: number, saltMode: IndexSaltMode = DEFAULT_INDEX_SALT_MODE, offset = 0): Buffer {
  assertSaltMode(saltMode);
  assertTs(entry.ts);
  const { indexName, value, id } = entry;
  const nameLen = checkPart(indexName, 'indexName');
  const valueLen = checkPart(value, 'value');
  const idLen = idByteLength(id);
  const salt = (memoBucket(saltText(indexName, value, saltMode === 'entry' ? id : null), buckets) + offset) % buckets;
  const key = Buffer.allocUnsafe(1 + nameLen + 1 + valueLen + 1 + REVERSE_TS_BYTES + idLen);
  key[0] = salt;
  let pos = 1 + key.write(indexName, 1, 'utf8');
  key[pos++] = 0x00;
  pos += key.write(value, pos, 'utf8');
  key[pos++] = 0x00;
  pos = writeReverseTsAt(key, pos, entry.ts);
  key.write(id, pos, 'utf8');
  return key;
}

/** Decodes an index key; pass `buckets` (and the mode) to also verify salt'. */
export function decodeIndexKey(key: Buffer, buckets?: number, saltMode: IndexSaltMode = DEFAULT_INDEX_SALT_MODE): DecodedIndexKey {
  const hex = (): string => key.toString('hex'); // for error messages only
  const nameEnd = key.indexOf(0x00, 1);
  if (key.length < 1 || nameEnd <= 1) {
    throw new KeyError('MALFORMED_KEY', `index key ${hex()}: missing or empty indexName before 0x00`);
  }
  const valueEnd = key.indexOf(0x00, nameEnd + 1);
  if (valueEnd < 0) {
    throw new KeyError('MALFORMED_KEY', `index key ${hex()}: no 0x00 terminator after the value`);
  }
  const idStart = valueEnd + 1 + REVERSE_TS_BYTES;
  if (key.length <= idStart) {
    throw new KeyError('MALFORMED_KEY', `index key ${hex()}: too short for an 8-byte reverse ts and an id`);
  }
  const idBytes = key.subarray(idStart);
  if (idBytes.includes(0x00)) {
    throw new KeyError('MALFORMED_KEY', `index key ${hex()}: id contains 0x00`);
  }
  const decoded: DecodedIndexKey = {
    salt: key[0] ?? 0,
    indexName: decodeUtf8(key.subarray(1, nameEnd), () => `indexName of index key ${hex()}`),
    value: decodeUtf8(key.subarray(nameEnd + 1, valueEnd), () => `value of index key ${hex()}`),
    ts: readReverseTs(key, valueEnd + 1),
    id: decodeUtf8(idBytes, () => `id of index key ${hex()}`),
  };
  if (buckets !== undefined) {
    const expected = indexSaltOf(decoded, buckets, saltMode);
    if (expected !== decoded.salt) {
      throw new KeyError('MALFORMED_KEY', `index key ${hex()}: salt ${decoded.salt} does not match ${expected} (buckets=${buckets}, saltMode=${saltMode})`);
    }
  }
  return decoded;
}

/**
 * Scan ranges for `indexName = value` (optionally fromTs ≤ ts ≤ toTs): one per bucket in 'entry'
 * mode (fan out and merge by time), a single one in 'value' mode. Ordered by bucket.
 */
export function indexScanRanges(
  indexName: string,
  value: string,
  buckets: number,
  opts: { readonly saltMode?: IndexSaltMode; readonly bounds?: TsBounds | undefined } = {},
): ScanRange[] {
  const { saltMode = DEFAULT_INDEX_SALT_MODE, bounds } = opts;
  assertBuckets(buckets);
  assertSaltMode(saltMode);
  const name = encodePart(indexName, 'indexName');
  const valueBytes = encodePart(value, 'value');
  const body = Buffer.concat([name, NUL, valueBytes, NUL]);
  const salts = saltMode === 'value' ? [saltFromParts(name, valueBytes, null, buckets)] : Array.from({ length: buckets }, (_, salt) => salt);
  return salts.map((salt) => {
    const prefix = Buffer.concat([Buffer.from([salt]), body]);
    return bounds === undefined ? prefixRange(prefix) : timeRange(prefix, bounds.fromTs, bounds.toTs, false);
  });
}
