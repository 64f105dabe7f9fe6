/**
 * Pure planning of the rollup job: what to read to recompute a marked window, the coarser window a
 * recompute re-marks, the markers of a bucket as rows, rollup lag, and the backfill's whole windows.
 */
import type { DecodedRollupKey, Keyspace, ScanRange, SpreadEntry } from '../keys/index.ts';
import { MARKER_QUALIFIER } from './marker.ts';
import { firstOpenStart, windowStartOf, type WindowSize } from './windows.ts';

export interface MarkerCellLike {
  readonly qualifier: Buffer;
  readonly value: Buffer;
  readonly timestamp: number;
}

/** A marker as read: its key, what it stands for, and the value + version the job checks and deletes. */
export interface FoundMarker {
  readonly key: Buffer;
  readonly parts: DecodedRollupKey;
  readonly value: Buffer;
  readonly stamp: number;
}

/**
 * Where a window's summary comes from: the data table (finest size: the id's rows in the window, one
 * range per bucket its spread epochs use there) or the finer size's summaries (one range).
 */
export type WindowSource =
  | { readonly kind: 'data'; readonly ranges: readonly ScanRange[] }
  | { readonly kind: 'summaries'; readonly finer: WindowSize; readonly range: ScanRange };

/** sizes are finest first (parseWindows). */
export function indexOfSize(sizes: readonly WindowSize[], windowSec: number): number {
  const i = sizes.findIndex((w) => w.seconds === windowSec);
  if (i < 0) throw new RangeError(`window size ${windowSec}s is not configured (rollup.windows)`);
  return i;
}

export function sourceOf(sizes: readonly WindowSize[], id: string, windowSec: number, start: number, keyspace: Keyspace, entry: SpreadEntry | undefined = keyspace.entryOf(id)): WindowSource {
  const i = indexOfSize(sizes, windowSec);
  const w = sizes[i] as WindowSize;
  if (i === 0) return { kind: 'data', ranges: keyspace.dataRanges(id, start, start + w.ms - 1, entry).map((b) => b.range) };
  const finer = sizes[i - 1] as WindowSize;
  return { kind: 'summaries', finer, range: keyspace.rollupRange(id, finer.seconds, start, start + w.ms - finer.ms) };
}

/** The enclosing window of the next coarser size, or undefined for the coarsest size. */
export function coarserWindow(sizes: readonly WindowSize[], windowSec: number, start: number): { size: WindowSize; start: number } | undefined {
  const next = sizes[indexOfSize(sizes, windowSec) + 1];
  return next === undefined ? undefined : { size: next, start: windowStartOf(start, next) };
}

/** The closed-marker scan of one bucket and size at `now`. */
export function closedMarkerRange(salt: number, w: WindowSize, graceMs: number, now: number, keyspace: Keyspace): ScanRange {
  return keyspace.markerRange(salt, w.seconds, firstOpenStart(w, graceMs, now));
}

/** A marker row → FoundMarker; undefined when the row has no marker cell (e.g. a deleted one). */
export function parseMarker(key: Buffer, cells: readonly MarkerCellLike[], keyspace: Keyspace): FoundMarker | undefined {
  const cell = cells.find((c) => c.qualifier.equals(MARKER_QUALIFIER));
  if (cell === undefined) return undefined;
  return { key, parts: keyspace.decodeMarkerKey(key), value: cell.value, stamp: cell.timestamp };
}

/** now − end of the oldest closed window still marked, in seconds; 0 when none. */
export function lagSeconds(now: number, oldestStart: number | undefined, w: WindowSize): number {
  if (oldestStart === undefined) return 0;
  return Math.max(0, (now - (oldestStart + w.ms)) / 1000);
}

/**
 * [from, to) widened outward to whole windows of the coarsest size, so every window of every size
 * that the backfill writes is complete.
 */
export function wholeWindows(from: number, to: number, coarsest: WindowSize): { from: number; to: number } {
  if (!(from < to)) throw new RangeError(`--from (${from}) must be before --to (${to})`);
  const start = windowStartOf(from, coarsest);
  const endStart = windowStartOf(to, coarsest);
  return { from: start, to: endStart === to ? to : endStart + coarsest.ms };
}
