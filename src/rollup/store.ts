// The HBase operations the rollup job and the backfill need (HBaseRestClient fits), and a paged scan
// that never keeps a REST scanner open while the caller works: each page is its own short scanner,
// the next one starting just after the last row returned.
import type { CheckSpec, DeleteCell, Row, ScanOptions } from '../hbase/index.ts';
import type { PutRow } from './fold.ts';

export interface RollupStore {
  scan(table: string, opts: ScanOptions): AsyncIterable<Row>;
  put(table: string, rows: readonly PutRow[]): Promise<void>;
  checkAndDelete(table: string, row: Buffer, check: CheckSpec, deleteCells?: readonly DeleteCell[]): Promise<boolean>;
}

export interface PagedScanOptions extends Omit<ScanOptions, 'limit' | 'startRow'> {
  readonly startRow: Buffer;
  readonly pageRows: number;
}

/** The smallest row key after `key`. */
export function rowAfter(key: Buffer): Buffer {
  return Buffer.concat([key, Buffer.from([0x00])]);
}

/** Pages of at most `pageRows` rows in key order over [startRow, stopRow). */
export async function* scanPages(store: RollupStore, table: string, opts: PagedScanOptions): AsyncGenerator<Row[], void, undefined> {
  const { pageRows, ...scan } = opts;
  let startRow = opts.startRow;
  for (;;) {
    const page: Row[] = [];
    for await (const row of store.scan(table, { ...scan, startRow, limit: pageRows })) page.push(row);
    if (page.length > 0) yield page;
    const last = page[page.length - 1];
    if (page.length < pageRows || last === undefined) return;
    startRow = rowAfter(last.row);
  }
}
