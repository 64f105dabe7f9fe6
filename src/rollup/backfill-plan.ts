// Pure parts of the backfill: the checkpoint identity, and the summary rows of one
// id built in memory (finest size from its events, each coarser size from the finer summaries, merged
// newest window first exactly like the job's scan of the finer summaries).
import { rollupWindowFamily } from '../keys/index.ts';
import { mergeSummaries, summaryPutRow, type PutRow, type Summaries } from './fold.ts';
import type { MetricSummary } from './summary.ts';
import type { RollupSettings } from './settings.ts';
import { windowStartOf } from './windows.ts';

/** What a checkpoint must match for a rerun to continue it. */
export function backfillIdentity(s: RollupSettings, from: number, to: number, ids: readonly string[] | undefined, spreadIds: readonly string[] = []): Record<string, unknown> {
  return {
    from,
    to,
    ids: ids ?? null,
    windows: s.windows.map((w) => w.seconds),
    buckets: s.keyspace.buckets,
    keyFormat: s.keyspace.format,
    dataTable: s.dataTable,
    rollupTable: s.rollupTable,
    rollupFamily: s.rollupFamily,
    // bucket mode: the spread ids read as units of their own (a changed list is another backfill)
    ...(spreadIds.length === 0 ? {} : { spreadIds }),
  };
}

export interface IdRows {
  readonly rows: PutRow[];
  /** rows per window size, finest first */
  readonly counts: number[];
}

/** All summary rows of one id from its finest-window summaries (window start → summaries). */
export function idSummaryRows(id: string, fine: ReadonlyMap<number, Summaries>, s: RollupSettings, timestamp: number): IdRows {
  const rows: PutRow[] = [];
  const counts: number[] = [];
  let level: ReadonlyMap<number, Summaries> = fine;
  s.windows.forEach((w, i) => {
    if (i > 0) {
      const next = new Map<number, Summaries>();
      for (const start of [...level.keys()].sort((a, b) => b - a)) {
        const coarse = windowStartOf(start, w);
        const acc: Summaries = next.get(coarse) ?? new Map<string, MetricSummary>();
        const from = level.get(start);
        if (from !== undefined) mergeSummaries(acc, from);
        next.set(coarse, acc);
      }
      level = next;
    }
    let n = 0;
    for (const start of [...level.keys()].sort((a, b) => b - a)) {
      const sums = level.get(start);
      const row = sums === undefined ? undefined : summaryPutRow(s.keyspace.rollupKey({ id, windowSec: w.seconds, windowStart: start }), sums, rollupWindowFamily(w.seconds), timestamp);
      if (row !== undefined) {
        rows.push(row);
        n++;
      }
    }
    counts.push(n);
  });
  return { rows, counts };
}
