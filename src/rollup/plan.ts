/**
 * Pure planning of the rollup job: what to read to recompute a marked window, the coarser window a
 * recompute re-marks, the markers of a bucket as rows, rollup lag, and the backfill's whole windows.
 */
import { InputError } from '../errors.ts';
import type { DecodedRollupKey, Keyspace, ScanRange, SpreadEntry } from '../keys/index.ts';
import { LEGACY_QUALIFIER, VERSION_QUALIFIER } from './marker.ts';
import { firstOpenStart, windowStartOf, type WindowSize } from './windows.ts';

export interface MarkerCellLike {
  readonly qualifier: Buffer;
  readonly value: Buffer;
  readonly timestamp: number;
}

/** One marked window as read: what it stands for, and its cell's timestamp (the settle rule reads it). */
export interface FoundMarker {
  readonly parts: DecodedRollupKey;
  readonly stamp: number;
}

/**
 * A marker row as read: the windows it marks and how to remove it unless it was re-marked since the
 * read — check that `check.qualifier` still holds `check.value` (null: is still absent), then delete
 * the family up to a timestamp (job.ts picks it).
 */
export interface FoundMarkerRow {
  readonly key: Buffer;
  readonly windows: readonly FoundMarker[];
  readonly check: { readonly qualifier: Buffer; readonly value: Buffer | null };
  /** the newest timestamp of any cell read */
  readonly newest: number;
}

/**
 * Where a window's summary comes from: the data table (finest size: the id's rows in the window, one
 * range per bucket its spread epochs use there) or the finer size's summaries (one range).
 */
export type WindowSource =
  { readonly kind: 'data'; readonly ranges: readonly ScanRange[] } | { readonly kind: 'summaries'; readonly finer: WindowSize; readonly range: ScanRange };

/** sizes are finest first (parseWindows). */
export function indexOfSize(sizes: readonly WindowSize[], windowSec: number): number {
  const i = sizes.findIndex((w) => w.seconds === windowSec);
  if (i < 0) throw new InputError(`window size ${windowSec}s is not configured (rollup.windows)`, { field: 'rollup.windows' });
  return i;
}

export function sourceOf(
  sizes: readonly WindowSize[],
  window: { readonly id: string; readonly windowSec: number; readonly start: number },
  keyspace: Keyspace,
  entry: SpreadEntry | undefined = keyspace.entryOf(window.id),
): WindowSource {
  const { id, windowSec, start } = window;
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
export function closedMarkerRange(salt: number, w: WindowSize, now: number, s: { readonly graceMs: number; readonly keyspace: Keyspace }): ScanRange {
  return s.keyspace.markerRange(salt, w.seconds, firstOpenStart(w, s.graceMs, now));
}

/**
 * A marker row (or a per-id marker of an earlier version) → FoundMarkerRow; undefined when it holds
 * no marker cell. Throws a KeyError when its key or an id cell is malformed.
 */
export function parseMarkerRow(key: Buffer, cells: readonly MarkerCellLike[], keyspace: Keyspace): FoundMarkerRow | undefined {
  const k = keyspace.decodeMarkerKey(key);
  const head = { salt: k.salt, windowSec: k.windowSec, windowStart: k.windowStart };
  let newest = -Infinity;
  for (const c of cells) newest = Math.max(newest, c.timestamp);
  if (k.id !== null) {
    const cell = cells.find((c) => c.qualifier.equals(LEGACY_QUALIFIER));
    if (cell === undefined) return undefined;
    return { key, windows: [{ parts: { ...head, id: k.id }, stamp: cell.timestamp }], check: { qualifier: LEGACY_QUALIFIER, value: cell.value }, newest };
  }
  let version: Buffer | null = null;
  const windows: FoundMarker[] = [];
  for (const c of cells) {
    if (c.qualifier.equals(VERSION_QUALIFIER)) version = c.value;
    else if (c.qualifier[0] !== 0x00) windows.push({ parts: { ...head, id: keyspace.markedId(c.qualifier, k.salt) }, stamp: c.timestamp });
  }
  if (windows.length === 0 && version === null) return undefined;
  return { key, windows, check: { qualifier: VERSION_QUALIFIER, value: version }, newest };
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
  if (!(from < to)) throw new InputError(`--from (${from}) must be before --to (${to})`, { field: '--from' });
  const start = windowStartOf(from, coarsest);
  const endStart = windowStartOf(to, coarsest);
  return { from: start, to: endStart === to ? to : endStart + coarsest.ms };
}
