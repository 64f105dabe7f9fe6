/**
 * The one ring of time slots both windowed counters keep (pure: time is passed in): S slots of
 * windowMs / S, slot i holding the counts of the times t with floor(t / slotMs) mod S = i. A slot is
 * cleared when a newer time lands in it, so a count leaves the window `windowMs` after the start of
 * the slot it landed in, at the latest; the window ending at `now` is the current (partial) slot and
 * the S − 1 before it. SlidingWindow (per-key sums) and WindowedHeavyHitters (a sketch per slot) hold
 * their counts in it.
 */

interface Slot<T> {
  /** floor(time / slotMs) of the counts held; -Infinity while unused. */
  epoch: number;
  readonly value: T;
}

export class SlotRing<T> {
  readonly windowMs: number;
  readonly slotMs: number;
  readonly #slots: Slot<T>[];
  readonly #clear: (value: T) => void;

  /** `make` builds each slot's empty value; `clear` empties one for reuse. `slots` is checked by the caller. */
  constructor(windowMs: number, slots: number, make: () => T, clear: (value: T) => void) {
    if (!Number.isFinite(windowMs) || windowMs <= 0) throw new RangeError(`windowMs must be a positive number, got ${windowMs}`);
    this.windowMs = windowMs;
    this.slotMs = windowMs / slots;
    this.#slots = Array.from({ length: slots }, () => ({ epoch: Number.NEGATIVE_INFINITY, value: make() }));
    this.#clear = clear;
  }

  /** The slot number of a time: the ring's contents change only when it changes. */
  epochOf(now: number): number {
    return Math.floor(now / this.slotMs);
  }

  /** The value of the slot `now` falls in, emptied first when it still held an older slot. */
  at(now: number): T {
    const epoch = this.epochOf(now);
    const n = this.#slots.length;
    const slot = this.#slots[((epoch % n) + n) % n];
    if (slot === undefined) throw new Error('unreachable: slot index out of range');
    // A clock that steps back lands in a newer slot: count it there rather than wiping newer counts.
    if (slot.epoch < epoch) {
      slot.epoch = epoch;
      this.#clear(slot.value);
    }
    return slot.value;
  }

  /** The values of the slots inside the window ending at `now`. */
  live(now: number): T[] {
    const epoch = this.epochOf(now);
    const n = this.#slots.length;
    return this.#slots.filter((s) => s.epoch > epoch - n && s.epoch <= epoch).map((s) => s.value);
  }

  /** Every slot's value, in the window or not (to forget a key everywhere, to measure memory). */
  all(): T[] {
    return this.#slots.map((s) => s.value);
  }
}
