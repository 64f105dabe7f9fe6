// Public data types of the HBase REST client. Row keys, columns and values are Buffers everywhere;
// a column is `family:qualifier` (or just `family` where a whole family is meant).

export interface Cell {
  /** `family:qualifier` bytes. */
  column: Buffer;
  family: Buffer;
  qualifier: Buffer;
  /** Milliseconds (HBase cell timestamp). */
  timestamp: number;
  value: Buffer;
}

export interface Row {
  row: Buffer;
  cells: Cell[];
}

export interface CellInput {
  /** `family:qualifier` bytes. */
  column: Buffer;
  value: Buffer;
  /** Explicit cell timestamp (ms); omitted → the region server's current time. */
  timestamp?: number;
}

export interface RowCells {
  row: Buffer;
  cells: readonly CellInput[];
}

/** Half-open timestamp range [from, to), as in HBase's TimeRange. */
export interface TimeRange {
  from: number;
  to: number;
}

export interface CallOptions {
  /** Overrides the client's defaultDeadlineMs for this call (for scans: per HTTP round trip). */
  deadlineMs?: number;
}

export interface GetOptions extends CallOptions {
  /** `family` or `family:qualifier` entries; omitted → all columns. */
  columns?: readonly Buffer[];
  timeRange?: TimeRange;
  /** Versions per column to return (default 1). */
  maxVersions?: number;
}

export interface Region {
  table: string;
  /** Full region name, e.g. `t,,1795317576828.e4bc….` */
  name: string;
  id: number;
  /** Empty Buffer = table start / end. */
  startKey: Buffer;
  endKey: Buffer;
  /** host:port of the hosting region server. */
  location: string;
}

export type AttributeValue = string | number | boolean;

export interface ColumnFamilySchema {
  name: string;
  /** HBase descriptor keys, e.g. VERSIONS, TTL, COMPRESSION, BLOOMFILTER, IN_MEMORY, BLOCKSIZE. */
  attributes: Record<string, string>;
}

export interface TableSchema {
  name: string;
  families: ColumnFamilySchema[];
  /** Table-level attributes / metadata (e.g. IS_META, hbase.store.file-tracker.impl, custom keys). */
  attributes: Record<string, string>;
}

export interface ColumnFamilySchemaInput {
  name: string;
  attributes?: Readonly<Record<string, AttributeValue>>;
}

export interface TableSchemaInput {
  name: string;
  families: readonly ColumnFamilySchemaInput[];
  attributes?: Readonly<Record<string, AttributeValue>>;
}

export interface RegionLoad {
  /** Region name bytes. */
  name: Buffer;
  stores: number;
  storefiles: number;
  storefileSizeMB: number;
  memStoreSizeMB: number;
  readRequestsCount: number;
  writeRequestsCount: number;
}

export interface LiveNode {
  name: string;
  startCode: number;
  requests: number;
  heapSizeMB: number;
  maxHeapSizeMB: number;
  regions: RegionLoad[];
}

export interface ClusterStatus {
  liveNodes: LiveNode[];
  deadNodes: string[];
  regions: number;
  requests: number;
  averageLoad: number;
}
