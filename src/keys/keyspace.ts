/**
 * The key layout as one object (pure): salt buckets, data key format, index salt mode and the spread
 * registry's view; built once and injected. Specification: docs/KEYS.md.
 * Design notes: docs/DECISIONS.md#the-keyspace-object
 */
import { decodeKeyOfEitherFormat, encodeDataKeyAt, idPrefixAt, type DecodedDataKey, type KeyFormat } from './data-key.ts';
import {
  decodeIndexKey,
  encodeIndexKey,
  indexSaltOf,
  indexScanRanges,
  type DecodedIndexKey,
  type IndexEntry,
  type IndexSaltMode,
  type TsBounds,
} from './index-key.ts';
import {
  MAX_TS,
  prefixRange,
  prefixStopRow,
  readReverseTs,
  readReverseTsDecimal,
  REVERSE_TS_BYTES,
  REVERSE_TS_DIGITS,
  timeRange,
  type ScanRange,
} from './key-bytes.ts';
import { KeyError } from './key-error.ts';
import {
  decodeMarkedId,
  decodeMarkerKey,
  decodeRollupKey,
  encodeMarkerKey,
  encodeRollupKey,
  encodeTouchKey,
  markerScanRange,
  markerWindowRange,
  rollupScanRange,
  touchScanRange,
  type DecodedMarkerKey,
  type DecodedRollupKey,
  type RollupKeyParts,
} from './rollup-key.ts';
import { assertBuckets, saltOf } from './salt.ts';
import { planSaltSplits, saltPrefix } from './split-planner.ts';
import { bucketSince, kAt, maxK, spreadOffset, type SpreadEntry } from './spread.ts';

export interface KeyLayout {
  readonly buckets: number;
  readonly format: KeyFormat;
  readonly indexSaltMode: IndexSaltMode;
}

/** Where the keyspace looks up an id's spread epochs (the registry snapshot; none in unit tests). */
export interface SpreadLookup {
  entryOf(id: string): SpreadEntry | undefined;
  /** every id with at least one epoch (K > 1 from some ts on) */
  spreadIds(): readonly string[];
}

export const NO_SPREAD: SpreadLookup = { entryOf: () => undefined, spreadIds: () => [] };

/** A registry view over fixed entries (one id's entry read by a tool; tests). */
export function fixedLookup(entries: Readonly<Record<string, SpreadEntry>>): SpreadLookup {
  const map = new Map(Object.entries(entries));
  return { entryOf: (id) => map.get(id), spreadIds: () => [...map].filter(([, e]) => e.epochs.length > 0).map(([id]) => id) };
}

/** One bucket's share of an id's rows: the salt bucket, its spread offset j and the scan range in it. */
export interface BucketRange {
  readonly bucket: number;
  readonly offset: number;
  readonly range: ScanRange;
}

export type DecodedData = DecodedDataKey & {
  readonly format: KeyFormat;
  /** (salt − salt(id)) mod B: 0 for the plain key */
  readonly offset: number;
};

export type DecodedIndex = DecodedIndexKey & {
  /** the spread offset j the index row carries, (salt − salt'(entry)) mod B */
  readonly offset: number;
  /** the data row the hit points at: same id, ts and offset j */
  readonly dataKey: Buffer;
};

export type TableRole = 'data' | 'index' | 'rollup';

export class Keyspace {
  readonly buckets: number;
  readonly format: KeyFormat;
  readonly indexSaltMode: IndexSaltMode;
  readonly spread: SpreadLookup;

  constructor(layout: KeyLayout, spread: SpreadLookup = NO_SPREAD) {
    assertBuckets(layout.buckets);
    this.buckets = layout.buckets;
    this.format = layout.format;
    this.indexSaltMode = layout.indexSaltMode;
    this.spread = spread;
  }

  get layout(): KeyLayout {
    return { buckets: this.buckets, format: this.format, indexSaltMode: this.indexSaltMode };
  }

  /** The same layout over another registry view (tools that read the registry themselves). */
  withSpread(spread: SpreadLookup): Keyspace {
    return new Keyspace(this.layout, spread);
  }

  entryOf(id: string): SpreadEntry | undefined {
    return this.spread.entryOf(id);
  }

  /** Ids whose rows leave their base bucket from some ts before `beforeTs` on (an epoch starts earlier). */
  spreadIdsBefore(beforeTs: number): string[] {
    return this.spread
      .spreadIds()
      .filter((id) => (this.spread.entryOf(id)?.epochs[0]?.since ?? Infinity) < beforeTs)
      .sort();
  }

  /** salt(id): the bucket of the id's plain key (and of its rollup rows). */
  baseSalt(id: string): number {
    return saltOf(id, this.buckets);
  }

  /** The spread offset j of (id, ts): 0 unless an epoch with K > 1 contains ts. */
  offsetOf(id: string, ts: number, entry: SpreadEntry | undefined = this.spread.entryOf(id)): number {
    return entry === undefined ? 0 : spreadOffset(ts, kAt(entry, ts));
  }

  /** The data key of (id, ts), in the bucket its epoch assigns (the plain key for a plain id). */
  dataKey(id: string, ts: number, offset: number = this.offsetOf(id, ts)): Buffer {
    return encodeDataKeyAt({ id, ts }, (saltOf(id, this.buckets) + offset) % this.buckets, this.format);
  }

  /** The salt bucket a data key is in (binary: byte 0; printable: two hex chars). */
  dataBucket(key: Buffer): number {
    if (this.format === 'binary') return key[0] as number;
    return Number.parseInt(key.toString('latin1', 0, 2), 16);
  }

  /** The event ts of a data key of this format, read from its end (a reader that knows the id from the range it scans). */
  dataKeyTs(key: Buffer): number {
    return this.format === 'binary' ? readReverseTs(key, key.length - REVERSE_TS_BYTES) : readReverseTsDecimal(key, key.length - REVERSE_TS_DIGITS);
  }

  /** Bytes of the salt at the front of a data key. */
  get dataSaltBytes(): number {
    return this.format === 'binary' ? 1 : 2;
  }

  /** A data key without its salt (id ‖ 0x00 ‖ reverse ts): the same in every bucket, so merges compare it. */
  dataPosition(key: Buffer): Buffer {
    return key.subarray(this.dataSaltBytes);
  }

  /** Decodes a data key of this format; `offset` says which spread bucket of the id it is in. */
  decodeDataKey(key: Buffer): DecodedData {
    const d = decodeKeyOfEitherFormat(key);
    if (d.format !== this.format)
      throw new KeyError('MALFORMED_KEY', `key ${key.toString('hex')} is a ${d.format} data key, the table holds ${this.format} keys`);
    if (d.salt >= this.buckets) throw new KeyError('MALFORMED_KEY', `key ${key.toString('hex')}: salt ${d.salt} is not a bucket of B=${this.buckets}`);
    return { format: d.format, salt: d.salt, id: d.id, ts: d.ts, offset: (d.salt - saltOf(d.id, this.buckets) + this.buckets) % this.buckets };
  }

  /** Whether a decoded key sits where the registry puts (id, ts): offset j = j(ts, K of its epoch). */
  fits(d: { readonly id: string; readonly ts: number; readonly offset: number }, entry: SpreadEntry | undefined = this.spread.entryOf(d.id)): boolean {
    return d.offset === this.offsetOf(d.id, d.ts, entry);
  }

  /**
   * The scans covering an id's rows with fromTs ≤ ts ≤ toTs: one per bucket its epochs use, each
   * restricted to the times that bucket is in use (bucket offset j from the first epoch with K > j).
   * Newest first within each; ordered by offset. A plain id has one range. Over all time (a latest
   * read) each is the id's whole prefix in its bucket: the id has no rows in bucket j before its epoch,
   * and a prefix range is what the one-request scan takes (src/hbase/table-scan.ts).
   */
  dataRanges(id: string, fromTs = 0, toTs: number = MAX_TS, entry: SpreadEntry | undefined = this.spread.entryOf(id)): BucketRange[] {
    const base = saltOf(id, this.buckets);
    const out: BucketRange[] = [];
    const k = Math.min(kAt(entry, toTs), this.buckets);
    for (let j = 0; j < k; j++) {
      const since = bucketSince(entry, j);
      if (since === null || since > toTs) continue;
      const from = Math.max(fromTs, since);
      const bucket = (base + j) % this.buckets;
      const prefix = idPrefixAt(id, bucket, this.format);
      const range = fromTs === 0 && toTs === MAX_TS ? prefixRange(prefix) : timeRange(prefix, from, toTs, this.format === 'printable');
      out.push({ bucket, offset: j, range });
    }
    return out;
  }

  /** Every bucket an id ever uses (its largest K), for tools that need all of an id's rows. */
  idBuckets(id: string, entry: SpreadEntry | undefined = this.spread.entryOf(id)): number[] {
    const base = saltOf(id, this.buckets);
    return Array.from({ length: Math.min(maxK(entry), this.buckets) }, (_, j) => (base + j) % this.buckets);
  }

  /**
   * An id's rows in one salt bucket whatever the registry says (all of them, or fromTs ≤ ts ≤ toTs):
   * for tools that must find every row of an id, also rows a stale registry copy put in a bucket.
   */
  idRangeIn(id: string, bucket: number, bounds?: TsBounds): ScanRange {
    if (!Number.isInteger(bucket) || bucket < 0 || bucket >= this.buckets)
      throw new KeyError('INVALID_BUCKETS', `bucket ${bucket} is not a bucket of B=${this.buckets}`);
    const prefix = idPrefixAt(id, bucket, this.format);
    return bounds === undefined ? prefixRange(prefix) : timeRange(prefix, bounds.fromTs, bounds.toTs, this.format === 'printable');
  }

  /** Every data row of one salt bucket. */
  bucketRange(bucket: number): ScanRange {
    return prefixRange(saltPrefix(bucket, this.format));
  }

  /** The rest of one bucket after `id`'s rows in it (resume a bucket scan after a completed id). */
  bucketRangeAfter(bucket: number, id: string): ScanRange {
    return { startRow: prefixStopRow(idPrefixAt(id, bucket, this.format)), stopRow: this.bucketRange(bucket).stopRow };
  }

  /** The index key of an entry; `offset` is the spread offset j of its event (the data row's). */
  indexKey(entry: IndexEntry, offset = 0): Buffer {
    return encodeIndexKey(entry, this.buckets, this.indexSaltMode, offset);
  }

  /**
   * Scans for `indexName = value`: one per bucket ('entry' salting, or 'value' salting once any id is
   * spread, since a spread id's index rows leave the value's bucket), else the value's one bucket.
   */
  indexRanges(indexName: string, value: string, bounds?: TsBounds): ScanRange[] {
    const mode: IndexSaltMode = this.indexSaltMode === 'value' && this.spread.spreadIds().length > 0 ? 'entry' : this.indexSaltMode;
    return indexScanRanges(indexName, value, this.buckets, { saltMode: mode, bounds });
  }

  /** Decodes an index key, recovers its spread offset j and the data key it points at (no registry needed). */
  decodeIndexKey(key: Buffer): DecodedIndex {
    const d = decodeIndexKey(key);
    if (d.salt >= this.buckets) throw new KeyError('MALFORMED_KEY', `index key ${key.toString('hex')}: salt ${d.salt} is not a bucket of B=${this.buckets}`);
    const offset = (d.salt - indexSaltOf(d, this.buckets, this.indexSaltMode) + this.buckets) % this.buckets;
    return { ...d, offset, dataKey: this.dataKey(d.id, d.ts, offset) };
  }

  /** Summary row key: always in the id's base bucket, one row per (id, window) whatever K. */
  rollupKey(parts: RollupKeyParts): Buffer {
    return encodeRollupKey(parts, this.buckets);
  }

  rollupRange(id: string, windowSec: number, fromStart: number, toStart: number): ScanRange {
    return rollupScanRange(id, windowSec, { fromStart, toStart }, this.buckets);
  }

  decodeRollupKey(key: Buffer): DecodedRollupKey {
    return decodeRollupKey(key, this.buckets);
  }

  /** The marker row of (id's base bucket, window size, window): its cells name the marked ids. */
  markerKey(parts: RollupKeyParts): Buffer {
    return encodeMarkerKey(parts, this.buckets);
  }

  markerRange(salt: number, windowSec: number, startBefore: number): ScanRange {
    return markerScanRange(salt, windowSec, startBefore, this.buckets);
  }

  /** Markers of one bucket and size whose window starts in [fromStart, startBefore). */
  markerWindowRange(salt: number, windowSec: number, fromStart: number, startBefore: number): ScanRange {
    return markerWindowRange(salt, windowSec, { fromStart, startBefore }, this.buckets);
  }

  decodeMarkerKey(key: Buffer): DecodedMarkerKey {
    return decodeMarkerKey(key, this.buckets);
  }

  /** The touch row of a bucket and ring slot (rollup-key.ts): its cells name the ids written. */
  touchKey(salt: number, slot: number): Buffer {
    return encodeTouchKey(salt, slot, this.buckets);
  }

  /** The touch rows of a bucket whose slot is in [fromSlot, toSlot]. */
  touchRange(salt: number, fromSlot: number, toSlot: number): ScanRange {
    return touchScanRange(salt, { fromSlot, toSlot }, this.buckets);
  }

  /** The id an id cell of a marker row names, checked against the row's bucket. */
  markedId(qualifier: Buffer, salt: number): string {
    return decodeMarkedId(qualifier, salt, this.buckets);
  }

  /** Pre-split points of a table: one region per salt bucket (printable data keys: hex salts). */
  splits(role: TableRole): Buffer[] {
    return planSaltSplits(this.buckets, role === 'data' ? this.format : 'binary');
  }

  /** All salt buckets, 0 … B−1. */
  allBuckets(): number[] {
    return Array.from({ length: this.buckets }, (_, b) => b);
  }
}
