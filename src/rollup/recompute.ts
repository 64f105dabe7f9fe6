/**
 * Recomputes one marked window on its own: a spread window whose rows are in several buckets, or a
 * window of a failed batch.
 * Design notes: docs/DECISIONS.md#one-window-recomputed
 */
import { ServiceError, errorMessage } from '../errors.ts';
import type { Row } from '../hbase/index.ts';
import type { RollupErrorStage } from './meters.ts';
import { mergedRows } from '../scans/merged-scan.ts';
import { columnOf, putRowOf } from './fold.ts';
import { markerRow } from './marker.ts';
import { coarserWindow, sourceOf, type FoundMarker, type FoundMarkerRow } from './plan.ts';
import type { RollupSettings } from './rollup-settings.ts';
import type { RollupStore } from './store.ts';
import { WindowContent, sizeHasBlocks } from './window-content.ts';
import { rowAfter } from '../scans/paged-scan.ts';
import { sourceMayLack, storedWindowOf, unionWithStored, type StoredWindow } from './expired-source.ts';
import { putWindowRows } from './generations.ts';
import { windowRow } from './window-row.ts';
import { Slices, nextTurnOnly, slicedItems } from '../toolkit/slices.ts';

/** A stage of a recompute failed; `cause` is what failed (the rollup job logs it and tries again later). */
export class RollupStageError extends ServiceError<'ROLLUP_FAILED'> {
  override readonly name = 'RollupStageError';
  readonly stage: RollupErrorStage;

  constructor(stage: RollupErrorStage, cause: unknown) {
    super({ code: 'ROLLUP_FAILED', message: `rollup ${stage} failed: ${errorMessage(cause)}`, cause });
    this.stage = stage;
  }
}

export interface RecomputeContext {
  readonly store: RollupStore;
  readonly settings: RollupSettings;
  readonly now: () => number;
  /** strictly increasing marker stamps (stampClock) */
  readonly stamp: () => number;
}

export interface RecomputeOutcome {
  /** a summary row was written */
  readonly written: boolean;
}

async function stage<T>(name: RollupErrorStage, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new RollupStageError(name, err);
  }
}

/**
 * The content of one window (summaries, and blocks and packs: window-content.ts), read from its
 * source (see sourceOf). A spread id's rows come from several buckets, merged by their key after the
 * salt (time order, newest first: the order one bucket would have), so the fold adds the same
 * numbers in the same order whatever K.
 */
export async function computeWindow(store: RollupStore, s: RollupSettings, w: WindowAt, now: number): Promise<WindowContent> {
  const src = sourceOf(s.windows, w, s.keyspace);
  const stored = mayLackSource(s, w, now) ? await storedWindow(store, s, w) : undefined;
  const rows =
    src.kind === 'data'
      ? mergedRows(store, s.dataTable, src.ranges, { saltBytes: s.keyspace.dataSaltBytes, shape: { batch: SCAN_BATCH } })
      : store.scan(s.rollupTable, { startRow: src.range.startRow, stopRow: src.range.stopRow, batch: SCAN_BATCH });
  const slices = jobSlices();
  if (stored !== undefined && src.kind === 'data') {
    const left: { ts: number; cells: Row['cells'] }[] = [];
    for await (const row of slicedItems(rows, slices)) left.push({ ts: s.keyspace.decodeDataKey(row.row).ts, cells: row.cells });
    return unionWithStored(left, stored, s.blocks);
  }
  const acc = new WindowContent(s.blocks, { ownBlocks: sizeHasBlocks(s.blocks, s.windows[0]?.seconds === w.windowSec), standIn: stored?.blocks });
  const fold = sourceFolder(src.kind, s);
  for await (const row of slicedItems(rows, slices)) fold(acc, row);
  return acc;
}

/** Synchronous work of the job between two turns of the event loop at most (ms): it shares the ingest's loop. */
export const JOB_SLICE_MS = 10;

/**
 * The slices of one window's (or one batch's) fold: the event loop is given back every JOB_SLICE_MS,
 * so a closing hour's windows do not hold the ingest's loop (Kafka heartbeats, fetches, acks) for
 * hundreds of ms while their rows arrive page after buffered page.
 */
export function jobSlices(): Slices {
  return new Slices({ sliceMs: JOB_SLICE_MS, yieldTurn: nextTurnOnly });
}

/** One window: its id, size (s) and start (ms). */
export interface WindowAt {
  readonly id: string;
  readonly windowSec: number;
  readonly start: number;
}

/** Whether the window's source may have lost points to a TTL (expired-source.ts): then its stored row is read too. */
export function mayLackSource(s: Pick<RollupSettings, 'windows' | 'retention' | 'blocks'>, w: WindowAt, now: number): boolean {
  const finest = s.windows[0]?.seconds === w.windowSec;
  // a size without blocks has nothing stored that a source could lack: its summary comes from the finer summaries
  if (!sizeHasBlocks(s.blocks, finest)) return false;
  return sourceMayLack(s.retention, finest, w.start, now);
}

/** The window's stored row: what its blocks still hold. */
async function storedWindow(store: RollupStore, s: RollupSettings, w: WindowAt): Promise<StoredWindow> {
  const key = s.keyspace.rollupKey({ id: w.id, windowSec: w.windowSec, windowStart: w.start });
  let cells: Row['cells'] | undefined;
  for await (const row of store.scan(s.rollupTable, { startRow: key, stopRow: rowAfter(key), batch: SCAN_BATCH })) cells = row.cells;
  return storedWindowOf(cells, s.blocks?.family ?? null, w.start, w.windowSec * 1000);
}

/** Cells per scan response of a window's source. */
export const SCAN_BATCH = 1000;

/** How one source row is added to a window's content: a data row's events, or a finer window's row. */
export function sourceFolder(kind: 'data' | 'summaries', s: Pick<RollupSettings, 'keyspace'>): (acc: WindowContent, row: Row) => void {
  if (kind === 'data')
    return (acc, row) => {
      acc.addDataRow(s.keyspace.decodeDataKey(row.row).ts, row.cells);
    };
  return (acc, row) => {
    const k = s.keyspace.decodeRollupKey(row.row);
    acc.addFinerRow(k.windowStart, k.windowSec * 1000, row.cells);
  };
}

export async function recomputeWindow(ctx: RecomputeContext, m: FoundMarker): Promise<RecomputeOutcome> {
  const { store, settings: s } = ctx;
  const { id, windowSec, windowStart } = m.parts;
  const t = ctx.now();
  const content = await stage('compute', () => computeWindow(store, s, { id, windowSec, start: windowStart }, t));
  const row = windowRow(s, { id, windowSec, windowStart }, content, t);
  if (row !== undefined) {
    // The summary and the coarser window's marker in one multi-row put (both before the marker delete;
    // a failed put fails both and the marker stays for the next run).
    const coarser = coarserWindow(s.windows, windowSec, windowStart);
    const mark =
      coarser === undefined
        ? []
        : [
            putRowOf(
              markerRow(
                { id, windowSec: coarser.size.seconds, windowStart: coarser.start },
                { keyspace: s.keyspace, family: s.rollupFamily, stamp: ctx.stamp() },
              ),
            ),
          ];
    await stage('write', () => putWindowRows(store, s, [row, ...mark]));
  }
  return { written: row !== undefined };
}

/**
 * Removes a marker row as read, once every window it marks was recomputed: check-and-delete that
 * checks the cell `row.check` names (a marker row's version, rewritten by every put; a per-id
 * marker's unique value) and deletes the family up to `upTo`, so older versions still kept until a
 * flush or compaction cannot resurface. False = found re-marked: the row was re-marked since it was
 * read (or another runner removed it first); it stays for the next run.
 */
export function removeMarkerRow(ctx: RecomputeContext, row: FoundMarkerRow, upTo: number): Promise<boolean> {
  const s = ctx.settings;
  return ctx.store.checkAndDelete(s.rollupTable, {
    row: row.key,
    check: { column: columnOf(s.rollupFamily, row.check.qualifier), value: row.check.value },
    deleteCells: [{ column: Buffer.from(s.rollupFamily, 'utf8'), timestamp: upTo }],
  });
}
