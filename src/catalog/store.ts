// Reads the series catalog (rows.ts) from the meta table: one prefix scan of "series/" (every series)
// or of "series/" ‖ metric ‖ 0x00 (one metric), through a port of its own (HBaseRestClient.scan fits).
// Rows that do not decode (another layout, a damaged cell) are counted and skipped, never served.
import { decodeSeriesRow, GENERATION_QUALIFIER, GENERATION_ROW, metricRange, SERIES_QUALIFIER, SERIES_RANGE, type Series } from './rows.ts';

/** The HBase reads the catalog needs: a range scan of whole rows, and one row (its generation). */
export interface CatalogScanPort {
  scan(
    table: string,
    opts: { readonly startRow: Buffer; readonly stopRow: Buffer; readonly batch?: number; readonly timeRange?: { readonly from: number; readonly to: number } },
  ): AsyncIterable<CatalogScanRow>;
  get(table: string, row: Buffer): Promise<CatalogScanRow | null>;
}

export interface CatalogScanRow {
  readonly row: Buffer;
  readonly cells: readonly { readonly qualifier: Buffer; readonly value: Buffer }[];
}

export interface CatalogStoreOptions {
  /** tables.meta.name */
  readonly table: string;
}

export interface CatalogRead {
  readonly series: Series[];
  /** rows under the prefix that are not well-formed series rows */
  readonly skipped: number;
}

/** Cells per scanner response: a catalog row has one cell. */
const SCAN_BATCH = 5000;

export class CatalogStore {
  readonly #port: CatalogScanPort;
  readonly #table: string;

  constructor(port: CatalogScanPort, options: CatalogStoreOptions) {
    this.#port = port;
    this.#table = options.table;
  }

  /**
   * Every series in the catalog, or those of one metric; with `sinceMs`, only the rows written (cell
   * timestamp = the writer's clock) at or after it: a reread of what is new.
   */
  async read(metric?: string, sinceMs?: number): Promise<CatalogRead> {
    const range = metric === undefined ? SERIES_RANGE : metricRange(metric);
    const series: Series[] = [];
    let skipped = 0;
    const timeRange = sinceMs === undefined ? {} : { timeRange: { from: Math.max(0, Math.floor(sinceMs)), to: Number.MAX_SAFE_INTEGER } };
    for await (const row of this.#port.scan(this.#table, { startRow: range.startRow, stopRow: range.stopRow, batch: SCAN_BATCH, ...timeRange })) {
      const cell = row.cells.find((c) => c.qualifier.equals(SERIES_QUALIFIER));
      const s = cell === undefined ? undefined : decodeSeriesRow(row.row, cell.value);
      if (s === undefined) skipped++;
      else series.push(s);
    }
    return { series, skipped };
  }

  /** The catalog's generation token (rows.ts GENERATION_ROW) as hex; undefined when no writer has written one. */
  async generation(): Promise<string | undefined> {
    const row = await this.#port.get(this.#table, GENERATION_ROW);
    return row?.cells.find((c) => c.qualifier.equals(GENERATION_QUALIFIER))?.value.toString('hex');
  }
}
