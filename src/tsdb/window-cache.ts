// The window cache: the stored windows the rollup plans read (summaries, and summary packs decoded),
// kept in memory between queries, so a dashboard that asks again for the same days reads the pending
// markers of its ids' buckets and one row of the meta table instead of two rows per id.
//
// Exactness (docs/SERIES-API.md, *Window cache*): each window is kept per (metric, id, size, start,
// content asked) with the generation token of the id's bucket (src/rollup/generations.ts) as read
// BEFORE the scan that found it, and answers only while that token is unchanged. Every writer of a
// bucket's windows (the rollup job, the backfill, `tsingest delete`) replaces the token after its
// write is acknowledged, so a kept window is what a scan would read now. Absent windows are kept too
// (a later first write bumps as well). The pending markers are never kept: they are read every time,
// in one scan of the ids' buckets' marker ranges, and a marked window is answered from the raw points
// as before. Point blocks (raw plans) are not kept: they are large and read once per chart.
//
// Bounds: `maxBytes` (an estimate of each window's heap: its summary and its pack's summaries) with a
// second-chance eviction, and `maxAgeMs`, the staleness bound against writers that do not bump (an
// earlier version's job during a rolling upgrade, a table restored from a snapshot).
import type { MarkedWindow } from './tiles.ts';
import type { MarkSpan, PointBudget, StoredWindow, WindowSpan, WindowsRead } from './series-store.ts';
import type { SeriesReads } from './read-batch.ts';

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

/** Heap estimates: an entry with its map slots, a window object with its summary, a pack's run (a Float64Array). */
const ENTRY_BYTES = 160;
const WINDOW_BYTES = 300;

function bytesOf(w: StoredWindow | null): number {
  return ENTRY_BYTES + (w === null ? 0 : WINDOW_BYTES + (w.pack?.byteLength ?? 0));
}

export interface WindowCacheStats {
  readonly hits: number;
  readonly misses: number;
  readonly evictions: number;
  readonly entries: number;
  readonly bytes: number;
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
  readonly #order = new Set<Entry>();
  #bytes = 0;
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
  get(id: string, span: string, start: number, gen: string, now: number): StoredWindow | null | undefined {
    const e = this.#byId.get(id)?.get(span)?.get(start);
    if (e === undefined || e.gen !== gen || now - e.at > this.#o.maxAgeMs) {
      this.#misses++;
      return undefined;
    }
    this.#hits++;
    e.used = true;
    return e.window;
  }

  set(id: string, span: string, start: number, gen: string, window: StoredWindow | null, now: number): void {
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
    this.#order.add(e);
    this.#bytes += bytes;
    this.#evict();
  }

  /** Second chance: the oldest entry goes unless it was used since it was kept or last spared (then it moves to the back, unused). */
  #evict(): void {
    while (this.#bytes > this.#o.maxBytes) {
      const first = this.#order.values().next();
      if (first.done === true) return;
      const e = first.value;
      this.#order.delete(e);
      if (e.used) {
        e.used = false;
        this.#order.add(e);
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
    return { hits: this.#hits, misses: this.#misses, evictions: this.#evictions, entries: this.#order.size, bytes: this.#bytes };
  }
}

/** What the cached reads need beyond SeriesReads (series-store.ts SeriesStore fits). */
export interface CacheableReads extends SeriesReads {
  marksOf(ids: readonly string[], marks: MarkSpan, budget: PointBudget, concurrency?: number): Promise<Map<string, MarkedWindow[]>>;
  generations(): Promise<Map<number, string>>;
}

/** Window lookups one read may make through the cache; a read asking more (long ranges at a fine size over many ids) goes straight to HBase. */
export const MAX_CACHED_LOOKUPS = 200_000;

/** The starts of a span's windows: multiples of its size in [from, to). */
function startsOf(sp: WindowSpan): number[] {
  const out: number[] = [];
  const first = Math.ceil(Math.max(0, sp.from) / sp.sizeMs) * sp.sizeMs;
  for (let t = first; t < sp.to; t += sp.sizeMs) out.push(t);
  return out;
}

/** A span's part of a window's key: the metric, the size and the content asked (a pack decoded for one finer size is not another's). */
export function spanKey(metric: string, sp: WindowSpan): string {
  return `${metric}\u0000${sp.sizeMs}\u0000${sp.with}\u0000${sp.finerMs ?? 0}`;
}

/**
 * `inner`'s reads with the window cache in front of windowsOf: the ids whose every window asked is
 * kept under their bucket's current generation are answered from it (their markers read alone), the
 * others read by one windowsOf as before, their windows then kept under the generation read first.
 */
export function cachedReads(inner: CacheableReads, cache: WindowCache, bucketOf: (id: string) => number): SeriesReads {
  // The generations read last. A window kept must be tagged with tokens read before the scan that
  // found it: any earlier read will do (an older token only makes the entry end sooner). A window
  // looked up must be checked against tokens read now. So a read with no id kept skips the
  // generations read and tags what it keeps with the last one.
  let last: Map<number, string> | undefined;
  const fresh = async (): Promise<Map<number, string>> => (last = await inner.generations());
  return {
    rawPointsOf: (ids, metrics, from, to, budget, concurrency) => inner.rawPointsOf(ids, metrics, from, to, budget, concurrency),
    async windowsOf(ids, metrics, spans, marks, budget, concurrency) {
      const live = spans.filter((sp) => sp.from < sp.to);
      const starts = live.map(startsOf);
      const perId = starts.reduce((n, s) => n + s.length, 0) * metrics.length;
      if (live.length === 0 || live.some((sp) => sp.with === 'block') || perId * ids.length > MAX_CACHED_LOOKUPS)
        return inner.windowsOf(ids, metrics, spans, marks, budget, concurrency);
      const keys = metrics.map((m) => live.map((sp) => spanKey(m, sp)));
      const gens = last !== undefined && !ids.some((id) => cache.holds(id)) ? last : await fresh();
      const now = cache.now();
      const windows = new Map<string, Map<string, StoredWindow[]>>(metrics.map((m) => [m, new Map()]));
      const used = new Map<number, string>();
      const hit: string[] = [];
      const miss: string[] = [];
      for (const id of ids) {
        const bucket = bucketOf(id);
        const gen = gens.get(bucket) ?? '';
        used.set(bucket, gen);
        const found = lookUp(cache, id, gen, now, keys, starts);
        if (found === undefined) {
          miss.push(id);
          continue;
        }
        hit.push(id);
        metrics.forEach((m, i) => {
          const list = found[i] as StoredWindow[];
          if (list.length > 0) windows.get(m)?.set(id, list);
        });
      }
      const [read, hitMarks] = await Promise.all([
        miss.length === 0 ? undefined : inner.windowsOf(miss, metrics, spans, marks, budget, concurrency),
        hit.length === 0 || marks.from >= marks.to ? new Map<string, MarkedWindow[]>() : inner.marksOf(hit, marks, budget, concurrency),
      ]);
      if (read === undefined) return { windows, marks: hitMarks, cachedIds: new Set(hit), gens: used };
      for (const m of metrics) {
        const into = windows.get(m) as Map<string, StoredWindow[]>;
        for (const [id, list] of read.windows.get(m) ?? []) into.set(id, [...list]);
      }
      // kept after the answer is on its way: the next read looks them up, this one has them
      setImmediate(() => {
        keep(cache, read, miss, gens, bucketOf, now, metrics, live, keys, starts);
      });
      for (const [id, list] of hitMarks) read.marks.set(id, list);
      return { windows, marks: read.marks, cachedIds: new Set(hit), gens: used };
    },
  };
}

/** Every window asked of one id, per metric, when all are kept under `gen`; undefined at the first one that is not. */
function lookUp(
  cache: WindowCache,
  id: string,
  gen: string,
  now: number,
  keys: readonly (readonly string[])[],
  starts: readonly (readonly number[])[],
): StoredWindow[][] | undefined {
  const out: StoredWindow[][] = [];
  for (const spanKeys of keys) {
    const list: StoredWindow[] = [];
    for (let s = 0; s < spanKeys.length; s++) {
      for (const start of starts[s] as readonly number[]) {
        const w = cache.get(id, spanKeys[s] as string, start, gen, now);
        if (w === undefined) return undefined;
        if (w !== null) list.push(w);
      }
    }
    out.push(list);
  }
  return out;
}

/** Keeps every window asked of the ids read (those not found as known absent) under the generation read before the scan. */
function keep(
  cache: WindowCache,
  read: WindowsRead,
  ids: readonly string[],
  gens: ReadonlyMap<number, string>,
  bucketOf: (id: string) => number,
  now: number,
  metrics: readonly string[],
  spans: readonly WindowSpan[],
  keys: readonly (readonly string[])[],
  starts: readonly (readonly number[])[],
): void {
  metrics.forEach((m, i) => {
    const byId = read.windows.get(m);
    const spanKeys = keys[i] as readonly string[];
    for (const id of ids) {
      const gen = gens.get(bucketOf(id)) ?? '';
      const list = byId?.get(id) ?? [];
      for (let s = 0; s < spans.length; s++) {
        const sp = spans[s] as WindowSpan;
        for (const start of starts[s] as readonly number[]) {
          const w = list.find((x) => x.startMs === start && x.sizeMs === sp.sizeMs) ?? null;
          cache.set(id, spanKeys[s] as string, start, gen, w, now);
        }
      }
    }
  });
}
