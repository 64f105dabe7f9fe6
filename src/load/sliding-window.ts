/**
 * Per-key counts over a sliding time window, kept in the ring of fixed time slots of slot-ring.ts
 * (pure: time is passed in). With W = 60 s and 12 slots of 5 s, `totals(now)` sums the current
 * (partial) slot and the 11 before it, so the window covers between 55 and 60 s; a count leaves it `windowMs` after the start of
 * the slot it landed in, at the latest.
 */

import { SlotRing } from './slot-ring.ts';

export const DEFAULT_WINDOW_MS = 60_000;
export const DEFAULT_SLOTS = 12;

export interface SlidingWindowOptions {
  readonly windowMs?: number;
  readonly slots?: number;
}

export class SlidingWindow {
  readonly #ring: SlotRing<Map<string, number>>;

  constructor(options: SlidingWindowOptions = {}) {
    const slots = options.slots ?? DEFAULT_SLOTS;
    if (!Number.isInteger(slots) || slots < 1) throw new RangeError(`slots must be a positive integer, got ${slots}`);
    this.#ring = new SlotRing(
      options.windowMs ?? DEFAULT_WINDOW_MS,
      slots,
      () => new Map<string, number>(),
      (counts) => {
        counts.clear();
      },
    );
  }

  get windowMs(): number {
    return this.#ring.windowMs;
  }

  get slotMs(): number {
    return this.#ring.slotMs;
  }

  /** Adds `n` to `key` at time `now` (ms). */
  add(now: number, key: string, n: number): void {
    if (n === 0) return;
    const counts = this.#ring.at(now);
    counts.set(key, (counts.get(key) ?? 0) + n);
  }

  /** Sum per key over the window ending at `now`. */
  totals(now: number): Map<string, number> {
    const totals = new Map<string, number>();
    for (const counts of this.#ring.live(now)) {
      for (const [key, n] of counts) totals.set(key, (totals.get(key) ?? 0) + n);
    }
    return totals;
  }

  /** Forgets a key in every slot (e.g. a region that vanished). */
  delete(key: string): void {
    for (const counts of this.#ring.all()) counts.delete(key);
  }
}
