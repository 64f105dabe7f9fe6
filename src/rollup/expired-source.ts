/**
 * Pure: a window recomputed after part of its source expired. Raw rows go at tables.data.ttlSeconds,
 * a finer window's block at the blocks' TTL (tables.rollup.pointsTtlSeconds); the window's own stored
 * row may still hold every point of it in its block. Such a window is rebuilt from its source with
 * that stored block standing in for what the source lost, so a late event never turns a whole
 * window into what is left (docs/RETENTION.md, "Point blocks as the long-term tier").
 * Design notes: docs/DECISIONS.md#point-blocks-as-the-long-term-tier
 */
import type { StoredCell } from '../events/index.ts';
import { decodeDataRow } from '../events/index.ts';
import { decodePointsBlock, type PointRun } from './points-block.ts';
import { columnOf, type PutRow } from './fold.ts';
import { packQualifier, windowCellsOf, windowSummary, WindowContent, type BlockSettings, type FamilyCell } from './window-content.ts';

/** How long the job's sources are kept (ms; null: forever), as tables.data.ttlSeconds and the blocks' TTL say. */
export interface SourceRetention {
  readonly rawTtlMs: number | null;
  readonly blocksTtlMs: number | null;
}

/**
 * HBase counts a TTL on the region server's clock, the job on its own: a window this close to the
 * edge is treated as past it (the stored row is read; taking it costs one read, never a point).
 */
export const EXPIRY_MARGIN_MS = 10 * 60_000;

/**
 * Whether a window starting at `start` may have lost part of its source: the finest size reads raw
 * rows (kept rawTtlMs from the event ts), a coarser one its finer windows' blocks (kept blocksTtlMs
 * from when they were written, which is after their window).
 */
export function sourceMayLack(r: SourceRetention | undefined, finest: boolean, start: number, now: number): boolean {
  const ttl = r === undefined ? null : finest ? r.rawTtlMs : r.blocksTtlMs;
  return ttl !== null && start < now - ttl + EXPIRY_MARGIN_MS;
}

/** What a window's stored row keeps, per metric: whether it has a summary, and its block when valid (as many points as the summary counts). */
export interface StoredWindow {
  readonly summarised: ReadonlySet<string>;
  readonly blocks: ReadonlyMap<string, PointRun>;
}

export const NOTHING_STORED: StoredWindow = { summarised: new Set(), blocks: new Map() };

/** The stored row of a window [start, start + ms) as read (every family), or its absence. */
export function storedWindowOf(cells: readonly FamilyCell[] | undefined, blockFamily: string | null, start: number, ms: number): StoredWindow {
  if (cells === undefined || cells.length === 0) return NOTHING_STORED;
  const summarised = new Set<string>();
  const blocks = new Map<string, PointRun>();
  for (const [metric, w] of windowCellsOf(cells, blockFamily)) {
    summarised.add(metric);
    if (w.block === undefined) continue;
    const { summary, run: decoded } = windowSummary(w, metric, start, ms);
    const run = decoded ?? decodePointsBlock(w.block.value, start, ms, `stored point block ${metric} of window ${start}`);
    if (run.ts.length === summary.count) blocks.set(metric, run);
  }
  return { summarised, blocks };
}

/**
 * The finest size's content from the raw rows that are left (`rows`: event ts and cells, any order)
 * and the window's stored row: per metric, the stored block's points with the raw rows' points over
 * them (a raw row is the newer word on its ts); a metric with a stored summary but no valid block is
 * left out (its stored summary stays as it was: what is left would be less). The points are added
 * newest first, as a scan of the data table adds them, so the summary is the one a recompute from
 * every raw row would write.
 */
export function unionWithStored(
  rows: Iterable<{ readonly ts: number; readonly cells: readonly StoredCell[] }>,
  stored: StoredWindow,
  blocks: BlockSettings | null,
): WindowContent {
  const byMetric = new Map<string, Map<number, number>>();
  for (const [metric, run] of stored.blocks) {
    const points = new Map<number, number>();
    for (let i = 0; i < run.ts.length; i++) points.set(run.ts[i] as number, run.values[i] as number);
    byMetric.set(metric, points);
  }
  for (const row of rows) {
    for (const [metric, value] of Object.entries(decodeDataRow(row.cells).metrics)) {
      let points = byMetric.get(metric);
      if (points === undefined) {
        if (stored.summarised.has(metric)) continue; // no block to stand in: the stored summary stays
        byMetric.set(metric, (points = new Map<number, number>()));
      }
      points.set(row.ts, value);
    }
  }
  const acc = new WindowContent(blocks);
  for (const [metric, points] of byMetric) {
    const ts = [...points.keys()].sort((a, b) => b - a);
    for (const t of ts) acc.addPoint(metric, t, points.get(t) as number);
  }
  return acc;
}

/** What a range delete does to a cut window's stored row (trimStoredRow). */
export interface TrimmedRow {
  /** the summaries and blocks of the metrics with points left outside the range, rewritten */
  readonly put: PutRow | undefined;
  /** the columns of metrics with no point left (summary in every family, block, pack) */
  readonly drop: readonly Buffer[];
}

/**
 * A range delete cuts a window whose source may have lost points to a TTL: its stored blocks are what
 * the job unions its source with, so their points in [from, to) go now, with the summaries recomputed
 * from the points left (newest first, as a recompute adds them) at `cut.timestamp`. A metric whose stored
 * block is not valid keeps its row as it is (nothing exact to compute it from).
 */
export function trimStoredRow(
  row: { readonly key: Buffer; readonly cells: readonly FamilyCell[] },
  w: { readonly start: number; readonly ms: number; readonly family: string; readonly mainFamily: string },
  blocks: BlockSettings,
  cut: { readonly from: number; readonly to: number; readonly timestamp: number },
): TrimmedRow {
  const stored = storedWindowOf(row.cells, blocks.family, w.start, w.ms);
  const acc = new WindowContent(blocks);
  const drop: Buffer[] = [];
  for (const [metric, run] of stored.blocks) {
    const keep: number[] = [];
    for (let i = run.ts.length - 1; i >= 0; i--) {
      const t = run.ts[i] as number;
      if (t < cut.from || t >= cut.to) keep.push(i);
    }
    if (keep.length === run.ts.length) continue;
    if (keep.length === 0) {
      const q = Buffer.from(metric, 'utf8');
      drop.push(columnOf(w.family, q), columnOf(w.mainFamily, q), columnOf(blocks.family, q), columnOf(w.family, packQualifier(q)));
      continue;
    }
    for (const i of keep) acc.addPoint(metric, run.ts[i] as number, run.values[i] as number);
  }
  return { put: acc.putRow(row.key, w.family, cut.timestamp, { start: w.start, sizeSec: w.ms / 1000 }), drop };
}
