/**
 * Reads that are one forward scan of one salt bucket: the latest events of an id, an id's events in
 * [from, to) (optionally one metric), an id's rollups of one window size. Each page asks the
 * scanner for limit + 1 rows in small pages: the extra row only tells whether a next page exists
 * (its cursor is the page's last row key, so the next page starts right after it: no gap, no repeat).
 */
import { TAGS_QUALIFIER } from '../events/cells.ts';
import { column } from '../hbase/codec.ts';
import type { ScanOptions } from '../hbase/scanner.ts';
import type { Row } from '../hbase/types.ts';
import { idScanRange, idTimeRange, rollupScanRange, type ScanRange } from '../keys/index.ts';
import { encodeCursor, rowAfter } from './cursor.ts';
import { eventItemOf, rollupItemOf } from './decode.ts';
import { identityOf } from './params.ts';
import { QueryError } from './query-error.ts';
import type { EventItem, LatestQuery, PageStream, QuerySpec, QueryStore, RangeQuery, ReadSettings, RollupItem, RollupQuery } from './types.ts';

/** Rows asked per scanner page at most (a page of the read may need more pages). */
export const MAX_PAGE_ROWS = 1000;

/** Starts `range` just after the cursor position, which must lie inside it. */
export function resumeRange(range: ScanRange, after: Buffer | null): ScanRange {
  if (after === null) return range;
  const beforeStart = Buffer.compare(after, range.startRow) < 0;
  const pastStop = range.stopRow.length > 0 && Buffer.compare(after, range.stopRow) >= 0;
  if (beforeStart || pastStop) throw new QueryError('bad_cursor', 'cursor', 'cursor position lies outside the range of this query');
  return { startRow: rowAfter(after), stopRow: range.stopRow };
}

type ScanShape = Omit<ScanOptions, 'startRow' | 'stopRow' | 'limit' | 'pageRows'>;

/** One page of a single forward scan; `decode` may drop a row by returning null. */
export async function* pagedScan<T>(
  store: QueryStore,
  table: string,
  range: ScanRange,
  shape: ScanShape,
  q: QuerySpec,
  decode: (row: Row) => T | null,
): PageStream<T> {
  if (range.stopRow.length > 0 && Buffer.compare(range.startRow, range.stopRow) >= 0) return { next: null };
  let last: Buffer | null = null;
  let n = 0;
  const rows = store.scan(table, { ...shape, startRow: range.startRow, stopRow: range.stopRow, pageRows: Math.min(q.limit + 1, MAX_PAGE_ROWS) });
  for await (const row of rows) {
    const item = decode(row);
    if (item === null) continue;
    if (n >= q.limit && last !== null) return { next: encodeCursor(identityOf(q), last) };
    yield item;
    n++;
    last = row.row;
  }
  return { next: null };
}

export function readLatest(store: QueryStore, q: LatestQuery, s: ReadSettings): PageStream<EventItem> {
  const range = resumeRange(idScanRange(q.id, s.buckets, s.keyFormat), q.after);
  return pagedScan(store, s.data.name, range, { columns: [column(s.data.family)] }, q, (row) => eventItemOf(row, s.keyFormat, s.buckets));
}

/** The scan shape of a range read: with a metric, only that metric's cell and the tags cell. */
export function rangeShape(metric: string | null, family: string): ScanShape {
  if (metric === null) return { columns: [column(family)] };
  const qualifier = Buffer.from(metric, 'utf8');
  return {
    columns: [column(family, qualifier), column(family, TAGS_QUALIFIER)],
    // rows that carry only the tags cell are dropped by the region server already
    filter: { type: 'SingleColumnValueFilter', family: Buffer.from(family), qualifier, op: 'NOT_EQUAL', comparator: { type: 'BinaryComparator', value: Buffer.alloc(0) }, ifMissing: true, latestVersion: true },
  };
}

export async function* readRange(store: QueryStore, q: RangeQuery, s: ReadSettings): PageStream<EventItem> {
  if (q.from >= q.to) return { next: null };
  const range = resumeRange(idTimeRange(q.id, q.from, q.to - 1, s.buckets, s.keyFormat), q.after);
  return yield* pagedScan(store, s.data.name, range, rangeShape(q.metric, s.data.family), q, (row) => {
    const item = eventItemOf(row, s.keyFormat, s.buckets);
    return q.metric === null || Object.hasOwn(item.metrics, q.metric) ? item : null;
  });
}

export async function* readRollups(store: QueryStore, q: RollupQuery, s: ReadSettings): PageStream<RollupItem> {
  if (q.from >= q.to) return { next: null };
  const range = resumeRange(rollupScanRange(q.id, q.window.seconds, q.from, q.to - 1, s.buckets), q.after);
  const columns = [q.metric === null ? column(s.rollup.family) : column(s.rollup.family, Buffer.from(q.metric, 'utf8'))];
  return yield* pagedScan(store, s.rollup.name, range, { columns }, q, (row) => rollupItemOf(row, q.window, s.buckets, q.metric));
}
