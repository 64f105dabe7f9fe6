/**
 * Recomputes a chunk of marked windows of one bucket and size in a few requests (one scan, one put),
 * falling back to one window at a time when the batch fails.
 * Design notes: docs/DECISIONS.md#batched-recompute
 */
import type { Limiter } from '../toolkit/limiter.ts';
import { cascadeMarkers, planBatch, rangeCursor, type BatchScan, type BatchWindow } from './batch-plan.ts';
import type { PutRow } from './fold.ts';
import type { FoundMarker } from './plan.ts';
import { SCAN_BATCH, jobSlices, mayLackSource, recomputeWindow, sourceFolder, type RecomputeContext, type RecomputeOutcome } from './recompute.ts';
import { slicedItems } from '../toolkit/slices.ts';
import { WindowContent, sizeHasBlocks } from './window-content.ts';
import { putWindowRows } from './generations.ts';
import { windowRow } from './window-row.ts';

/** The outcome of one window, as recomputeWindow reports it, or its error (a RollupStageError). */
export type WindowDone = (m: FoundMarker, outcome: RecomputeOutcome | { readonly error: unknown }) => void;

export interface BatchOptions {
  /** bounds the per-window requests (single recomputes, marker row deletes) over the whole run */
  readonly limiter: Limiter;
  readonly done: WindowDone;
  /** a batch failure that the per-window path redoes (logged, not an error of any window) */
  readonly onBatchError: (err: unknown, windows: number) => void;
}

/** Bytes of window rows a batch holds before it puts them: a coarser size's point blocks can be large. */
export const BATCH_PUT_BYTES = 4 << 20;

/**
 * Every window of the chunk, reported through `o.done`. Resolves once the batch's scan and puts are
 * done (its windows reported) or failed, with `rest`: the single windows still in flight, so the
 * caller can read on meanwhile.
 */
export async function recomputeBatch(ctx: RecomputeContext, markers: readonly FoundMarker[], o: BatchOptions): Promise<{ readonly rest: Promise<void> }> {
  const all = (ps: readonly Promise<void>[]): { rest: Promise<void> } => ({ rest: Promise.all(ps).then(() => undefined) });
  const s = ctx.settings;
  // a window whose source may have lost points to a TTL is read with its stored row, on its own
  const now = ctx.now();
  const lacking = (m: FoundMarker): boolean => mayLackSource(s, { id: m.parts.id, windowSec: m.parts.windowSec, start: m.parts.windowStart }, now);
  const plan = planBatch(
    s.windows,
    markers.filter((m) => !lacking(m)),
    s.keyspace,
  );
  const singles = [...plan.singles, ...markers.filter(lacking)].map((m) => one(ctx, m, o));
  if (plan.scan === undefined) {
    return all(singles);
  }
  let written: boolean[];
  try {
    written = await scanAndWrite(ctx, plan.scan, plan.windows);
  } catch (err) {
    o.onBatchError(err, plan.windows.length);
    return all([...singles, ...plan.windows.map((w) => one(ctx, w.marker, o))]);
  }
  plan.windows.forEach((w, i) => {
    o.done(w.marker, { written: written[i] === true });
  });
  return all(singles);
}

async function one(ctx: RecomputeContext, m: FoundMarker, o: BatchOptions): Promise<void> {
  try {
    o.done(m, await o.limiter.run(() => recomputeWindow(ctx, m)));
  } catch (err) {
    o.done(m, { error: err });
  }
}

function rowBytes(row: PutRow): number {
  let n = row.row.length;
  for (const c of row.cells) n += c.column.length + c.value.length + 16;
  return n;
}

/**
 * The one scan of the batch: each window's rows are consecutive (ranges sorted, rows in key order),
 * so a window is complete when the next one's first row arrives; its row is encoded then and its
 * content let go. Rows are put once BATCH_PUT_BYTES are held, the rest and the coarser windows'
 * markers in the last put. Every put is done before the caller removes any marker row. Which
 * windows wrote a row (same order as `windows`).
 */
async function scanAndWrite(ctx: RecomputeContext, scan: BatchScan, windows: readonly BatchWindow[]): Promise<boolean[]> {
  const s = ctx.settings;
  const t = ctx.now();
  const written = windows.map(() => false);
  const at = rangeCursor(windows.map((w) => w.range));
  const fold = sourceFolder(scan.source, s);
  const table = scan.source === 'data' ? s.dataTable : s.rollupTable;
  let pending: PutRow[] = [];
  let bytes = 0;
  let open: { readonly i: number; readonly acc: WindowContent } | undefined;
  const close = async (): Promise<void> => {
    if (open === undefined) return;
    const row = windowRow(s, (windows[open.i] as BatchWindow).marker.parts, open.acc, t);
    written[open.i] = row !== undefined;
    open = undefined;
    if (row === undefined) return;
    pending.push(row);
    bytes += rowBytes(row);
    if (bytes < BATCH_PUT_BYTES) return;
    await putWindowRows(ctx.store, s, pending);
    pending = [];
    bytes = 0;
  };
  const opts = { startRow: scan.startRow, stopRow: scan.stopRow, filter: scan.filter, batch: SCAN_BATCH };
  for await (const row of slicedItems(ctx.store.scan(table, opts), jobSlices())) {
    const i = at(row.row);
    if (i === undefined) continue;
    if (open?.i !== i) {
      await close();
      open = {
        i,
        acc: new WindowContent(s.blocks, { ownBlocks: sizeHasBlocks(s.blocks, (windows[i] as BatchWindow).marker.parts.windowSec === s.windows[0]?.seconds) }),
      };
    }
    fold(open.acc, row);
  }
  await close();
  pending.push(
    ...cascadeMarkers(
      s.windows,
      windows.filter((_, i) => written[i] === true).map((w) => w.marker),
      { keyspace: s.keyspace, family: s.rollupFamily, stamp: ctx.stamp },
    ),
  );
  if (pending.length > 0) await putWindowRows(ctx.store, s, pending);
  return written;
}
