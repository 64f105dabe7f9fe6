// The reads in front of the tail cache (tail-cache.ts): kept points up to their completeTo, the rest
// read from HBase, one read shared by the asks of a refresh.
// Design notes: docs/DECISIONS.md#tail-reads
import { lowerBound, sharedBudget, type PointBudget, type RawAsk, type TaggedPoints } from '../series-data/points.ts';
import { clusterAsks } from '../series-query/coalesce-reads.ts';
import type { SeriesReads } from '../series-query/series-reads.ts';
import type { MarkedWindow, MarkSpan } from '../series-data/windows.ts';
import type { TailCache, TailEntry } from './tail-cache.ts';

/** What the tail reads need beyond SeriesReads (series-store.ts SeriesStore fits). */
export interface TailReadsPort extends SeriesReads {
  marksAndTouchesOf(
    ids: readonly string[],
    span: { readonly marks: MarkSpan; readonly touches?: { readonly since: number; readonly until: number } | undefined },
    budget: PointBudget,
    concurrency?: number,
  ): Promise<{ marks: Map<string, MarkedWindow[]>; touches: Map<string, number> }>;
  generations(): Promise<Map<number, string>>;
}

type Sets = Map<string, TaggedPoints>;
type ByMetric = Map<string, Map<string, Sets>>;

/**
 * The points of `p` with from ≤ ts < to: `p` itself when they all are (the cache never changes an
 * array in place, and no reader of the answer does), else a copy of the part.
 */
function slice(p: TaggedPoints, from: number, to: number): TaggedPoints {
  const lo = lowerBound(p.ts, from);
  const hi = lowerBound(p.ts, to);
  if (lo === 0 && hi === p.ts.length) return p;
  return { tagsJson: p.tagsJson, ts: p.ts.slice(lo, hi), values: p.values.slice(lo, hi) };
}

/** `kept`'s points before `cut` followed by `fresh`'s at or after it, per tag set; arrays are never changed in place (a query may hold them). */
function joined(kept: ReadonlyMap<string, TaggedPoints> | undefined, cut: number, fresh: ReadonlyMap<string, TaggedPoints> | undefined): Sets {
  const out: Sets = new Map();
  for (const [k, p] of kept ?? []) {
    const last = p.ts.at(-1);
    const s = last !== undefined && last < cut ? p : slice(p, Number.NEGATIVE_INFINITY, cut);
    if (s.ts.length > 0) out.set(k, s);
  }
  for (const [k, whole] of fresh ?? []) {
    const p = slice(whole, cut, Number.POSITIVE_INFINITY);
    if (p.ts.length === 0) continue;
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
function trimmed(sets: ReadonlyMap<string, TaggedPoints>, from: number): Sets {
  const out: Sets = new Map();
  for (const [k, p] of sets) {
    const i = lowerBound(p.ts, from);
    if (i >= p.ts.length) continue;
    out.set(k, i === 0 ? p : { tagsJson: k, ts: p.ts.slice(i), values: p.values.slice(i) });
  }
  return out;
}

/** What a read of the tail reads through: the port, the cache, and each id's bucket (its generation's). */
export interface TailReads {
  readonly port: TailReadsPort;
  readonly cache: TailCache;
  readonly bucketOf: (id: string) => number;
}

/**
 * One read of the tail of `ids` for `metrics` over [from, to): every id's points there, by metric, id and
 * tag set (the same arrays the cache now keeps), the cache's entries renewed.
 */
async function readTail(tail: TailReads, ask: RawAsk, budget: PointBudget, concurrency: number | undefined): Promise<ByMetric> {
  const { port, cache, bucketOf } = tail;
  const { ids, metrics, from, to } = ask;
  const o = cache.o;
  const now = o.now();
  // tokens and markers before the scans: a write the scans miss changes one or the other by the next
  // read (the markers of the whole horizon: an entry keeps points before this read's `from`, checked here too)
  const horizon = now - o.horizonMs;
  // only markers stamped late enough to drop an entry are read (a scan time range: in a steady refresh,
  // the last seconds' — not the open hour's row naming every active id); none when no id has an entry
  // and the touches (src/ingest/touches.ts) since the earliest an entry allows: an id with none since
  // its entries' reads is answered from them, with no read at all
  let oldest = Number.POSITIVE_INFINITY;
  let touchedSince = Number.POSITIVE_INFINITY;
  for (const id of ids) {
    for (const m of metrics) {
      const e = cache.peek(id, m);
      if (e === undefined) continue;
      oldest = Math.min(oldest, e.readAt);
      touchedSince = Math.min(touchedSince, cache.touchSince(e, to, now) ?? Number.POSITIVE_INFINITY);
    }
  }
  // (touches are stamped when written: up to now and the clocks' tolerance; touchSince bounds the span
  // to TOUCH_TRUST_MS and a little more, a row or two of the ring per bucket)
  const touchSpan = touchedSince === Number.POSITIVE_INFINITY ? undefined : { since: touchedSince, until: now + o.clockToleranceMs };
  const [gens, { marks, touches }] = await Promise.all([
    port.generations(),
    oldest === Number.POSITIVE_INFINITY
      ? { marks: new Map<string, MarkedWindow[]>(), touches: new Map<string, number>() }
      : port.marksAndTouchesOf(
          ids,
          { marks: { sizesMs: [o.markSizeMs], from: horizon, to, stampedSince: cache.lateSince(oldest) }, touches: touchSpan },
          budget,
          concurrency,
        ),
  ]);
  // each id read from its entries' completeTo (the earliest of its metrics'), or whole; not at all
  // when every entry holds and no touch of the id is stamped since the entry's touchSince. One read
  // for all, each id from its own start (RawAsk.fromOf).
  const startOf = new Map<string, number>();
  const kept = new Map<string, (TailEntry | undefined)[]>();
  const untouched = new Set<string>();
  for (const id of ids) {
    const gen = gens.get(bucketOf(id)) ?? '';
    const idMarks = marks.get(id) ?? [];
    const at = { id, gen, marks: idMarks, now };
    const entries = metrics.map((m) => cache.get(at, m, from));
    kept.set(id, entries);
    const touched = touches.get(id) ?? Number.NEGATIVE_INFINITY;
    if (
      touchSpan !== undefined &&
      entries.every((e) => {
        const since = e === undefined ? undefined : cache.touchSince(e, to, now);
        return since !== undefined && since >= touchSpan.since && touched < since;
      })
    ) {
      untouched.add(id);
      cache.untouched();
      continue;
    }
    let start = Number.POSITIVE_INFINITY;
    for (const e of entries) start = Math.min(start, e === undefined ? from : e.completeTo);
    startOf.set(id, Math.max(from, start));
  }
  // An entry answers only under a generation read AFTER the markers: the rollup job bumps a bucket's
  // generation before it removes the marker of the window it wrote (docs/DECISIONS.md#window-generations),
  // so the generations read beside the markers could precede a bump whose marker the markers read then
  // missed. They are read again beside the scans; an id that used an entry in a bucket whose generation
  // moved is read whole, its entries tagged with the newer one.
  const confirm = oldest === Number.POSITIVE_INFINITY ? undefined : port.generations();
  confirm?.catch(() => undefined); // awaited below; not an unhandled rejection if a scan fails first
  const toRead = [...startOf].filter(([, start]) => start < to).map(([id]) => id);
  const got = toRead.length === 0 ? undefined : await port.rawPointsOf({ ids: toRead, metrics, from, to, fromOf: startOf }, budget, concurrency);
  const after = await confirm;
  const moved = new Set(
    after === undefined
      ? []
      : ids.filter((id) => (after.get(bucketOf(id)) ?? '') !== (gens.get(bucketOf(id)) ?? '') && kept.get(id)?.some((e) => e !== undefined) === true),
  );
  const again = moved.size === 0 ? undefined : await port.rawPointsOf({ ids: [...moved], metrics, from, to }, budget, concurrency);
  for (const id of moved) {
    untouched.delete(id);
    kept.set(
      id,
      metrics.map(() => undefined),
    );
    startOf.set(id, from);
  }
  const genOf = (id: string): string => (moved.has(id) ? after : gens)?.get(bucketOf(id)) ?? '';
  const out: ByMetric = new Map(metrics.map((m) => [m, new Map<string, Sets>()]));
  const completeTo = Math.min(to, now - o.lateMs - o.clockToleranceMs);
  for (const id of untouched) {
    // answered from the entries as they are: they stay as read (their readAt is what a touch is compared with)
    const entries = kept.get(id) as TailEntry[];
    metrics.forEach((m, i) => {
      const sets = (entries[i] as TailEntry).sets;
      budget.take(countBefore(sets, to) - countBefore(sets, from));
      if (sets.size > 0) out.get(m)?.set(id, new Map(sets));
    });
  }
  for (const [id, start] of startOf) {
    const entries = kept.get(id) as (TailEntry | undefined)[];
    const gen = genOf(id);
    const read = moved.has(id) ? again : got;
    metrics.forEach((m, i) => {
      const e = entries[i];
      const sets = joined(e?.sets, start, start >= to ? undefined : read?.get(m)?.get(id));
      budget.take(countBefore(sets, start) - countBefore(sets, from)); // kept points a query computes over count as read
      const coveredFrom = Math.max(horizon, Math.min(from, e?.coveredFrom ?? from));
      const keep = trimmed(sets, coveredFrom);
      cache.set(id, m, { gen, readAt: now, readTo: to, coveredFrom, completeTo: Math.max(start, completeTo), sets: keep });
      if (keep.size > 0) out.get(m)?.set(id, keep);
    });
  }
  return out;
}

interface Ask {
  readonly ids: readonly string[];
  readonly from: number;
  readonly to: number;
  readonly budget: PointBudget;
  readonly concurrency: number | undefined;
  readonly resolve: (v: ByMetric) => void;
  readonly reject: (err: unknown) => void;
}

/** One train's asks over nearly the same ids: a read of their union, each answered its own part; its budget charges every ask still waiting. */
async function serveCluster(
  run: (span: Omit<RawAsk, 'metrics'>, budget: PointBudget, concurrency: number | undefined) => Promise<ByMetric>,
  asks: readonly Ask[],
  ids: ReadonlySet<string>,
): Promise<void> {
  const live = new Set(asks);
  const budget = sharedBudget(live, 'tail read');
  const from = Math.min(...asks.map((a) => a.from));
  const to = Math.max(...asks.map((a) => a.to));
  const concurrency = Math.max(...asks.map((a) => a.concurrency ?? 4));
  let got: ByMetric;
  try {
    got = await run({ ids: [...ids], from, to }, budget, concurrency);
  } catch (err) {
    for (const a of live) a.reject(err);
    return;
  }
  for (const a of live) {
    const out: ByMetric = new Map();
    for (const [m, byId] of got) {
      const mine = new Map<string, Sets>();
      for (const id of a.ids) {
        const sets = byId.get(id);
        if (sets === undefined) continue;
        const part: Sets = new Map();
        for (const [k, p] of sets) {
          const s = slice(p, a.from, a.to);
          if (s.ts.length > 0) part.set(k, s);
        }
        if (part.size > 0) mine.set(id, part);
      }
      out.set(m, mine);
    }
    a.resolve(out);
  }
}

/**
 * `reads` with the tail cache in front of rawPointsOf (raw points, markers and generations through
 * `port`), shared between the queries whose asks board the same read (see the top of this file).
 */
/**
 * How reads are shared: a read leaves `lingerMs` after its first ask; asks over fewer than `minIds` ids
 * read on their own at once (sharing saves little there, and a few ids must not wait behind a read of
 * thousands).
 */
export interface TailSharing {
  readonly lingerMs: number;
  readonly minIds: number;
}

export const TAIL_SHARING: TailSharing = { lingerMs: 5, minIds: 64 };

export function withTailCache(reads: SeriesReads, tail: TailReads, sharing: TailSharing = TAIL_SHARING): SeriesReads {
  const { port, cache } = tail;
  const lines = new Map<string, { waiting: Ask[]; busy: boolean; timer: NodeJS.Timeout | undefined }>();
  const depart = (key: string, metrics: readonly string[]): void => {
    const line = lines.get(key);
    if (line === undefined) return;
    line.timer = undefined;
    if (line.busy || line.waiting.length === 0) return;
    const asks = line.waiting.splice(0);
    line.busy = true;
    const run = (span: Omit<RawAsk, 'metrics'>, budget: PointBudget, concurrency: number | undefined): Promise<ByMetric> =>
      readTail(tail, { ...span, metrics }, budget, concurrency);
    void Promise.all(clusterAsks(asks).map((c) => serveCluster(run, c.asks, c.ids))).finally(() => {
      line.busy = false;
      // asks made while this read was under way leave at once: they have waited already
      if (line.waiting.length > 0) depart(key, metrics);
      else lines.delete(key);
    });
  };
  return {
    windowsOf: (...args) => reads.windowsOf(...args),
    rawPointsOf(asked, budget, concurrency) {
      const { ids, metrics, from, to } = asked;
      const o = cache.o;
      if (from >= to || from < o.now() - o.horizonMs || ids.length === 0) return port.rawPointsOf(asked, budget, concurrency);
      if (ids.length < sharing.minIds) {
        return new Promise<ByMetric>((resolve, reject) => {
          const ask: Ask = { ids, from, to, budget, concurrency, resolve, reject };
          void serveCluster((span, b, c) => readTail(tail, { ...span, metrics }, b, c), [ask], new Set(ids));
        });
      }
      const key = `${from}|${metrics.join('\u0000')}`;
      let line = lines.get(key);
      if (line === undefined) lines.set(key, (line = { waiting: [], busy: false, timer: undefined }));
      const boarding = line;
      return new Promise<ByMetric>((resolve, reject) => {
        boarding.waiting.push({ ids, from, to, budget, concurrency, resolve, reject });
        if (!boarding.busy && boarding.timer === undefined) {
          boarding.timer = setTimeout(() => {
            depart(key, metrics);
          }, sharing.lingerMs);
        }
      });
    },
  };
}
