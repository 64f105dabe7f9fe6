// Reads the series catalog (rows.ts) from the meta table: one prefix scan of "series/" (every series)
// or of "series/" ‖ metric ‖ 0x00 (one metric), through a port of its own (HBaseRestClient.scan fits).
// Rows that do not decode (another layout, a damaged cell) are counted and skipped, never served.
import {
  decodeSeriesRow,
  GENERATION_QUALIFIER,
  GENERATION_ROW,
  JOURNALED_QUALIFIER,
  journalRanges,
  metricRange,
  SERIES_QUALIFIER,
  SERIES_RANGE,
  type Series,
} from './rows.ts';

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
  readonly cells: readonly { readonly qualifier: Buffer; readonly value: Buffer; readonly timestamp: number }[];
}

export interface CatalogStoreOptions {
  /** tables.meta.name */
  readonly table: string;
}

/** The catalog's generation as read: the token, and whether its writer keeps the journal. */
export interface CatalogGeneration {
  readonly token: string;
  readonly journaled: boolean;
}

export interface CatalogRead {
  readonly series: Series[];
  /** rows under the prefix that are not well-formed series rows */
  readonly skipped: number;
}

/**
 * The journal cells a reader was given (series row key as latin1 → the cell's stamp): each rereads the
 * slack before its last read, and a cell given once is not decoded and given again (a series written
 * again has a new stamp, so it is). CatalogStore.journal keeps it, dropping what its reads no longer reach.
 */
export type JournalSeen = Map<string, number>;

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
    const timeRange = sinceMs === undefined ? {} : { timeRange: { from: Math.max(0, Math.floor(sinceMs)), to: Number.MAX_SAFE_INTEGER } };
    const series: Series[] = [];
    let skipped = 0;
    for await (const r of this.#rows({ startRow: range.startRow, stopRow: range.stopRow, batch: SCAN_BATCH, ...timeRange })) {
      if (r.series === undefined) skipped++;
      else series.push(r.series);
    }
    return { series, skipped };
  }

  /**
   * The first `limit` well-formed series rows of the catalog, in key order (metric, then id), each with
   * its cell (the canonical tags JSON), as the scan's pages arrive.
   */
  async *first(limit: number): AsyncGenerator<{ readonly series: Series; readonly cell: Buffer }, void, undefined> {
    let n = 0;
    if (limit <= 0) return;
    for await (const r of this.#rows({ ...SERIES_RANGE, batch: SCAN_BATCH })) {
      if (r.series === undefined || r.cell === undefined) continue;
      yield { series: r.series, cell: r.cell };
      if (++n >= limit) return;
    }
  }

  /** Each row of a series scan with its series cell and what it decodes to (undefined: not a well-formed series row). */
  async *#rows(opts: Parameters<CatalogScanPort['scan']>[1]): AsyncGenerator<{ readonly series: Series | undefined; readonly cell: Buffer | undefined }> {
    for await (const row of this.#port.scan(this.#table, opts)) {
      const cell = row.cells.find((c) => c.qualifier.equals(SERIES_QUALIFIER))?.value;
      yield { series: cell === undefined ? undefined : decodeSeriesRow(row.row, cell), cell };
    }
  }

  /**
   * The series the journal (rows.ts JOURNAL_PREFIX) says were written at or after `sinceMs` (cell
   * timestamps, the writers' clocks) up to `nowMs` and a minute past it: the rows of those minutes
   * alone, not every series row. Cells that do not decode are counted and skipped.
   */
  async journal(sinceMs: number, nowMs: number, seen?: JournalSeen): Promise<CatalogRead> {
    const series: Series[] = [];
    let skipped = 0;
    const from = Math.max(0, Math.floor(sinceMs));
    if (seen !== undefined) for (const [k, stamp] of seen) if (stamp < from) seen.delete(k); // no read from `from` on returns them
    for (const range of journalRanges(from, nowMs + 60_000)) {
      for await (const row of this.#port.scan(this.#table, { ...range, batch: SCAN_BATCH, timeRange: { from, to: Number.MAX_SAFE_INTEGER } })) {
        for (const cell of row.cells) {
          if (cell.timestamp < from) continue; // yesterday's, in a row reused daily
          if (seen !== undefined) {
            const k = cell.qualifier.toString('latin1');
            if (seen.get(k) === cell.timestamp) continue; // the same cell as a read before returned
            seen.set(k, cell.timestamp);
          }
          const s = decodeSeriesRow(cell.qualifier, cell.value);
          if (s === undefined) skipped++;
          else series.push(s);
        }
      }
    }
    return { series, skipped };
  }

  /**
   * The catalog's generation (rows.ts GENERATION_ROW): its token as hex, and whether the writer that
   * put it keeps the journal (its `j` cell holds the same token); undefined when no writer has written one.
   */
  async generation(): Promise<CatalogGeneration | undefined> {
    const row = await this.#port.get(this.#table, GENERATION_ROW);
    const g = row?.cells.find((c) => c.qualifier.equals(GENERATION_QUALIFIER))?.value;
    if (g === undefined) return undefined;
    const j = row?.cells.find((c) => c.qualifier.equals(JOURNALED_QUALIFIER))?.value;
    return { token: g.toString('hex'), journaled: j !== undefined && j.equals(g) };
  }
}
