/**
 * Pure planning of a batched recompute: the single-range windows of one marker page read by one
 * MultiRowRangeFilter scan, each row folded into its window.
 * Design notes: docs/DECISIONS.md#planning-a-batched-recompute
 */
import type { ScanFilter } from '../hbase/index.ts';
import type { Keyspace, ScanRange } from '../keys/index.ts';
import { markerPuts } from './marker.ts';
import { coarserWindow, sourceOf, type FoundMarker } from './plan.ts';
import { putRowOf, type PutRow } from './fold.ts';
import type { WindowSize } from './windows.ts';

/** One window of a batch and the key range of its source rows. */
export interface BatchWindow {
  readonly marker: FoundMarker;
  readonly range: ScanRange;
}

export interface BatchScan {
  /** 'data' (finest size) or 'summaries' (the finer size's rows in the rollup table) */
  readonly source: 'data' | 'summaries';
  readonly startRow: Buffer;
  readonly stopRow: Buffer;
  readonly filter: ScanFilter;
}

export interface BatchPlan {
  /** sorted by range start; ranges disjoint */
  readonly windows: readonly BatchWindow[];
  /** undefined when no window can be batched */
  readonly scan: BatchScan | undefined;
  /** windows recomputed one by one (their source is several ranges) */
  readonly singles: readonly FoundMarker[];
}

/** Splits the markers of one page (one size) into one batched scan and the windows left single. */
export function planBatch(sizes: readonly WindowSize[], markers: readonly FoundMarker[], keyspace: Keyspace): BatchPlan {
  const windows: BatchWindow[] = [];
  const singles: FoundMarker[] = [];
  let kind: 'data' | 'summaries' = 'data';
  for (const m of markers) {
    const { id, windowSec, windowStart } = m.parts;
    const src = sourceOf(sizes, { id, windowSec, start: windowStart }, keyspace);
    kind = src.kind;
    const range = src.kind === 'summaries' ? src.range : src.ranges.length === 1 ? src.ranges[0] : undefined;
    if (range === undefined) singles.push(m);
    else windows.push({ marker: m, range });
  }
  windows.sort((a, b) => Buffer.compare(a.range.startRow, b.range.startRow));
  const first = windows[0];
  const last = windows.at(-1);
  if (first === undefined || last === undefined) return { windows, scan: undefined, singles };
  const filter: ScanFilter = { type: 'MultiRowRangeFilter', ranges: windows.map((w) => ({ startRow: w.range.startRow, stopRow: w.range.stopRow })) };
  return { windows, scan: { source: kind, startRow: first.range.startRow, stopRow: last.range.stopRow, filter }, singles };
}

/**
 * A cursor over sorted, disjoint ranges for keys that arrive in ascending order: the index of the
 * range holding each key, or undefined for a key in none of them.
 */
export function rangeCursor(ranges: readonly ScanRange[]): (key: Buffer) => number | undefined {
  let i = 0;
  return (key) => {
    for (;;) {
      const r = ranges[i];
      if (r === undefined) return undefined;
      if (r.stopRow.length > 0 && Buffer.compare(key, r.stopRow) >= 0) i++;
      else return Buffer.compare(key, r.startRow) >= 0 ? i : undefined;
    }
  };
}

/**
 * The marker rows of the coarser windows enclosing the given windows of one size (one cell per
 * (id, coarser window), one row per (bucket, coarser window), one stamp for them all); none for the
 * coarsest size.
 */
export function cascadeMarkers(
  sizes: readonly WindowSize[],
  windows: readonly FoundMarker[],
  o: { keyspace: Keyspace; family: string; stamp: () => number },
): PutRow[] {
  const marks = [];
  for (const m of windows) {
    const c = coarserWindow(sizes, m.parts.windowSec, m.parts.windowStart);
    if (c !== undefined) marks.push({ id: m.parts.id, windowSec: c.size.seconds, windowStart: c.start });
  }
  if (marks.length === 0) return [];
  return markerPuts(marks, { keyspace: o.keyspace, family: o.family, stamp: o.stamp() }).map((p) => putRowOf(p.row));
}
