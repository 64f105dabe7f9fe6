/**
 * Recomputes a chunk of marked windows of one bucket and size in a few requests (docs/ROLLUPS.md,
 * *The job*):
 *   1. T = now, just before reading the source;
 *   2. ONE scan reads the sources of all windows that have a single source range (batch-plan.ts),
 *      each row folded into its window in key order — what the window's own scan would fold;
 *   3. ONE multi-row put writes their summaries (cell timestamp T) and the marker rows of the
 *      coarser windows enclosing the windows written.
 * Removing the marker rows is the job's, once every window of a row is done (job.ts). A window whose
 * source is several ranges (spread id) goes through recomputeWindow on its own. When the batch scan
 * or put fails (e.g. one window's bad row), every window of the batch is redone one by one by
 * recomputeWindow, so a failing window never stops the others.
 */
import { rollupWindowFamily } from '../keys/index.ts';
import type { Limiter } from '../walk/limiter.ts';
import { cascadeMarkers, planBatch, rangeCursor, type BatchScan, type BatchWindow } from './batch-plan.ts';
import { summaryPutRow, type PutRow, type Summaries } from './fold.ts';
import type { FoundMarker } from './plan.ts';
import { SCAN_BATCH, recomputeWindow, sourceFolder, type RecomputeContext, type RecomputeOutcome } from './recompute.ts';

/** The outcome of one window, as recomputeWindow reports it, or its error (a RollupStageError). */
export type WindowDone = (m: FoundMarker, outcome: RecomputeOutcome | { readonly error: unknown }) => void;

export interface BatchOptions {
  /** bounds the per-window requests (single recomputes, marker row deletes) over the whole run */
  readonly limiter: Limiter;
  readonly done: WindowDone;
  /** a batch failure that the per-window path redoes (logged, not an error of any window) */
  readonly onBatchError: (err: unknown, windows: number) => void;
}

/**
 * Every window of the chunk, reported through `o.done`. Resolves once the batch's scan and put are
 * done (its windows reported) or failed, with `rest`: the single windows still in flight, so the
 * caller can read on meanwhile.
 */
export async function recomputeBatch(ctx: RecomputeContext, markers: readonly FoundMarker[], o: BatchOptions): Promise<{ readonly rest: Promise<void> }> {
  const all = (ps: readonly Promise<void>[]): { rest: Promise<void> } => ({ rest: Promise.all(ps).then(() => undefined) });
  const s = ctx.settings;
  const plan = planBatch(s.windows, markers, s.keyspace);
  const singles = plan.singles.map((m) => one(ctx, m, o));
  if (plan.scan === undefined) {
    return all(singles);
  }
  let sums: Summaries[];
  try {
    const t = ctx.now();
    sums = await scanBatch(ctx, plan.scan, plan.windows);
    const rows: PutRow[] = [];
    plan.windows.forEach((w, i) => {
      const { id, windowSec, windowStart } = w.marker.parts;
      const row = summaryPutRow(s.keyspace.rollupKey({ id, windowSec, windowStart }), sums[i] as Summaries, rollupWindowFamily(windowSec), t);
      if (row !== undefined) rows.push(row);
    });
    const withData = plan.windows.filter((_, i) => (sums[i] as Summaries).size > 0).map((w) => w.marker);
    rows.push(...cascadeMarkers(s.windows, withData, { keyspace: s.keyspace, family: s.rollupFamily, stamp: ctx.stamp }));
    if (rows.length > 0) await ctx.store.put(s.rollupTable, rows);
  } catch (err) {
    o.onBatchError(err, plan.windows.length);
    return all([...singles, ...plan.windows.map((w) => one(ctx, w.marker, o))]);
  }
  plan.windows.forEach((w, i) => { o.done(w.marker, { written: (sums[i] as Summaries).size > 0 }); });
  return all(singles);
}

async function one(ctx: RecomputeContext, m: FoundMarker, o: BatchOptions): Promise<void> {
  try {
    o.done(m, await o.limiter.run(() => recomputeWindow(ctx, m)));
  } catch (err) {
    o.done(m, { error: err });
  }
}

/** The summaries of each window (same order), read by the one scan. */
async function scanBatch(ctx: RecomputeContext, scan: BatchScan, windows: readonly BatchWindow[]): Promise<Summaries[]> {
  const s = ctx.settings;
  const sums: Summaries[] = windows.map((): Summaries => new Map());
  const at = rangeCursor(windows.map((w) => w.range));
  const fold = sourceFolder(scan.source, s.keyspace);
  const table = scan.source === 'data' ? s.dataTable : s.rollupTable;
  const opts = { startRow: scan.startRow, stopRow: scan.stopRow, filter: scan.filter, batch: SCAN_BATCH };
  for await (const row of ctx.store.scan(table, opts)) {
    const i = at(row.row);
    if (i !== undefined) fold(sums[i] as Summaries, row);
  }
  return sums;
}
