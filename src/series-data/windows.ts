// Pure: stored rollup windows as the series API's reads hand them on (a window's summary with its
// point block or summary pack, a window with a pending marker), the spans of windows and of markers a
// read asks for, and what a windows read finds.
import type { WindowSummary } from '../series-compute/rollup-exact.ts';

/** One size's windows a read wants: those starting in [from, to), with their blocks or their packs. */
export interface WindowSpan {
  readonly sizeMs: number;
  readonly from: number;
  readonly to: number;
  readonly with: 'block' | 'pack' | 'summary';
  /** with 'pack': the finer size the packs hold (their summaries come decoded) */
  readonly finerMs?: number;
}

/** The markers a window read also reads: of these sizes, windows starting in [from, to). */
export interface MarkSpan {
  readonly sizesMs: readonly number[];
  readonly from: number;
  readonly to: number;
  /**
   * Only windows closed by then (start + size ≤ closedBy): a window still open or in its grace period
   * is read raw whatever its markers say, and its marker row names every id active in it (the open
   * hour's: thousands of cells) — not read.
   */
  readonly closedBy?: number;
  /** Only markers stamped at or after this (marksOf: a scan time range on the cells; a reader that knows what it read before then). */
  readonly stampedSince?: number;
}

/** A window with a pending rollup marker (start and size, ms), and the newest stamp its marker carries for the id (its cell's timestamp). */
export interface MarkedWindow {
  readonly startMs: number;
  readonly sizeMs: number;
  readonly stamp?: number;
}

/** One stored window of one id and metric: its summary, its block when valid (encoded), and its pack when valid (decoded: a summary run, src/rollup/summary-pack.ts). */
export interface StoredWindow {
  readonly startMs: number;
  readonly sizeMs: number;
  readonly summary: WindowSummary;
  readonly block: Buffer | undefined;
  readonly pack: Float64Array | undefined;
}

/** A windows read asked: the stored windows of `spans` of each of `metrics` of every id, with the pending markers of `marks`. */
export interface WindowsAsk {
  readonly ids: readonly string[];
  readonly metrics: readonly string[];
  readonly spans: readonly WindowSpan[];
  readonly marks: MarkSpan;
}

/** What a windows read found. */
export interface WindowsRead {
  /** by metric, then id: the windows found (any order) */
  readonly windows: Map<string, Map<string, readonly StoredWindow[]>>;
  /** by id: the pending markers found */
  readonly marks: Map<string, MarkedWindow[]>;
  /** the ids whose windows came from the window cache (window-cache.ts), not from a scan */
  readonly cachedIds: ReadonlySet<string>;
  /** with the window cache: the generation of each of the ids' buckets ('' for none yet), read before any of the windows */
  readonly gens?: ReadonlyMap<number, string>;
}

/** Per size (ms), the starts [first, stop) of the windows a span asks (the series store reads their marker rows; a shared read gives each ask these back). */
export function markWindows(span: MarkSpan): Map<number, readonly [number, number]> {
  const { from, to, closedBy } = span;
  const out = new Map<number, readonly [number, number]>();
  if (from >= to) return out;
  for (const sizeMs of span.sizesMs) {
    const first = Math.max(0, from - (from % sizeMs));
    const stop = closedBy === undefined ? to : Math.min(to, closedBy - sizeMs + 1);
    if (first < stop) out.set(sizeMs, [first, stop]);
  }
  return out;
}
