// Types shared by the read paths: the parsed queries, the result items, the end-of-page record and
// the small I/O port (three calls of the HBase REST client) the reads go through.
import type { Row, ScanOptions } from '../hbase/index.ts';
import type { Keyspace, RollupTableRef, SpreadEntry, TableRef } from '../keys/index.ts';
import type { WindowSize } from '../rollup/windows.ts';

export type { QueryKind } from './meters.ts';

/** What the reads need from HBase; the REST client satisfies it, unit tests pass a fake. */
export interface QueryStore {
  scan(table: string, options: ScanOptions): AsyncIterable<Row>;
  multiGet(table: string, rows: readonly Buffer[], options: { readonly columns?: readonly Buffer[] }): Promise<(Row | null)[]>;
  deleteRow(table: string, row: Buffer): Promise<void>;
}

interface QueryCommon {
  /** effective page size (the requested one capped at query.maxLimit) */
  readonly limit: number;
  /** the position after which this page starts (from the cursor), or null for the first page */
  readonly after: Buffer | null;
}

export interface LatestQuery extends QueryCommon {
  readonly kind: 'latest';
  readonly id: string;
}

/** [from, to): from inclusive, to exclusive (epoch ms). */
export interface RangeQuery extends QueryCommon {
  readonly kind: 'range';
  readonly id: string;
  readonly from: number;
  readonly to: number;
  readonly metric: string | null;
}

export interface ByTagQuery extends QueryCommon {
  readonly kind: 'by_tag';
  readonly tag: string;
  readonly value: string;
  readonly from: number;
  readonly to: number;
}

/** Windows whose start lies in [from, to). */
export interface RollupQuery extends QueryCommon {
  readonly kind: 'rollups';
  readonly id: string;
  readonly window: WindowSize;
  readonly from: number;
  readonly to: number;
  readonly metric: string | null;
}

export type QuerySpec = LatestQuery | RangeQuery | ByTagQuery | RollupQuery;

export interface EventItem {
  readonly id: string;
  readonly ts: number;
  /** ISO-8601 UTC of ts */
  readonly time: string;
  readonly metrics: Readonly<Record<string, number>>;
  readonly tags: Readonly<Record<string, string>>;
}

export interface MetricRollup {
  readonly count: number;
  readonly sum: number;
  readonly min: number;
  readonly max: number;
  /** sum / count; null when count is 0 */
  readonly mean: number | null;
  readonly first: number;
  readonly firstTs: number;
  readonly last: number;
  readonly lastTs: number;
}

export interface RollupItem {
  readonly id: string;
  /** the window size as configured, e.g. "1h" */
  readonly window: string;
  readonly windowStart: number;
  /** exclusive */
  readonly windowEnd: number;
  readonly metrics: Readonly<Record<string, MetricRollup>>;
}

export type ItemOf<S extends QuerySpec> = S extends RollupQuery ? RollupItem : EventItem;
export type QueryItem = EventItem | RollupItem;

export interface PageEnd {
  /** cursor of the next page; null only when there is nothing more */
  readonly next: string | null;
  /** by-tag reads: index hits dropped on this page because their data row is gone or changed */
  readonly dangling?: number;
}

/** A page as an async generator: yields the items, returns the end record. */
export type PageStream<T> = AsyncGenerator<T, PageEnd, undefined>;

/** Settings the reads take from the configuration. */
export interface ReadSettings {
  readonly keyspace: Keyspace;
  /**
   * An id's spread epochs as of now, for reads by id (the registry row itself, not a snapshot, so a
   * read never misses a bucket a promotion just added).
   */
  readonly entryFor: (id: string) => Promise<SpreadEntry | undefined>;
  readonly data: TableRef;
  readonly index: TableRef;
  /** its point blocks too: a block may stand for its window's summary (window-content.ts) */
  readonly rollup: RollupTableRef;
  readonly bucketConcurrency: number;
  readonly verifyChunk: number;
  /** hits verified per chunk by range scans when a page holds more than verifyChunk */
  readonly verifyScanChunk: number;
  readonly repairDangling: boolean;
  readonly danglingGraceMs: number;
}
