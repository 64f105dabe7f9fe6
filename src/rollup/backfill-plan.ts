// Pure parts of the backfill: the checkpoint identity, and the window rows of one id built in memory
// (finest size from its events, each coarser size from the finer windows, merged newest window first
// exactly like the job's scan of the finer rows).
import type { PutRow } from './fold.ts';
import type { RollupSettings } from './rollup-settings.ts';
import { WindowContent, sizeHasBlocks } from './window-content.ts';
import { windowRow } from './window-row.ts';
import { windowStartOf } from './windows.ts';

/** What a checkpoint must match for a rerun to continue it. */
export function backfillIdentity(
  s: RollupSettings,
  range: { readonly from: number; readonly to: number },
  ids: readonly string[] | undefined,
  spreadIds: readonly string[] = [],
): Record<string, unknown> {
  const { from, to } = range;
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

/**
 * All window rows of one id from its finest windows' content (window start → content): each coarser
 * size from the finer contents, merged newest window first exactly like the job's scan of the finer
 * rows (so the same sums, bit for bit), with its packs and joined blocks.
 */
export function idWindowRows(id: string, fine: ReadonlyMap<number, WindowContent>, s: RollupSettings, timestamp: number): IdRows {
  const rows: PutRow[] = [];
  const counts: number[] = [];
  let level: ReadonlyMap<number, WindowContent> = fine;
  s.windows.forEach((w, i) => {
    if (i > 0) {
      const next = new Map<number, WindowContent>();
      for (const start of [...level.keys()].sort((a, b) => b - a)) {
        const coarse = windowStartOf(start, w);
        let acc = next.get(coarse);
        if (acc === undefined) next.set(coarse, (acc = new WindowContent(s.blocks, { ownBlocks: sizeHasBlocks(s.blocks, false) })));
        acc.addFinerContent(start, level.get(start) as WindowContent);
      }
      level = next;
    }
    let n = 0;
    for (const start of [...level.keys()].sort((a, b) => b - a)) {
      const row = windowRow(s, { id, windowSec: w.seconds, windowStart: start }, level.get(start) as WindowContent, timestamp);
      if (row !== undefined) {
        rows.push(row);
        n++;
      }
    }
    counts.push(n);
  });
  return { rows, counts };
}
