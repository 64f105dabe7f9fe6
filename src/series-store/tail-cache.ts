// The tail cache: the raw points of recent windows not summarised yet, kept between queries
// (docs/SERIES-API.md, "Tail cache"). The reads in front of it: tail-reads.ts.
// Design notes: docs/DECISIONS.md#tail-cache
import { LATE_REMARK_EVERY_MS } from '../rollup/marker.ts';
import { TOUCH_EVERY_MS, TOUCH_TRUST_MS } from '../rollup/touch.ts';
import { LruMap } from '../toolkit/lru-map.ts';
import type { TaggedPoints } from '../series-data/points.ts';
import type { MarkedWindow } from '../series-data/windows.ts';

export interface TailCacheOptions {
  readonly maxBytes: number;
  readonly maxAgeMs: number;
  /** points younger than this may be kept; reads from before now − horizonMs pass through */
  readonly horizonMs: number;
  /** series.tailCache.lateMs: what ingest re-marks as late */
  readonly lateMs: number;
  readonly clockToleranceMs: number;
  /** the finest rollup window (ms): the size ingest marks */
  readonly markSizeMs: number;
  readonly now: () => number;
}

/** One id's points of one metric, by tag set, ascending. */
export interface TailEntry {
  readonly key: string;
  readonly gen: string;
  readonly readAt: number;
  /** the end of the range read (exclusive) */
  readonly readTo: number;
  readonly coveredFrom: number;
  readonly completeTo: number;
  readonly sets: ReadonlyMap<string, TaggedPoints>;
  readonly bytes: number;
}

const ENTRY_BYTES = 200;
const POINT_BYTES = 16;

export interface TailCacheStats {
  readonly hits: number;
  readonly misses: number;
  readonly evictions: number;
  /** entries that answered without a read: no touch of their id since (src/ingest/touches.ts) */
  readonly untouched: number;
  readonly entries: number;
  readonly bytes: number;
}

/** One id's look-ups: under the generation of its bucket, with its pending markers, at one time. */
export interface TailLookUp {
  readonly id: string;
  readonly gen: string;
  readonly marks: readonly MarkedWindow[];
  readonly now: number;
}

export class TailCache {
  readonly o: TailCacheOptions;
  /** least recently used first */
  readonly #entries = new LruMap<string, TailEntry>();
  #bytes = 0;
  #hits = 0;
  #misses = 0;
  #evictions = 0;
  #untouched = 0;

  constructor(options: TailCacheOptions) {
    this.o = options;
  }

  /** The entry of (id, metric), whether it still holds or not (what markers and touches a check of it needs: those stamped after its read). */
  peek(id: string, metric: string): TailEntry | undefined {
    return this.#entries.peek(`${id}\u0000${metric}`);
  }

  /**
   * The oldest touch stamp of its id that makes the entry read again for a read up to `to`
   * (src/ingest/touches.ts): a point that became visible after the entry's read was touched after it,
   * or covered by a touch at most TOUCH_EVERY_MS older (docs/DECISIONS.md#touch-rows). undefined: the
   * entry may not skip its read: its range ended before `to` (a point past its end may have been there
   * already), or it was read more than TOUCH_TRUST_MS ago.
   */
  touchSince(e: TailEntry, to: number, now: number): number | undefined {
    if (to > e.readTo || e.readAt < now - TOUCH_TRUST_MS) return undefined;
    return e.readAt - this.o.clockToleranceMs - TOUCH_EVERY_MS;
  }

  /** Counts an entry that answered without a read. */
  untouched(): void {
    this.#untouched++;
  }

  /** The oldest stamp a marker can carry and still drop an entry read at `readAt`. */
  lateSince(readAt: number): number {
    return readAt - this.o.clockToleranceMs - LATE_REMARK_EVERY_MS;
  }

  /** The entry of (at.id, metric) when it answers a read of [from, …) under `at.gen` with the id's `at.marks`; undefined otherwise. */
  get(at: TailLookUp, metric: string, from: number): TailEntry | undefined {
    const { id, gen, marks, now } = at;
    const key = `${id}\u0000${metric}`;
    const e = this.#entries.peek(key);
    if (e === undefined || e.gen !== gen || e.coveredFrom > from || now - e.readAt > this.o.maxAgeMs || marks.some((m) => this.#late(m, e))) {
      this.#misses++;
      return undefined;
    }
    this.#hits++;
    this.#entries.get(key); // the most recently used now
    return e;
  }

  /**
   * A marker of a window over the entry's complete points stamped after its read began (less the clock
   * tolerance), or without a stamp. A late point lies in the window it marks, so a window starting at
   * or after completeTo (the next hour's first mark) says nothing about the points kept.
   */
  #late(m: MarkedWindow, e: TailEntry): boolean {
    if (m.startMs >= e.completeTo || m.startMs + m.sizeMs <= e.coveredFrom) return false;
    return m.stamp === undefined || m.stamp > this.lateSince(e.readAt);
  }

  set(id: string, metric: string, e: Omit<TailEntry, 'key' | 'bytes'>): void {
    let points = 0;
    for (const s of e.sets.values()) points += s.ts.length;
    const entry: TailEntry = { ...e, key: `${id}\u0000${metric}`, bytes: ENTRY_BYTES + POINT_BYTES * points };
    const old = this.#entries.peek(entry.key);
    if (old !== undefined) {
      this.#bytes -= old.bytes;
      this.#entries.delete(entry.key);
    }
    if (entry.bytes > this.o.maxBytes) return;
    this.#entries.set(entry.key, entry);
    this.#bytes += entry.bytes;
    while (this.#bytes > this.o.maxBytes) {
      const first = this.#entries.shift();
      if (first === undefined) break;
      this.#bytes -= first[1].bytes;
      this.#evictions++;
    }
  }

  stats(): TailCacheStats {
    return { hits: this.#hits, misses: this.#misses, evictions: this.#evictions, untouched: this.#untouched, entries: this.#entries.size, bytes: this.#bytes };
  }
}
