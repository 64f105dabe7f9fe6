// Pure: what the schema doctor knows about a live cluster, gathered by doctor/gather.ts from the REST
// gateway (cluster status, schemas, region maps) and a bounded sample scan. Rules only read this.
import type { TableSchema } from '../hbase/index.ts';
import type { KeyFormat } from '../keys/index.ts';

export interface RegionFacts {
  readonly name: string;
  /** empty = the table's first / last region boundary */
  readonly startKey: Buffer;
  readonly endKey: Buffer;
  /** host:port of the region server holding it */
  readonly server: string;
  /** store file size (MB) from the region load, when the server reported it */
  readonly storefileSizeMB?: number;
  /** write requests since the region opened, from the region load */
  readonly writeRequests?: number;
}

/** The layout a table of this service records in its metadata (`tables apply`). */
export interface ServiceLayout {
  readonly role: 'data' | 'index' | 'rollup' | 'meta';
  readonly buckets: number;
  /** how the salt is spelled in the key: one byte, or two lowercase hex characters */
  readonly saltFormat: KeyFormat;
}

/** From a bounded scan of the table's first rows of every region. */
export interface SampleFacts {
  readonly rows: number;
  readonly cells: number;
  readonly maxCellBytes: number;
  /** the largest cell: where it is */
  readonly maxCellAt?: { readonly row: Buffer; readonly column: string };
  readonly cellsOver1MB: number;
  readonly rowKeyBytes: { readonly avg: number; readonly max: number };
  readonly qualifierBytes: { readonly avg: number; readonly max: number };
}

export interface TableFacts {
  readonly name: string;
  readonly schema: TableSchema;
  readonly regions: readonly RegionFacts[];
  readonly layout?: ServiceLayout;
  readonly sample?: SampleFacts;
  /** writes per region (by region name) since the previous doctor run, when one was recorded */
  readonly writesSinceLastCheck?: ReadonlyMap<string, number>;
}

export interface ServerFacts {
  readonly name: string;
  readonly maxHeapMB: number;
  /** regions it holds, of every table */
  readonly regions: number;
  /** stores (region × family) it holds: one memstore each */
  readonly stores: number;
}

/**
 * The points this service's rollup table counts in its coarsest summaries (closed windows: the open
 * one's raw rows are in the bytes, not here), from a scan of that family bounded by `bound` summaries.
 */
export interface PointCount {
  readonly table: string;
  readonly family: string;
  /** summaries read */
  readonly summaries: number;
  /** the points they count; undefined when the scan stopped at its bound */
  readonly points: number | undefined;
  readonly bound: number;
}

export interface ClusterFacts {
  readonly servers: readonly ServerFacts[];
  readonly tables: readonly TableFacts[];
  /** region server settings the sizing rule needs (the cluster's, or HBase's defaults when unknown) */
  readonly settings: {
    readonly memstoreFlushSizeMB: number;
    readonly globalMemstoreFraction: number;
    /** hbase.regionserver.flush.policy of the servers, when known (else HBase's default, FlushAllLargeStoresPolicy) */
    readonly flushPolicy?: string | undefined;
    /** where these came from, e.g. "HBase defaults" or "hbase-site.xml of the admin tool" */
    readonly source: string;
  };
  /**
   * compression codecs the codec probe found usable (upper case), when probed: tested in the admin
   * tool's JVM, so the servers' codecs only where the tool runs with the servers' HBase installation
   */
  readonly codecsUsable?: readonly string[];
  /** the points the rollup table's summaries count, when a count was asked for and a rollup table checked */
  readonly pointCount?: PointCount;
  /** why the codec probe failed, when one was asked for and failed (codecsUsable is then left out) */
  readonly codecProbeFailure?: string;
}
