/**
 * Reads of one id: its latest events, its events in [from, to) (optionally one metric), its rollups of
 * one window size. An id's events are in the buckets its spread epochs use (one for a plain id, the
 * registry says which: src/keys/keyspace.ts dataRanges); they are merged newest first (merged-scan.ts).
 * Rollups are always one range (one summary row per (id, window), in the id's base bucket). Each page
 * reads limit + 1 rows: the extra row only tells whether a next page exists; its cursor is the merge
 * position of the page's last row, so the next page resumes every bucket right after it.
 */
import { column } from '../hbase/codec.ts';
import type { Row } from '../hbase/types.ts';
import type { ScanRange } from '../keys/index.ts';
import { summaryColumns } from '../rollup/fold.ts';
import { encodeCursor } from './cursor.ts';
import { eventItemOf, rollupItemOf } from './decode.ts';
import { bucketPageRows, mergedRows, resumeRanges, type ScanShape } from '../scans/merged-scan.ts';
import { identityOf } from './params.ts';
import type { EventItem, LatestQuery, PageStream, QuerySpec, QueryStore, RangeQuery, ReadSettings, RollupItem, RollupQuery } from './types.ts';

export { MAX_PAGE_ROWS } from '../scans/merged-scan.ts';

/** One page over `ranges` of `table`, merged by position; `decode` may drop a row by returning null. */
export async function* pagedScan<T>(
  store: QueryStore,
  scan: { readonly table: string; readonly ranges: readonly ScanRange[]; readonly saltBytes: number; readonly shape: ScanShape },
  q: QuerySpec,
  decode: (row: Row) => T | null,
): PageStream<T> {
  const { table, ranges } = scan;
  const o = scan;
  const live = resumeRanges(ranges, o.saltBytes, q.after);
  if (live.length === 0) return { next: null };
  const rows = mergedRows(store, table, live, { saltBytes: o.saltBytes, shape: o.shape, pageRows: bucketPageRows(q.limit, live.length) });
  let last: Buffer | null = null;
  let n = 0;
  try {
    for await (const row of rows) {
      const item = decode(row);
      if (item === null) continue;
      if (n >= q.limit && last !== null) return { next: encodeCursor(identityOf(q), last) };
      yield item;
      n++;
      last = row.row.subarray(o.saltBytes);
    }
  } finally {
    await rows.return(undefined);
  }
  return { next: null };
}

async function idRanges(s: ReadSettings, id: string, fromTs?: number, toTs?: number): Promise<ScanRange[]> {
  const entry = await s.entryFor(id);
  return s.keyspace.dataRanges(id, fromTs, toTs, entry).map((b) => b.range);
}

export async function* readLatest(store: QueryStore, q: LatestQuery, s: ReadSettings): PageStream<EventItem> {
  const ranges = await idRanges(s, q.id);
  const shape = { columns: [column(s.data.family)] };
  return yield* pagedScan(store, { table: s.data.name, ranges, saltBytes: s.keyspace.dataSaltBytes, shape }, q, (row) => eventItemOf(row, s.keyspace));
}

/**
 * The scan shape of a range read: the whole family; with a metric, the region server drops the rows
 * without that metric's cell (the filter) and the reader drops the row's other metrics. Naming the
 * two columns instead (the metric and the tags cell) makes the region server seek column by column
 * in every row, which cost HBase more than reading the few other cells of a row and skipping them.
 */
export function rangeShape(metric: string | null, family: string): ScanShape {
  if (metric === null) return { columns: [column(family)] };
  return {
    columns: [column(family)],
    filter: {
      type: 'SingleColumnValueFilter',
      family: Buffer.from(family),
      qualifier: Buffer.from(metric, 'utf8'),
      op: 'NOT_EQUAL',
      comparator: { type: 'BinaryComparator', value: Buffer.alloc(0) },
      ifMissing: true,
      latestVersion: true,
    },
  };
}

/** The event with only `metric` among its metrics, or null when it lacks it. */
function withMetric(item: EventItem, metric: string): EventItem | null {
  const value = item.metrics[metric];
  if (value === undefined || !Object.hasOwn(item.metrics, metric)) return null;
  return Object.keys(item.metrics).length === 1 ? item : { ...item, metrics: { [metric]: value } };
}

export async function* readRange(store: QueryStore, q: RangeQuery, s: ReadSettings): PageStream<EventItem> {
  if (q.from >= q.to) return { next: null };
  const ranges = await idRanges(s, q.id, q.from, q.to - 1);
  return yield* pagedScan(store, { table: s.data.name, ranges, saltBytes: s.keyspace.dataSaltBytes, shape: rangeShape(q.metric, s.data.family) }, q, (row) => {
    const item = eventItemOf(row, s.keyspace);
    return q.metric === null ? item : withMetric(item, q.metric);
  });
}

export async function* readRollups(store: QueryStore, q: RollupQuery, s: ReadSettings): PageStream<RollupItem> {
  if (q.from >= q.to) return { next: null };
  const range = s.keyspace.rollupRange(q.id, q.window.seconds, q.from, q.to - 1);
  // The size's own family and the main one (summaries from before the per-size families, docs/RETENTION.md)
  // and the blocks: one may stand for its window's summary (window-content.ts)
  const columns = summaryColumns(s.rollup.family, q.window.seconds, q.metric === null ? undefined : [Buffer.from(q.metric, 'utf8')], s.rollup.pointsFamily);
  return yield* pagedScan(store, { table: s.rollup.name, ranges: [range], saltBytes: 1, shape: { columns } }, q, (row) =>
    rollupItemOf(row, { window: q.window, keyspace: s.keyspace, blockFamily: s.rollup.pointsFamily }, q.metric),
  );
}
