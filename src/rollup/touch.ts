/**
 * Pure: the timing of touch rows (src/ingest/touches.ts writes them, the series store reads them):
 * an hour slice of ingest's clock per row, an id re-touched at most every TOUCH_EVERY_MS, rows kept
 * TOUCH_KEEP_MS after their slice ends.
 * Design notes: docs/DECISIONS.md#touch-rows
 */

/** Ingest touches an id at most this often (ms) for events that are not future-dated: a reader allows for it. */
export const TOUCH_EVERY_MS = 5000;

/** One touch row per bucket and slice of this length (ms). */
export const TOUCH_SLICE_MS = 3_600_000;

/** A slice's rows are deleted this long (ms) after it ends; a reader trusts no touch older than this. */
export const TOUCH_KEEP_MS = 2 * TOUCH_SLICE_MS;

/** The start of the slice holding `ms`. */
export function touchSliceOf(ms: number): number {
  return ms - (((ms % TOUCH_SLICE_MS) + TOUCH_SLICE_MS) % TOUCH_SLICE_MS);
}
