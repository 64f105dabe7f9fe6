// Pure: rows reused on a ring of time slices (no row deleted for its slice to pass): the slot of a
// time, and the slots a span of time covers as runs of consecutive slots. The catalog's journal (a
// row per minute of the day, src/catalog/rows.ts) and the touch rows (a row per minute of a
// five-minute ring, src/rollup/touch.ts) are both such rings.

/** A ring: `slots` slices of `sliceMs` each, reused every slots × sliceMs. */
export interface TimeRing {
  readonly sliceMs: number;
  readonly slots: number;
}

/** The slot of the slice holding `ms` (before 1970 too). */
export function ringSlot(ring: TimeRing, ms: number): number {
  const slice = Math.floor(ms / ring.sliceMs);
  return ((slice % ring.slots) + ring.slots) % ring.slots;
}

/**
 * The slots of the slices from `from`'s through `to`'s, as runs [first, last] of consecutive slots: one
 * run, two where the span wraps, every slot once when it spans the ring; none when `to`'s slice is
 * before `from`'s.
 */
export function ringRuns(ring: TimeRing, from: number, to: number): [number, number][] {
  const { sliceMs, slots } = ring;
  const slices = Math.min(slots, Math.floor(to / sliceMs) - Math.floor(from / sliceMs) + 1);
  if (slices <= 0) return [];
  if (slices === slots) return [[0, slots - 1]];
  const first = ringSlot(ring, from);
  const last = (first + slices - 1) % slots;
  return last >= first
    ? [[first, last]]
    : [
        [first, slots - 1],
        [0, last],
      ];
}
