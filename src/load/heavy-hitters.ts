/**
 * Heavy hitters (pure; time is passed in): Space-Saving sketches, and a ring of them over a sliding
 * window, for the ids that carry most of the writes in constant memory.
 * Design notes: docs/DECISIONS.md#heavy-hitters
 */

import { SlotRing } from './slot-ring.ts';

export interface HeavyHitter {
  readonly id: string;
  /** Upper estimate of the id's weight (≥ the true weight). */
  readonly count: number;
  /** Maximum over-estimate: the true weight is in [count − error, count]. */
  readonly error: number;
}

interface Counter {
  id: string;
  count: number;
  error: number;
}

/** K ≤ this many counters: a top list larger than this is not "hot ids" any more. */
export const MAX_CAPACITY = 10_000;

function assertCapacity(capacity: number): void {
  if (!Number.isInteger(capacity) || capacity < 1 || capacity > MAX_CAPACITY) {
    throw new RangeError(`capacity must be an integer in 1…${MAX_CAPACITY}, got ${capacity}`);
  }
}

function assertWeight(n: number): void {
  if (!Number.isFinite(n) || n < 0) throw new RangeError(`n must be a finite number ≥ 0, got ${n}`);
}

/** Descending count, then ascending id (a stable order for equal counts). */
export function byCountDesc(a: HeavyHitter, b: HeavyHitter): number {
  if (a.count !== b.count) return b.count - a.count;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Weighted Space-Saving over K counters, kept in a binary min-heap on count (O(log K) per add). */
export class SpaceSaving {
  readonly capacity: number;
  readonly #heap: Counter[] = [];
  readonly #pos = new Map<string, number>();
  #total = 0;

  constructor(capacity: number) {
    assertCapacity(capacity);
    this.capacity = capacity;
  }

  /** Total weight added (N). */
  get total(): number {
    return this.#total;
  }

  /** Number of monitored ids (≤ capacity). */
  get size(): number {
    return this.#heap.length;
  }

  /** The largest true weight an unmonitored id can have: the minimum count when full, else 0. */
  floor(): number {
    return this.#heap.length < this.capacity ? 0 : (this.#heap[0]?.count ?? 0);
  }

  add(id: string, n = 1): void {
    assertWeight(n);
    if (n === 0) return;
    this.#total += n;
    const at = this.#pos.get(id);
    if (at !== undefined) {
      const c = this.#heap[at];
      if (c === undefined) throw new Error('unreachable: heap position out of range');
      c.count += n;
      this.#down(at);
      return;
    }
    if (this.#heap.length < this.capacity) {
      this.#heap.push({ id, count: n, error: 0 });
      this.#pos.set(id, this.#heap.length - 1);
      this.#up(this.#heap.length - 1);
      return;
    }
    const min = this.#heap[0];
    if (min === undefined) throw new Error('unreachable: full heap without a root');
    this.#pos.delete(min.id);
    min.error = min.count;
    min.count += n;
    min.id = id;
    this.#pos.set(id, 0);
    this.#down(0);
  }

  /** The id's entry, or undefined when it is not monitored (its true weight is then ≤ `floor()`). */
  get(id: string): HeavyHitter | undefined {
    const at = this.#pos.get(id);
    const c = at === undefined ? undefined : this.#heap[at];
    return c === undefined ? undefined : { id: c.id, count: c.count, error: c.error };
  }

  /** The `n` largest entries (all when omitted), by descending count. */
  top(n: number = this.capacity): HeavyHitter[] {
    return this.#heap
      .map((c) => ({ id: c.id, count: c.count, error: c.error }))
      .sort(byCountDesc)
      .slice(0, Math.max(0, n));
  }

  /** Visits every monitored entry, in no particular order (no copies, no sort). */
  forEach(visit: (id: string, count: number, error: number) => void): void {
    for (const c of this.#heap) visit(c.id, c.count, c.error);
  }

  clear(): void {
    this.#heap.length = 0;
    this.#pos.clear();
    this.#total = 0;
  }

  #swap(i: number, j: number): void {
    const a = this.#heap[i];
    const b = this.#heap[j];
    if (a === undefined || b === undefined) return;
    this.#heap[i] = b;
    this.#heap[j] = a;
    this.#pos.set(b.id, i);
    this.#pos.set(a.id, j);
  }

  #countAt(i: number): number {
    return this.#heap[i]?.count ?? Number.POSITIVE_INFINITY;
  }

  #up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >>> 1;
      if (this.#countAt(parent) <= this.#countAt(i)) return;
      this.#swap(i, parent);
      i = parent;
    }
  }

  #down(i: number): void {
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (this.#countAt(left) < this.#countAt(smallest)) smallest = left;
      if (this.#countAt(right) < this.#countAt(smallest)) smallest = right;
      if (smallest === i) return;
      this.#swap(i, smallest);
      i = smallest;
    }
  }
}

export interface WindowedHeavyHittersOptions {
  /** K: counters per slot, default 64. */
  readonly capacity?: number;
  /** Window length in ms, default 60 000. */
  readonly windowMs?: number;
  /** Slots in the window, default 12. */
  readonly slots?: number;
}

export interface WindowTop {
  /** The largest ids of the window, by descending count. */
  readonly hitters: readonly HeavyHitter[];
  /** Exact total weight added in the window (N_window). */
  readonly total: number;
  /** Guaranteed bound on every `error`: N_window / K. */
  readonly errorBound: number;
}

export class WindowedHeavyHitters {
  readonly capacity: number;
  readonly #ring: SlotRing<SpaceSaving>;
  /** bumped by every add: a memoized top is valid while it and the slot epoch are unchanged */
  #version = 0;
  #memo: { readonly epoch: number; readonly version: number; readonly n: number; readonly top: WindowTop } | undefined;

  constructor(options: WindowedHeavyHittersOptions = {}) {
    const capacity = options.capacity ?? 64;
    const windowMs = options.windowMs ?? 60_000;
    const slots = options.slots ?? 12;
    assertCapacity(capacity);
    if (!Number.isInteger(slots) || slots < 1 || slots > 1000) throw new RangeError(`slots must be an integer in 1…1000, got ${slots}`);
    this.capacity = capacity;
    this.#ring = new SlotRing(
      windowMs,
      slots,
      () => new SpaceSaving(capacity),
      (sketch) => {
        sketch.clear();
      },
    );
  }

  get windowMs(): number {
    return this.#ring.windowMs;
  }

  get slotMs(): number {
    return this.#ring.slotMs;
  }

  /** Adds `n` events of `id` at time `now` (ms). */
  add(now: number, id: string, n = 1): void {
    assertWeight(n);
    if (n === 0) return;
    this.#ring.at(now).add(id, n);
    this.#version += 1;
  }

  /**
   * Adds many (id, n) pairs at one time, e.g. a batch aggregated per id. They are added heaviest
   * first (their order within one batch is arbitrary anyway): a batch's dominant id enters the sketch
   * before its light ids can fill it, so it is not given the error of an eviction.
   */
  addAll(now: number, counts: Iterable<readonly [string, number]>): void {
    const batch = [...counts];
    for (const [, n] of batch) assertWeight(n);
    batch.sort((a, b) => b[1] - a[1]);
    const sketch = this.#ring.at(now);
    for (const [id, n] of batch) if (n > 0) sketch.add(id, n);
    this.#version += 1;
  }

  /**
   * The `n` largest ids over the window ending at `now`, with the window total and error bound. The
   * result is kept until the next add or the next slot: scrapes and decisions between writes reuse it.
   */
  top(now: number, n: number = this.capacity): WindowTop {
    const epoch = this.#ring.epochOf(now);
    const memo = this.#memo;
    if (memo !== undefined && memo.epoch === epoch && memo.version === this.#version && memo.n === n) return memo.top;
    const top = this.#top(now, n);
    this.#memo = { epoch, version: this.#version, n, top };
    return top;
  }

  #top(now: number, n: number): WindowTop {
    let total = 0;
    let floors = 0;
    // per id: summed counts and errors of the slots monitoring it, and the floors of those slots
    const acc = new Map<string, { count: number; error: number; floorsSeen: number }>();
    for (const sketch of this.#ring.live(now)) {
      total += sketch.total;
      const floor = sketch.floor();
      floors += floor;
      sketch.forEach((id, count, error) => {
        const a = acc.get(id);
        if (a === undefined) acc.set(id, { count, error, floorsSeen: floor });
        else {
          a.count += count;
          a.error += error;
          a.floorsSeen += floor;
        }
      });
    }
    // a slot that does not monitor the id adds its floor to both count and error
    const merged: HeavyHitter[] = [];
    for (const [id, a] of acc) merged.push({ id, count: a.count + floors - a.floorsSeen, error: a.error + floors - a.floorsSeen });
    return { hitters: merged.sort(byCountDesc).slice(0, Math.max(0, n)), total, errorBound: total / this.capacity };
  }

  /** Monitored entries over all slots (≤ slots × capacity): the memory the sketch holds. */
  entries(): number {
    return this.#ring.all().reduce((s, sketch) => s + sketch.size, 0);
  }
}
