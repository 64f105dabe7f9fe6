/**
 * Paged table walks over one small port (HBaseRestClient.scan fits). A long walk never keeps a REST
 * scanner open while its caller works (writes, multi-gets, a throttle's wait): each page is its own
 * short scanner of at most `pageRows` rows, the next one starting just after the last row returned,
 * so no server-side scanner lease can expire under a slow or throttled walk, and the last row of a
 * page is a position a checkpoint can resume from (with `rowAfter`).
 */
import type { ScanOptions } from '../hbase/scanner.ts';
import type { Row } from '../hbase/types.ts';

/** The one HBase call a walk needs. */
export interface ScanPort {
  scan(table: string, opts: ScanOptions): AsyncIterable<Row>;
}

/** The smallest row key after `key`: where a scan resumes just past a row already read. */
export function rowAfter(key: Buffer): Buffer {
  return Buffer.concat([key, Buffer.from([0x00])]);
}

/** The range, page size and scan shape (columns, time range, batch, filter …) of a paged scan. */
export interface PagedScanOptions extends Omit<ScanOptions, 'startRow' | 'limit' | 'pageRows'> {
  readonly startRow: Buffer;
  /** rows per page: the limit of each page's scanner */
  readonly pageRows: number;
  /** also end a page (after a whole row) once it holds this many cells: for pages of wide rows */
  readonly pageCells?: number;
  /** rows (partial rows, with `batch`) per HTTP round trip of each page's scanner */
  readonly rowsPerFetch?: number;
}

/**
 * Pages of at most `pageRows` rows (and, with `pageCells`, ending after the row that reaches that many
 * cells) in key order over [startRow, stopRow) (an empty or absent stopRow: to the end of the table).
 * Rows are whole. Every page is non-empty; the last one is shorter than the limits. The next page is
 * only read when the caller asks for it.
 */
export async function* scanPages(store: ScanPort, table: string, opts: PagedScanOptions): AsyncGenerator<Row[], void, undefined> {
  const { pageRows, pageCells, rowsPerFetch, ...scan } = opts;
  if (!Number.isSafeInteger(pageRows) || pageRows < 1) throw new RangeError(`pageRows must be a positive integer, got ${pageRows}`);
  if (pageCells !== undefined && (!Number.isSafeInteger(pageCells) || pageCells < 1))
    throw new RangeError(`pageCells must be a positive integer, got ${pageCells}`);
  let startRow = opts.startRow;
  for (;;) {
    const page: Row[] = [];
    let cells = 0;
    let full = false;
    for await (const row of store.scan(table, { ...scan, startRow, limit: pageRows, ...(rowsPerFetch === undefined ? {} : { pageRows: rowsPerFetch }) })) {
      page.push(row);
      cells += row.cells.length;
      if (pageCells !== undefined && cells >= pageCells) {
        full = true;
        break; // closes this page's scanner
      }
    }
    const last = page.at(-1);
    if (last === undefined) return;
    yield page;
    if (!full && page.length < pageRows) return;
    startRow = rowAfter(last.row);
  }
}

/** Groups a stream into pages of `size` items (the last one may be shorter), e.g. a merged scan's rows. */
export async function* pagesOf<T>(items: AsyncIterable<T>, size: number): AsyncGenerator<T[], void, undefined> {
  if (!Number.isSafeInteger(size) || size < 1) throw new RangeError(`page size must be a positive integer, got ${size}`);
  let page: T[] = [];
  for await (const item of items) {
    page.push(item);
    if (page.length >= size) {
      yield page;
      page = [];
    }
  }
  if (page.length > 0) yield page;
}
