// The table-administration port: create pre-split tables, reconcile their schema, describe, split
// and drop them. The REST gateway cannot do this; adapters speak to HBase's own Admin API
// (java-admin.ts runs deploy/admin/TableAdmin.java). Keys are Buffers here; encodings are the
// adapter's business.

/** Closed list of failure codes (the Java tool's codes plus the adapter's own): src/errors.ts. */
export { TABLE_ADMIN_ERROR_CODES } from '../errors.ts';
import { ServiceError, TABLE_ADMIN_ERROR_CODES } from '../errors.ts';

export type TableAdminErrorCode = (typeof TABLE_ADMIN_ERROR_CODES)[number];

const RETRIABLE: Readonly<Record<TableAdminErrorCode, boolean>> = {
  ADMIN_BAD_REQUEST: false,
  ADMIN_TABLE_NOT_FOUND: false,
  ADMIN_UNSUPPORTED_COMPRESSION: false,
  ADMIN_IMMUTABLE_ATTR_CONFLICT: false,
  ADMIN_SPLIT_FAILED: false,
  ADMIN_TIMEOUT: true,
  ADMIN_UNAVAILABLE: true,
  ADMIN_HBASE_ERROR: false,
  ADMIN_INTERNAL: false,
  ADMIN_PROTOCOL: false,
  ADMIN_SPAWN_FAILED: false,
};

/** Our code for a code the admin tool answers with (`TIMEOUT` → `ADMIN_TIMEOUT`); an unknown one is ADMIN_HBASE_ERROR. */
export function tableAdminErrorCodeOf(toolCode: unknown): TableAdminErrorCode {
  const code = `ADMIN_${String(toolCode)}`;
  return (TABLE_ADMIN_ERROR_CODES as readonly string[]).includes(code) ? (code as TableAdminErrorCode) : 'ADMIN_HBASE_ERROR';
}

export interface TableAdminErrorDetails {
  readonly table?: string | undefined;
  /** The request field at fault, e.g. `familyAttrs.COMPRESSION` or `splits[3]`. */
  readonly field?: string | undefined;
  /** The last lines the admin tool wrote to stderr (its logs), for diagnosis. */
  readonly stderrTail?: string | undefined;
  readonly cause?: unknown;
}

export class TableAdminError extends ServiceError<TableAdminErrorCode> {
  override readonly name = 'TableAdminError';
  readonly table: string | undefined;
  readonly field: string | undefined;
  readonly stderrTail: string | undefined;

  constructor(code: TableAdminErrorCode, message: string, details: TableAdminErrorDetails = {}) {
    super({ code, message, retriable: RETRIABLE[code], cause: details.cause });
    this.table = details.table;
    this.field = details.field;
    this.stderrTail = details.stderrTail;
  }
}

export type BloomFilterType = 'NONE' | 'ROW' | 'ROWCOL';

/** Column-family settings, spelled as in the HBase shell. Omitted keys are left as they are. */
export interface FamilyAttrs {
  readonly VERSIONS?: number;
  readonly MIN_VERSIONS?: number;
  /** Seconds, counted from the cell timestamp; 'FOREVER' for none. */
  readonly TTL?: number | 'FOREVER';
  readonly BLOOMFILTER?: BloomFilterType;
  /** NONE, GZ, SNAPPY, LZ4, ZSTD, …; fails with ADMIN_UNSUPPORTED_COMPRESSION if the cluster lacks it. */
  readonly COMPRESSION?: string;
  /** NONE, PREFIX, DIFF, FAST_DIFF, ROW_INDEX_V1. */
  readonly DATA_BLOCK_ENCODING?: string;
  readonly BLOCKSIZE?: number;
  readonly IN_MEMORY?: boolean;
  readonly BLOCKCACHE?: boolean;
  /**
   * HBase's corrected delete semantics: a delete marker hides only cells written before it, so a row
   * deleted and then re-put with the same cell timestamp is visible again (index repair, replays).
   */
  readonly NEW_VERSION_BEHAVIOR?: boolean;
  readonly KEEP_DELETED_CELLS?: 'FALSE' | 'TRUE' | 'TTL';
}

export interface EnsureTableRequest {
  readonly table: string;
  readonly family: string;
  /** Split points for a new table (strictly increasing); never applied to an existing table. */
  readonly splits: readonly Buffer[];
  readonly familyAttrs?: FamilyAttrs;
  /** Table metadata such as `tsingest.salt.buckets`, `tsingest.key.format`. */
  readonly tableAttrs?: Readonly<Record<string, string>>;
  /** Keys of tableAttrs that must not change on an existing table (ADMIN_IMMUTABLE_ATTR_CONFLICT). */
  readonly immutableTableAttrs?: readonly string[];
  /** Compute the diff against an existing table without applying it. */
  readonly dryRun?: boolean;
}

export interface AttrChange {
  readonly scope: 'table' | 'family';
  readonly key: string;
  /** null when the attribute (or, for key NAME, the family) did not exist. */
  readonly from: string | null;
  readonly to: string;
}

export interface EnsureTableResult {
  readonly table: string;
  readonly created: boolean;
  /** False only for a dry run against a table that does not exist. */
  readonly exists: boolean;
  readonly dryRun: boolean;
  /** Changes applied to an existing table (or that would be, on a dry run); empty when created. */
  readonly diff: readonly AttrChange[];
  /** Attributes as the cluster reports them after the call (canonical strings). */
  readonly tableAttrs: Readonly<Record<string, string>>;
  readonly familyAttrs: Readonly<Record<string, string>>;
  readonly regionCount: number;
  /** Whether the live region boundaries equal the requested splits (null when none were given). */
  readonly splitsMatch: boolean | null;
}

export interface RegionDescription {
  readonly startKey: Buffer;
  readonly endKey: Buffer;
  readonly name: string;
  readonly encodedName: string;
  /** host:port of the hosting region server, null while unassigned. */
  readonly server: string | null;
}

export interface FamilyDescription {
  readonly name: string;
  readonly attrs: Readonly<Record<string, string>>;
}

export interface TableDescription {
  readonly table: string;
  readonly exists: boolean;
  readonly enabled: boolean;
  readonly tableAttrs: Readonly<Record<string, string>>;
  readonly families: readonly FamilyDescription[];
  /** Sorted by start key. */
  readonly regions: readonly RegionDescription[];
}

export interface TableAdminPort {
  ensureTable(req: EnsureTableRequest): Promise<EnsureTableResult>;
  describe(table: string): Promise<TableDescription>;
  drop(table: string): Promise<void>;
  split(table: string, splitPoint: Buffer): Promise<void>;
  /** Flush, major-compact and wait until no compaction is running or queued (benchmarks, operators). */
  compact(table: string): Promise<void>;
}
