/**
 * Per-key counts over a sliding time window, kept as a ring of fixed time slots (pure: time is passed
 * in). With W = 60 s and 12 slots of 5 s, `totals(now)` sums the current (partial) slot and the 11
 * before it, so the window covers between 55 and 60 s; a count leaves it `windowMs` after the start of
 * the slot it landed in, at the latest.
 */

export const DEFAULT_WINDOW_MS = 60_000;
export const DEFAULT_SLOTS = 12;

export interface SlidingWindowOptions {
  readonly windowMs?: number;
  readonly slots?: number;
}

interface Slot {
  /** floor(time / slotMs) of the counts held; -Infinity while unused. */
  epoch: number;
  readonly counts: Map<string, number>;
}

export class SlidingWindow {
  readonly windowMs: number;
  readonly slotMs: number;
  readonly #slots: Slot[];

  constructor(options: SlidingWindowOptions = {}) {
    const windowMs = options.windowMs ?? DEFAULT_WINDOW_MS;
    const slots = options.slots ?? DEFAULT_SLOTS;
    if (!Number.isFinite(windowMs) || windowMs <= 0) {
      throw new RangeError(`windowMs must be a positive number, got ${windowMs}`);
    }
    if (!Number.isInteger(slots) || slots < 1) throw new RangeError(`slots must be a positive integer, got ${slots}`);
    this.windowMs = windowMs;
    this.slotMs = windowMs / slots;
    this.#slots = Array.from({ length: slots }, () => ({ epoch: Number.NEGATIVE_INFINITY, counts: new Map() }));
  }

  /** Adds `n` to `key` at time `now` (ms). */
  add(now: number, key: string, n: number): void {
    if (n === 0) return;
    const slot = this.#slotFor(now);
    slot.counts.set(key, (slot.counts.get(key) ?? 0) + n);
  }

  /** Sum per key over the window ending at `now`. */
  totals(now: number): Map<string, number> {
    const epoch = this.#epochOf(now);
    const totals = new Map<string, number>();
    for (const slot of this.#slots) {
      if (slot.epoch <= epoch - this.#slots.length || slot.epoch > epoch) continue;
      for (const [key, n] of slot.counts) totals.set(key, (totals.get(key) ?? 0) + n);
    }
    return totals;
  }

  /** Forgets a key in every slot (e.g. a region that vanished). */
  delete(key: string): void {
    for (const slot of this.#slots) slot.counts.delete(key);
  }

  #epochOf(now: number): number {
    return Math.floor(now / this.slotMs);
  }

  #slotFor(now: number): Slot {
    const epoch = this.#epochOf(now);
    const n = this.#slots.length;
    const slot = this.#slots[((epoch % n) + n) % n];
    if (slot === undefined) throw new Error('unreachable: slot index out of range');
    // A clock that steps back lands in a newer slot: count it there rather than wiping newer counts.
    if (slot.epoch < epoch) {
      slot.epoch = epoch;
      slot.counts.clear();
    }
    return slot;
  }
}
