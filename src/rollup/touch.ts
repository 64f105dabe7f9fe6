/**
 * Pure: the timing of touch rows (src/ingest/touches.ts writes them, the series store reads them): a
 * ring of minute rows per bucket, reused every TOUCH_RING_SLICES minutes (no row is ever deleted; a
 * reader filters by stamp), an id re-touched at most every TOUCH_EVERY_MS.
 * Design notes: docs/DECISIONS.md#touch-rows
 */
import { ringRuns, ringSlot, type TimeRing } from '../toolkit/time-ring.ts';

/** Ingest touches an id at most this often (ms) for events that are not future-dated: a reader allows for it. */
export const TOUCH_EVERY_MS = 5000;

/** One touch row per bucket and slice of this length (ms). */
export const TOUCH_SLICE_MS = 60_000;

/**
 * Slices in the ring: a bucket's row of a slice is reused this many slices later (5 minutes). A reader
 * reads the slices from its oldest entry's read (at most TOUCH_TRUST_MS ago, less the clock tolerance
 * and TOUCH_EVERY_MS) to now plus the tolerance: 2–3 slices with the default tolerance, all 5 past
 * ~2 minutes of it (still exact: stale cells are filtered by stamp). Each row holds at most one cell
 * per id of its bucket, so the ring holds at most 5 cells per id (180 slices once held 180).
 */
export const TOUCH_RING_SLICES = 5;

/**
 * An entry older than this (ms) is read again whatever the touches say: a reader's touch scan reaches
 * back to its oldest entry's read, and an entry answered without a read keeps its read's time, so
 * without this bound the scan's span (and the marker cells it returns) would grow to the cache's
 * maxAgeMs.
 */
export const TOUCH_TRUST_MS = 60_000;

const RING: TimeRing = { sliceMs: TOUCH_SLICE_MS, slots: TOUCH_RING_SLICES };

/** The ring slot of the slice holding `ms`. */
export function touchSlotOf(ms: number): number {
  return ringSlot(RING, ms);
}

/** The ring slots of the slices from `from`'s to `to`'s, as runs of consecutive slots [first, last] (a wrap splits one). */
export function touchSlotRuns(from: number, to: number): [number, number][] {
  return ringRuns(RING, from, to);
}
