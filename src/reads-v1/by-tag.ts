/**
 * Events by an indexed tag value in [from, to): index scans per salt bucket merged newest first, each
 * hit verified against the data table.
 * Design notes: docs/DECISIONS.md#reads-by-tag
 */
import type { Logger } from 'pino';
import { column } from '../hbase/codec.ts';
import type { Row } from '../hbase/types.ts';
import type { ScanRange } from '../keys/index.ts';
import type { QueryMeters } from './meters.ts';
import { encodeCursor } from './cursor.ts';
import { createLimiter } from '../toolkit/limiter.ts';
import { bucketPageRows, mergedRows, resumeRanges } from '../scans/merged-scan.ts';
import { identityOf } from './params.ts';
import type { ByTagQuery, EventItem, PageStream, QueryStore, ReadSettings } from './types.ts';
import { alignRows, hitOf, mayRepair, verifyHits, verifyScans, type IndexHit } from './verify.ts';

export { bucketPageRows } from '../scans/merged-scan.ts';

/** rows per scanner batch of a verification scan */
const VERIFY_SCAN_BATCH = 1000;

export interface ByTagContext {
  readonly now: () => number;
  readonly metrics?: QueryMeters | undefined;
  readonly log?: Pick<Logger, 'warn'> | undefined;
}

/** The per-bucket scan ranges of a by-tag page, each resumed after the cursor position. */
export function byTagRanges(q: ByTagQuery, s: ReadSettings): ScanRange[] {
  return resumeRanges(s.keyspace.indexRanges(q.tag, q.value, { fromTs: q.from, toTs: q.to - 1 }), 1, q.after);
}

async function settle(
  store: QueryStore,
  asked: { readonly q: ByTagQuery; readonly s: ReadSettings; readonly ctx: ByTagContext },
  hits: readonly IndexHit[],
): Promise<void> {
  const { q, s, ctx } = asked;
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

/** The data rows of a large chunk of hits, by one range scan per data bucket (verifyScans), aligned with the hits. */
async function scannedRows(store: QueryStore, s: ReadSettings, hits: readonly IndexHit[], columns: readonly Buffer[]): Promise<(Row | null)[]> {
  const limit = createLimiter(s.bucketConcurrency);
  const read = await Promise.all(
    verifyScans(hits, s.keyspace).map((scan) =>
      limit.run(async () => {
        const first = scan.ranges[0] as ScanRange;
        const last = scan.ranges.at(-1) as ScanRange;
        const rows: Row[] = [];
        const filter = scan.ranges.length === 1 ? undefined : { type: 'MultiRowRangeFilter' as const, ranges: scan.ranges };
        for await (const row of store.scan(s.data.name, {
          startRow: first.startRow,
          stopRow: last.stopRow,
          columns,
          batch: VERIFY_SCAN_BATCH,
          ...(filter === undefined ? {} : { filter }),
        }))
          rows.push(row);
        return rows;
      }),
    ),
  );
  return alignRows(hits, read.flat());
}

export async function* readByTag(store: QueryStore, q: ByTagQuery, s: ReadSettings, ctx: ByTagContext): PageStream<EventItem> {
  if (q.from >= q.to) return { next: null, dangling: 0 };
  const ranges = byTagRanges(q, s);
  const merged = mergedRows(store, s.index.name, ranges, {
    saltBytes: 1,
    pageRows: bucketPageRows(q.limit, ranges.length),
    shape: { filter: { type: 'FirstKeyOnlyFilter' } },
    limiter: createLimiter(s.bucketConcurrency),
  });
  const dataColumns = [column(s.data.family)];
  const asked = { q, s, ctx };
  let emitted = 0;
  let dangling = 0;
  let last: IndexHit | null = null;
  // dangling hits after the last item yielded: they belong to this page only if another item follows
  // on it, or if the read ends here; otherwise the next page sees them again
  let pending: IndexHit[] = [];
  try {
    for (;;) {
      const want = Math.min(q.limit > s.verifyChunk ? s.verifyScanChunk : s.verifyChunk, q.limit + 1 - emitted);
      const chunk: IndexHit[] = [];
      while (chunk.length < want) {
        const r = await merged.next();
        if (r.done === true) break;
        chunk.push(hitOf(r.value.row, s.keyspace));
      }
      if (chunk.length === 0) break;
      const rows =
        chunk.length > s.verifyChunk
          ? await scannedRows(store, s, chunk, dataColumns)
          : await store.multiGet(
              s.data.name,
              chunk.map((h) => h.dataKey),
              { columns: dataColumns },
            );
      const verdicts = verifyHits(chunk, rows, q, s.keyspace);
      for (const [i, v] of verdicts.entries()) {
        const hit = chunk[i] as IndexHit;
        if (!v.ok) {
          pending.push(hit);
          continue;
        }
        if (emitted >= q.limit && last !== null) return { next: encodeCursor(identityOf(q), last.position), dangling };
        await settle(store, asked, pending);
        dangling += pending.length;
        pending = [];
        yield v.item;
        emitted++;
        last = hit;
      }
    }
    await settle(store, asked, pending);
    dangling += pending.length;
    return { next: null, dangling };
  } finally {
    await merged.return(undefined);
  }
}
