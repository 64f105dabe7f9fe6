// The tail cache: the raw points of recent windows (those not summarised yet: the open hour, the hour
// in its grace period) that the series API read, kept between queries, so a dashboard whose ranges end
// now reads, at each refresh, only what is new since its last read and the last `lateMs` before it,
// not the whole open hour of every id again.
//
// Exactness (docs/SERIES-API.md, *Tail cache*). An entry holds one id's points of one metric over
// [coveredFrom, completeTo): every point there that HBase held when the entry's read began (readAt),
// with completeTo = readAt − lateMs − c (c: the hosts' clock tolerance). A point with ts < completeTo
// that became visible after readAt was written more than lateMs after its ts: ingest marks such a
// late event's window again (src/ingest/rollup-marks.ts), with a stamp after readAt − c. So an entry
// answers only while
//   - no pending marker of its id over the range read carries a stamp after readAt − c (markers are
//     read at every query, one scan of the ids' buckets' marker rows),
//   - its bucket's window generation is the one read before its scan (the rollup job bumps it after it
//     summarises a window, before it removes the window's marker; `tsingest delete` bumps it too),
//   - it is younger than maxAgeMs (the bound against writers that do not re-mark: an earlier version).
// The points since completeTo are read again at every query. Reads that start before now − horizonMs
// pass through untouched.
//
// Bounds: `maxBytes` (16 bytes a point and an entry's overhead), least recently used evicted first, in
// constant time per entry.
import type { MarkedWindow } from './tiles.ts';
import type { MarkSpan, PointBudget, TaggedPoints } from './series-store.ts';
import type { SeriesReads } from './read-batch.ts';

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
interface Entry {
  readonly key: string;
  readonly gen: string;
  readonly readAt: number;
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
  readonly entries: number;
  readonly bytes: number;
}

export class TailCache {
  readonly o: TailCacheOptions;
  /** least recently used first (a Map keeps insertion order: a use re-inserts) */
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;
  #hits = 0;
  #misses = 0;
  #evictions = 0;

  constructor(options: TailCacheOptions) {
    this.o = options;
  }

  /** The entry of (id, metric) when it answers a read of [from, …) under `gen` with the id's `marks`; undefined otherwise. */
  get(id: string, metric: string, from: number, gen: string, marks: readonly MarkedWindow[], now: number): Entry | undefined {
    const key = `${id}\u0000${metric}`;
    const e = this.#entries.get(key);
    if (e === undefined || e.gen !== gen || e.coveredFrom > from || now - e.readAt > this.o.maxAgeMs || marks.some((m) => this.#late(m, e))) {
      this.#misses++;
      return undefined;
    }
    this.#hits++;
    this.#entries.delete(key);
    this.#entries.set(key, e);
    return e;
  }

  /** A marker stamped after the entry's read began (less the clock tolerance), or without a stamp. */
  #late(m: MarkedWindow, e: Entry): boolean {
    return m.stamp === undefined || m.stamp > e.readAt - this.o.clockToleranceMs;
  }

  set(id: string, metric: string, e: Omit<Entry, 'key' | 'bytes'>): void {
    let points = 0;
    for (const s of e.sets.values()) points += s.ts.length;
    const entry: Entry = { ...e, key: `${id}\u0000${metric}`, bytes: ENTRY_BYTES + POINT_BYTES * points };
    const old = this.#entries.get(entry.key);
    if (old !== undefined) {
      this.#bytes -= old.bytes;
      this.#entries.delete(entry.key);
    }
    if (entry.bytes > this.o.maxBytes) return;
    this.#entries.set(entry.key, entry);
    this.#bytes += entry.bytes;
    while (this.#bytes > this.o.maxBytes) {
      const first = this.#entries.values().next();
      if (first.done === true) break;
      this.#entries.delete(first.value.key);
      this.#bytes -= first.value.bytes;
      this.#evictions++;
    }
  }

  stats(): TailCacheStats {
    return { hits: this.#hits, misses: this.#misses, evictions: this.#evictions, entries: this.#entries.size, bytes: this.#bytes };
  }
}

/** What the tail cache needs beyond SeriesReads (series-store.ts SeriesStore fits). */
export interface TailReadsPort extends SeriesReads {
  marksOf(ids: readonly string[], marks: MarkSpan, budget: PointBudget, concurrency?: number): Promise<Map<string, MarkedWindow[]>>;
  generations(): Promise<Map<number, string>>;
}

type ByMetric = Map<string, Map<string, Map<string, TaggedPoints>>>;

function lowerBound(a: readonly number[], x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((a[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The points of `p` with from ≤ ts < to (a copy: a query computes over its own arrays). */
function slice(p: TaggedPoints, from: number, to: number): TaggedPoints {
  const lo = lowerBound(p.ts, from);
  const hi = lowerBound(p.ts, to);
  return { tagsJson: p.tagsJson, ts: p.ts.slice(lo, hi), values: p.values.slice(lo, hi) };
}

/** `kept`'s points before `cut` followed by `fresh`'s (all at or after cut), per tag set; arrays are never changed in place (a query may hold them). */
function joined(
  kept: ReadonlyMap<string, TaggedPoints> | undefined,
  cut: number,
  fresh: ReadonlyMap<string, TaggedPoints> | undefined,
): Map<string, TaggedPoints> {
  const out = new Map<string, TaggedPoints>();
  for (const [k, p] of kept ?? []) {
    const last = p.ts.at(-1);
    const s = last !== undefined && last < cut ? p : slice(p, Number.NEGATIVE_INFINITY, cut);
    if (s.ts.length > 0) out.set(k, s);
  }
  for (const [k, p] of fresh ?? []) {
    const before = out.get(k);
    out.set(k, before === undefined ? p : { tagsJson: k, ts: before.ts.concat(p.ts), values: before.values.concat(p.values) });
  }
  return out;
}

/** Points with ts < `to` (those a read from `to` on did not count). */
function countBefore(sets: ReadonlyMap<string, TaggedPoints>, to: number): number {
  let n = 0;
  for (const p of sets.values()) n += lowerBound(p.ts, to);
  return n;
}

/** Every tag set's points from `from` on. */
function trimmed(sets: ReadonlyMap<string, TaggedPoints>, from: number): Map<string, TaggedPoints> {
  const out = new Map<string, TaggedPoints>();
  for (const [k, p] of sets) {
    const i = lowerBound(p.ts, from);
    if (i >= p.ts.length) continue;
    out.set(k, i === 0 ? p : { tagsJson: k, ts: p.ts.slice(i), values: p.values.slice(i) });
  }
  return out;
}

/**
 * `reads` with the tail cache in front of rawPointsOf (raw points, markers and generations through
 * `port`): a read of [from, to) with from in the last horizonMs takes, for each id whose entries hold,
 * the kept points up to their completeTo and reads only [completeTo, to); the other ids are read
 * whole. Entries are then kept with what was read.
 */
export function withTailCache(reads: SeriesReads, port: TailReadsPort, cache: TailCache, bucketOf: (id: string) => number): SeriesReads {
  const o = cache.o;
  return {
    windowsOf: (...args) => reads.windowsOf(...args),
    async rawPointsOf(ids, metrics, from, to, budget, concurrency) {
      const now = o.now();
      if (from >= to || from < now - o.horizonMs || ids.length === 0) return port.rawPointsOf(ids, metrics, from, to, budget, concurrency);
      // tokens and markers before the scans: a write the scans miss changes one or the other by the next read
      // (the markers of the whole horizon: an entry keeps points before this read's `from`, checked here too)
      const horizon = now - o.horizonMs;
      const [gens, marks] = await Promise.all([port.generations(), port.marksOf(ids, { sizesMs: [o.markSizeMs], from: horizon, to }, budget, concurrency)]);
      // each id read from its entries' completeTo (the earliest of its metrics'), or whole
      const groups = new Map<number, string[]>();
      const kept = new Map<string, (Entry | undefined)[]>();
      for (const id of ids) {
        const gen = gens.get(bucketOf(id)) ?? '';
        const idMarks = marks.get(id) ?? [];
        const entries = metrics.map((m) => cache.get(id, m, from, gen, idMarks, now));
        let start = Number.POSITIVE_INFINITY;
        for (const e of entries) start = Math.min(start, e === undefined ? from : e.completeTo);
        start = Math.max(from, start);
        kept.set(id, entries);
        const group = groups.get(start);
        if (group === undefined) groups.set(start, [id]);
        else group.push(id);
      }
      const reads = await Promise.all(
        [...groups].map(async ([start, group]) => ({
          start,
          group,
          got: start >= to ? undefined : await port.rawPointsOf(group, metrics, start, to, budget, concurrency),
        })),
      );
      const out: ByMetric = new Map(metrics.map((m) => [m, new Map<string, Map<string, TaggedPoints>>()]));
      const completeTo = Math.min(to, now - o.lateMs - o.clockToleranceMs);
      for (const { start, group, got } of reads) {
        for (const id of group) {
          const entries = kept.get(id) as (Entry | undefined)[];
          const gen = gens.get(bucketOf(id)) ?? '';
          metrics.forEach((m, i) => {
            const e = entries[i];
            const sets = joined(e?.sets, start, got?.get(m)?.get(id));
            const answer = new Map<string, TaggedPoints>();
            for (const [k, p] of sets) {
              const s = slice(p, from, to);
              if (s.ts.length > 0) answer.set(k, s);
            }
            budget.take(countBefore(answer, start)); // kept points the query computes over count as read
            if (answer.size > 0) out.get(m)?.set(id, answer);
            const coveredFrom = Math.max(horizon, Math.min(from, e?.coveredFrom ?? from));
            cache.set(id, m, { gen, readAt: now, coveredFrom, completeTo: Math.max(start, completeTo), sets: trimmed(sets, coveredFrom) });
          });
        }
      }
      return out;
    },
  };
}
