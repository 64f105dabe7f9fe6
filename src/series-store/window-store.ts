// The window cache's store (window-cache.ts has the whole story): windows by id, span key and start,
// each with the generation it was read under, bounded in bytes (second chance in constant time per
// entry) and in age.
import { LruMap } from '../toolkit/lru-map.ts';
import type { StoredWindow } from '../series-data/windows.ts';

export interface WindowCacheOptions {
  readonly maxBytes: number;
  readonly maxAgeMs: number;
  readonly now: () => number;
}

interface Entry {
  readonly id: string;
  readonly span: string;
  readonly start: number;
  readonly gen: string;
  readonly at: number;
  readonly window: StoredWindow | null;
  readonly bytes: number;
  used: boolean;
}

/** One id's look-ups or keeps: under the generation of its bucket, at one time. */
export interface IdStamp {
  readonly id: string;
  readonly gen: string;
  readonly now: number;
}

/** Used entries one set() moves to the back (a second chance) before it evicts whatever is oldest. */
export const MAX_SPARES = 8;

/** Heap estimates: an entry with its map slots, a window object with its summary, a pack's run (a Float64Array). */
const ENTRY_BYTES = 160;
const WINDOW_BYTES = 300;

function bytesOf(w: StoredWindow | null): number {
  return ENTRY_BYTES + (w === null ? 0 : WINDOW_BYTES + (w.pack?.byteLength ?? 0) + (w.block?.length ?? 0));
}

export interface WindowCacheStats {
  readonly hits: number;
  readonly misses: number;
  readonly evictions: number;
  readonly entries: number;
  readonly bytes: number;
  /** entries looked at by eviction (spared or evicted): at most MAX_SPARES + the evictions, per set() */
  readonly evictionSteps: number;
}

/**
 * Windows by id, then span key (metric, size and content asked: spanKey), then start, each with the
 * generation it was read under; bounded in bytes and age. (Nested maps: the id and span key strings
 * are the caller's, their hashes computed once, where one composed key per window cost more than the
 * rest of a cached read.)
 */
export class WindowCache {
  readonly #o: WindowCacheOptions;
  readonly #byId = new Map<string, Map<string, Map<number, Entry>>>();
  /** every entry, oldest first (the eviction's order) */
  readonly #order = new LruMap<Entry, Entry>();
  #bytes = 0;
  #steps = 0;
  #hits = 0;
  #misses = 0;
  #evictions = 0;

  constructor(options: WindowCacheOptions) {
    this.#o = options;
  }

  now(): number {
    return this.#o.now();
  }

  /** The window kept for (id, span key, start) under generation `gen` (null: known absent), or undefined when none is kept or it is stale. */
  get(at: IdStamp, span: string, start: number): StoredWindow | null | undefined {
    const { id, gen, now } = at;
    const e = this.#byId.get(id)?.get(span)?.get(start);
    if (e === undefined || e.gen !== gen || now - e.at > this.#o.maxAgeMs) {
      this.#misses++;
      return undefined;
    }
    this.#hits++;
    e.used = true;
    return e.window;
  }

  set(at: IdStamp, span: string, start: number, window: StoredWindow | null): void {
    const { id, gen, now } = at;
    const bytes = bytesOf(window);
    if (bytes > this.#o.maxBytes) return;
    let spans = this.#byId.get(id);
    if (spans === undefined) this.#byId.set(id, (spans = new Map<string, Map<number, Entry>>()));
    let starts = spans.get(span);
    if (starts === undefined) spans.set(span, (starts = new Map<number, Entry>()));
    const old = starts.get(start);
    if (old !== undefined) {
      this.#bytes -= old.bytes;
      this.#order.delete(old);
    }
    const e: Entry = { id, span, start, gen, at: now, window, bytes, used: false };
    starts.set(start, e);
    this.#order.set(e, e);
    this.#bytes += bytes;
    this.#evict();
  }

  /**
   * Second chance: the oldest entry goes unless it was used since it was kept or last spared (then it
   * moves to the back, unused), up to MAX_SPARES spares per call; then the oldest goes, used or not.
   */
  #evict(): void {
    let spares = 0;
    while (this.#bytes > this.#o.maxBytes) {
      const e = this.#order.shift()?.[1];
      if (e === undefined) return;
      this.#steps++;
      if (e.used && spares < MAX_SPARES) {
        spares++;
        e.used = false;
        this.#order.set(e, e);
        continue;
      }
      this.#remove(e);
    }
  }

  #remove(e: Entry): void {
    const spans = this.#byId.get(e.id);
    const starts = spans?.get(e.span);
    starts?.delete(e.start);
    if (starts?.size === 0) spans?.delete(e.span);
    if (spans?.size === 0) this.#byId.delete(e.id);
    this.#bytes -= e.bytes;
    this.#evictions++;
  }

  /** Whether any window of the id is kept (under any generation). */
  holds(id: string): boolean {
    return this.#byId.has(id);
  }

  stats(): WindowCacheStats {
    return { hits: this.#hits, misses: this.#misses, evictions: this.#evictions, entries: this.#order.size, bytes: this.#bytes, evictionSteps: this.#steps };
  }
}
