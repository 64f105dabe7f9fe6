// The window cache: the stored windows the rollup plans read, kept in memory between queries
// (docs/SERIES-API.md, "Window cache and answer memo").
// Design notes: docs/DECISIONS.md#window-cache
import type { PointBudget } from '../series-data/points.ts';
import type { SeriesReads } from '../series-query/series-reads.ts';
import type { MarkedWindow, MarkSpan, StoredWindow, WindowSpan, WindowsRead } from '../series-data/windows.ts';
import { eachSliced, Slices } from '../toolkit/slices.ts';
import type { IdStamp, WindowCache } from './window-store.ts';

export { MAX_SPARES, WindowCache, type WindowCacheOptions, type WindowCacheStats } from './window-store.ts';

/** What the cached reads need beyond SeriesReads (series-store.ts SeriesStore fits). */
export interface CacheableReads extends SeriesReads {
  marksOf(ids: readonly string[], marks: MarkSpan, budget: PointBudget, concurrency?: number): Promise<Map<string, MarkedWindow[]>>;
  generations(): Promise<Map<number, string>>;
}

/**
 * Window lookups one read may make through the cache (done in slices of the event loop); a read asking
 * more (long ranges at a fine size over many ids) goes straight to HBase. A day of hourly windows of a
 * site's 10,000 ids is 240,000.
 */
export const MAX_CACHED_LOOKUPS = 1_000_000;

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
  /**
   * The hits whose bucket's generation moved since `gens`, by the generations read now, after the
   * markers (returned too). A kept window answers only under a generation read after its markers: the
   * rollup job puts a window, bumps its bucket's generation, then removes the window's marker
   * (docs/DECISIONS.md#window-generations), so generations read before the markers could precede a
   * bump whose marker removal the marker read then missed: the old window would answer as if nothing
   * were pending.
   */
  const confirmed = async (hit: readonly string[], gens: ReadonlyMap<number, string>): Promise<{ moved: string[]; now: Map<number, string> }> => {
    const now = await fresh();
    return { moved: hit.filter((id) => (now.get(bucketOf(id)) ?? '') !== (gens.get(bucketOf(id)) ?? '')), now };
  };
  return {
    rawPointsOf: (ask, budget, concurrency) => inner.rawPointsOf(ask, budget, concurrency),
    async windowsOf(asked, budget, concurrency) {
      const { ids, metrics, spans, marks } = asked;
      const live = spans.filter((sp) => sp.from < sp.to);
      const starts = live.map(startsOf);
      const perId = starts.reduce((n, s) => n + s.length, 0) * metrics.length;
      if (live.length === 0 || perId * ids.length > MAX_CACHED_LOOKUPS) return inner.windowsOf(asked, budget, concurrency);
      const keys = metrics.map((m) => live.map((sp) => spanKey(m, sp)));
      const ask: CacheAsk = { metrics, spans: live, keys, starts };
      // The markers of the ids the cache may answer are read from the start, beside the generations
      // and the lookups; the generations that let a kept window answer are read AFTER them (see
      // confirmed() below).
      const held = ids.filter((id) => cache.holds(id));
      const heldMarks = held.length === 0 || marks.from >= marks.to ? undefined : inner.marksOf(held, marks, budget, concurrency);
      heldMarks?.catch(() => undefined); // awaited below; not an unhandled rejection if a read before it fails
      // The lookups go under the generations read last when the markers are read (the hits are
      // confirmed against a read after them: a bucket that moved since is read again) or no id is
      // kept: a read before the lookups was one more round trip before them, to no end (the
      // confirmation decides which hits answer, whatever the tokens they were looked up under).
      const gens = last !== undefined && (held.length === 0 || heldMarks !== undefined) ? last : await fresh();
      const now = cache.now();
      const windows = new Map<string, Map<string, StoredWindow[]>>(metrics.map((m) => [m, new Map()]));
      const used = new Map<number, string>();
      const missed = new Set<number>();
      const hit: string[] = [];
      const miss: string[] = [];
      const slices = new Slices();
      for (const id of ids) {
        if (slices.due()) await slices.pause();
        const bucket = bucketOf(id);
        const gen = gens.get(bucket) ?? '';
        used.set(bucket, gen);
        const found = lookUp(cache, { id, gen, now }, ask);
        if (found === undefined) {
          miss.push(id);
          missed.add(bucket);
          continue;
        }
        hit.push(id);
        metrics.forEach((m, i) => {
          const list = found[i] as StoredWindow[];
          if (list.length > 0) windows.get(m)?.set(id, list);
        });
      }
      const [read, marked] = await Promise.all([
        miss.length === 0 ? undefined : inner.windowsOf({ ids: miss, metrics, spans, marks }, budget, concurrency),
        heldMarks ?? new Map<string, MarkedWindow[]>(),
      ]);
      const after = hit.length === 0 || heldMarks === undefined ? undefined : await confirmed(hit, gens);
      const moved = after?.moved ?? [];
      const again = moved.length === 0 ? undefined : await inner.windowsOf({ ids: moved, metrics, spans, marks }, budget, concurrency);
      const out = new Map<string, MarkedWindow[]>(read?.marks);
      for (const id of hit) {
        const list = marked.get(id);
        if (list !== undefined) out.set(id, list);
      }
      for (const [got, of] of [
        [read, miss],
        [again, moved],
      ] as const) {
        if (got === undefined) continue;
        for (const m of metrics) {
          const into = windows.get(m) as Map<string, StoredWindow[]>;
          for (const id of of) into.delete(id);
          for (const [id, list] of got.windows.get(m) ?? []) into.set(id, [...list]);
        }
        for (const [id, list] of got.marks) out.set(id, list);
        // kept after the answer is on its way, in slices: the next read looks them up, this one has them
        const under = got === read ? gens : (after?.now ?? gens);
        setImmediate(() => {
          void keep({ cache, ask, read: got, ids: of, gens: under, bucketOf, now }).catch(() => undefined);
        });
      }
      // a moved bucket's ids were read again after the generations read after the markers: those are
      // the tokens its answer holds under (the answer memo's check), unless an id of it was read by the
      // first scan, before that read
      for (const id of moved) {
        const bucket = bucketOf(id);
        if (!missed.has(bucket)) used.set(bucket, after?.now.get(bucket) ?? '');
      }
      const movedSet = new Set(moved);
      return { windows, marks: out, cachedIds: new Set(hit.filter((id) => !movedSet.has(id))), gens: used };
    },
  };
}

/** What one windowsOf asks of the cache: per metric, the span keys of the live spans; per span, the windows' starts. */
interface CacheAsk {
  readonly metrics: readonly string[];
  readonly spans: readonly WindowSpan[];
  readonly keys: readonly (readonly string[])[];
  readonly starts: readonly (readonly number[])[];
}

/** Every window asked of one id, per metric, when all are kept under `at.gen`; undefined at the first one that is not. */
function lookUp(cache: WindowCache, at: IdStamp, ask: CacheAsk): StoredWindow[][] | undefined {
  const { keys, starts } = ask;
  const out: StoredWindow[][] = [];
  for (const spanKeys of keys) {
    const list: StoredWindow[] = [];
    for (let s = 0; s < spanKeys.length; s++) {
      for (const start of starts[s] as readonly number[]) {
        const w = cache.get(at, spanKeys[s] as string, start);
        if (w === undefined) return undefined;
        if (w !== null) list.push(w);
      }
    }
    out.push(list);
  }
  return out;
}

/** A window as kept: its block copied out of the response body it is a view of (kept, the view would hold the whole body). */
function owned(w: StoredWindow | undefined): StoredWindow | null {
  if (w === undefined) return null;
  return w.block === undefined ? w : { ...w, block: Buffer.from(w.block) };
}

interface Keep {
  readonly cache: WindowCache;
  readonly ask: CacheAsk;
  /** what the scan found of `ids` */
  readonly read: WindowsRead;
  readonly ids: readonly string[];
  /** the generations read before the scan, by bucket */
  readonly gens: ReadonlyMap<number, string>;
  readonly bucketOf: (id: string) => number;
  readonly now: number;
}

/** Keeps every window asked of the ids read (those not found as known absent) under the generation read before the scan, in slices. */
async function keep(o: Keep): Promise<void> {
  const { cache, read, ids, gens, bucketOf, now } = o;
  const { metrics, spans, keys, starts } = o.ask;
  const slices = new Slices();
  for (let m = 0; m < metrics.length; m++) {
    const byId = read.windows.get(metrics[m] as string);
    const spanKeys = keys[m] as readonly string[];
    await eachSliced(ids.length, slices, (i) => {
      const id = ids[i] as string;
      const at = { id, gen: gens.get(bucketOf(id)) ?? '', now };
      // the id's windows by size and start (one look-up each, not a search of the list per window)
      const found = new Map<number, Map<number, StoredWindow>>();
      for (const w of byId?.get(id) ?? []) {
        let bySize = found.get(w.sizeMs);
        if (bySize === undefined) found.set(w.sizeMs, (bySize = new Map<number, StoredWindow>()));
        bySize.set(w.startMs, w);
      }
      for (let s = 0; s < spans.length; s++) {
        const bySize = found.get((spans[s] as WindowSpan).sizeMs);
        for (const start of starts[s] as readonly number[]) cache.set(at, spanKeys[s] as string, start, owned(bySize?.get(start)));
      }
    });
  }
}
