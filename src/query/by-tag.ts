/**
 * Events by an indexed tag value in [from, to): one index scan per salt bucket ('entry' salting; one
 * scan for 'value' salting), merged newest first by the index key after the salt byte (reverse ts,
 * then id: the same order in every bucket, unique per entry), stopping as soon as the page is full.
 * Each hit is verified against the data table with multi-gets of query.verifyChunk rows; dangling
 * hits are dropped, counted and, when query.repairDangling is on and the event is older than
 * query.danglingGraceMs, deleted from the index. At most query.bucketConcurrency scanner requests are
 * in flight; each bucket reads small pages, so a page of N items reads about N index rows in total.
 */
import type { Logger } from 'pino';
import { column } from '../hbase/codec.ts';
import type { Row } from '../hbase/types.ts';
import { indexScanRanges, type ScanRange } from '../keys/index.ts';
import type { ReadMetrics } from '../metrics/read-metrics.ts';
import { encodeCursor } from './cursor.ts';
import { createLimiter, limitIterator } from './limiter.ts';
import { mergeSorted } from './merge.ts';
import { identityOf } from './params.ts';
import { MAX_PAGE_ROWS, resumeRange } from './scan-reads.ts';
import type { ByTagQuery, EventItem, PageStream, QueryStore, ReadSettings } from './types.ts';
import { hitOf, mayRepair, verifyHits, type IndexHit } from './verify.ts';

export interface ByTagContext {
  readonly now: () => number;
  readonly metrics?: ReadMetrics | undefined;
  readonly log?: Pick<Logger, 'warn'> | undefined;
}

/** The per-bucket scan ranges of a by-tag page, each resumed after the cursor position. */
export function byTagRanges(q: ByTagQuery, s: ReadSettings): ScanRange[] {
  const ranges = indexScanRanges(q.tag, q.value, s.buckets, s.saltMode, { fromTs: q.from, toTs: q.to - 1 });
  const { after } = q;
  const resumed = after === null ? ranges : ranges.map((r) => resumeRange(r, Buffer.concat([r.startRow.subarray(0, 1), after])));
  return resumed.filter((r) => r.stopRow.length === 0 || Buffer.compare(r.startRow, r.stopRow) < 0);
}

/** Rows per scanner page of one bucket: about twice its share of the page, at least 16. */
export function bucketPageRows(limit: number, buckets: number): number {
  return Math.min(limit + 1, MAX_PAGE_ROWS, Math.max(16, 2 * Math.ceil((limit + 1) / Math.max(1, buckets))));
}

const byMergePosition = (a: Row, b: Row): number => Buffer.compare(a.row.subarray(1), b.row.subarray(1));

async function settle(store: QueryStore, q: ByTagQuery, s: ReadSettings, ctx: ByTagContext, hits: readonly IndexHit[]): Promise<void> {
  if (hits.length === 0) return;
  ctx.metrics?.queryDangling.inc({ index: q.tag }, hits.length);
  const now = ctx.now();
  for (const hit of hits) {
    if (!mayRepair(hit, s.repairDangling, s.danglingGraceMs, now)) continue;
    try {
      await store.deleteRow(s.index.name, hit.indexKey);
      ctx.metrics?.queryRepaired.inc({ index: q.tag });
    } catch (err) {
      ctx.log?.warn({ err, index: q.tag, id: hit.id, ts: hit.ts }, 'could not delete a dangling index row');
    }
  }
}

export async function* readByTag(store: QueryStore, q: ByTagQuery, s: ReadSettings, ctx: ByTagContext): PageStream<EventItem> {
  if (q.from >= q.to) return { next: null, dangling: 0 };
  const ranges = byTagRanges(q, s);
  const limiter = createLimiter(s.bucketConcurrency);
  const pageRows = bucketPageRows(q.limit, ranges.length);
  const sources = ranges.map((r) =>
    limitIterator(store.scan(s.index.name, { startRow: r.startRow, stopRow: r.stopRow, pageRows, filter: { type: 'FirstKeyOnlyFilter' } }), limiter),
  );
  const merged = mergeSorted(sources, byMergePosition);
  const dataColumns = [column(s.data.family)];
  let emitted = 0;
  let dangling = 0;
  let last: IndexHit | null = null;
  // dangling hits after the last item yielded: they belong to this page only if another item follows
  // on it, or if the read ends here; otherwise the next page sees them again
  let pending: IndexHit[] = [];
  try {
    for (;;) {
      const want = Math.min(s.verifyChunk, q.limit + 1 - emitted);
      const chunk: IndexHit[] = [];
      while (chunk.length < want) {
        const r = await merged.next();
        if (r.done === true) break;
        chunk.push(hitOf(r.value.row, s.keyFormat, s.buckets, s.saltMode));
      }
      if (chunk.length === 0) break;
      const rows = await store.multiGet(s.data.name, chunk.map((h) => h.dataKey), { columns: dataColumns });
      const verdicts = verifyHits(chunk, rows, q.tag, q.value, s.keyFormat, s.buckets);
      for (const [i, v] of verdicts.entries()) {
        const hit = chunk[i] as IndexHit;
        if (!v.ok) {
          pending.push(hit);
          continue;
        }
        if (emitted >= q.limit && last !== null) return { next: encodeCursor(identityOf(q), last.position), dangling };
        await settle(store, q, s, ctx, pending);
        dangling += pending.length;
        pending = [];
        yield v.item;
        emitted++;
        last = hit;
      }
    }
    await settle(store, q, s, ctx, pending);
    dangling += pending.length;
    return { next: null, dangling };
  } finally {
    await merged.return(undefined);
  }
}
