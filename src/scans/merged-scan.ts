/**
 * Reads that merge forward scans over one table, one per salt bucket they touch, by the key after the
 * salt; a repeated position is dropped.
 * Design notes: docs/DECISIONS.md#merged-scans
 */
import type { Row } from '../hbase/types.ts';
import type { ScanOptions } from '../hbase/scanner.ts';
import type { ScanRange } from '../keys/index.ts';
import { limitIterator, type Limiter } from '../toolkit/limiter.ts';
import { mergeSorted } from './merge.ts';
import { rowAfter, type ScanPort } from './paged-scan.ts';

/** Rows asked per scanner page at most (a page of the read may need more pages). */
export const MAX_PAGE_ROWS = 1000;

export type ScanShape = Omit<ScanOptions, 'startRow' | 'stopRow' | 'limit' | 'pageRows'>;

/** Rows per scanner page of one of `ranges` scans: about twice its share of the page, at least 16 (all of it for one scan). */
export function bucketPageRows(limit: number, ranges: number): number {
  if (ranges <= 1) return Math.min(limit + 1, MAX_PAGE_ROWS);
  return Math.min(limit + 1, MAX_PAGE_ROWS, Math.max(16, 2 * Math.ceil((limit + 1) / ranges)));
}

function isEmpty(r: ScanRange): boolean {
  return r.stopRow.length > 0 && Buffer.compare(r.startRow, r.stopRow) >= 0;
}

/**
 * The ranges resumed just after the merge position `after` (null: unchanged). Each keeps its salt
 * (the first `saltBytes` of its start row); a range whose rows all lie before the position is dropped.
 */
export function resumeRanges(ranges: readonly ScanRange[], saltBytes: number, after: Buffer | null): ScanRange[] {
  const out: ScanRange[] = [];
  for (const r of ranges) {
    let range = r;
    if (after !== null) {
      const resumeAt = rowAfter(Buffer.concat([r.startRow.subarray(0, saltBytes), after]));
      if (Buffer.compare(resumeAt, r.startRow) > 0) range = { startRow: resumeAt, stopRow: r.stopRow };
    }
    if (!isEmpty(range)) out.push(range);
  }
  return out;
}

export interface MergedScanOptions {
  /** bytes of salt at the front of every key (1; 2 for printable data keys) */
  readonly saltBytes: number;
  /** rows per scanner page (omitted: the scanner's default, for scans read to the end) */
  readonly pageRows?: number | undefined;
  readonly shape: ScanShape;
  /** bounds the scanner requests in flight over all ranges */
  readonly limiter?: Limiter | undefined;
}

/** The rows of all ranges, merged by position (key after the salt), duplicates dropped. */
export function mergedRows(store: ScanPort, table: string, ranges: readonly ScanRange[], o: MergedScanOptions): AsyncGenerator<Row, void, undefined> {
  const sources = ranges.map((r) => {
    const scan = store.scan(table, { ...o.shape, startRow: r.startRow, stopRow: r.stopRow, ...(o.pageRows === undefined ? {} : { pageRows: o.pageRows }) });
    const it = scan[Symbol.asyncIterator]();
    return o.limiter === undefined ? it : limitIterator(it, o.limiter);
  });
  const position = (row: Row): Buffer => row.row.subarray(o.saltBytes);
  return mergeSorted(sources, (a, b) => Buffer.compare(position(a), position(b)), { distinct: true });
}
