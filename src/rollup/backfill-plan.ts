// Pure parts of the backfill: bucket key ranges, the checkpoint identity, and the summary rows of one
// id built in memory (finest size from its events, each coarser size from the finer summaries, merged
// newest window first exactly like the job's scan of the finer summaries).
import { encodeRollupKey, idPrefix, prefixStopRow, type KeyFormat, type ScanRange } from '../keys/index.ts';
import { mergeSummaries, summaryPutRow, type PutRow, type Summaries } from './fold.ts';
import type { MetricSummary } from './summary.ts';
import type { RollupSettings } from './settings.ts';
import { windowStartOf } from './windows.ts';

function saltBytes(salt: number, format: KeyFormat): Buffer {
  return format === 'binary' ? Buffer.from([salt]) : Buffer.from(salt.toString(16).padStart(2, '0'), 'latin1');
}

/** Every data row of one salt bucket, from just after `afterId`'s rows when given. */
export function bucketRange(salt: number, format: KeyFormat, buckets: number, afterId?: string | null): ScanRange {
  const startRow = afterId === undefined || afterId === null ? saltBytes(salt, format) : prefixStopRow(idPrefix(afterId, buckets, format));
  return { startRow, stopRow: salt >= 255 ? Buffer.alloc(0) : saltBytes(salt + 1, format) };
}

/** What a checkpoint must match for a rerun to continue it. */
export function backfillIdentity(s: RollupSettings, from: number, to: number, ids: readonly string[] | undefined): Record<string, unknown> {
  return {
    from,
    to,
    ids: ids ?? null,
    windows: s.windows.map((w) => w.seconds),
    buckets: s.buckets,
    keyFormat: s.keyFormat,
    dataTable: s.dataTable,
    rollupTable: s.rollupTable,
    rollupFamily: s.rollupFamily,
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
      const row = sums === undefined ? undefined : summaryPutRow(encodeRollupKey({ id, windowSec: w.seconds, windowStart: start }, s.buckets), sums, s.rollupFamily, timestamp);
      if (row !== undefined) {
        rows.push(row);
        n++;
      }
    }
    counts.push(n);
  });
  return { rows, counts };
}
