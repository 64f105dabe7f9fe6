// The reads of one /api/query, coalesced: what its sub-queries ask of HBase in the same turn of the
// event loop is read once. Sub-queries over the same range (or window spans) and nearly the same ids
// (a site's temp, hum and load: an id may lack one metric) share one scan for all their metrics and
// the union of their ids: raw points, and stored windows (summaries, point blocks, packs, with the
// pending markers). The sub-queries run
// concurrently (execute.ts), so their reads meet here; a read asked later simply starts its own scan.
import type { PointBudget, TaggedPoints } from '../series-data/points.ts';
import type { SeriesReads } from './series-reads.ts';
import type { MarkedWindow, MarkSpan, StoredWindow, WindowSpan, WindowsRead } from '../series-data/windows.ts';

/** The reads of one sub-query: one metric each. */
export interface MetricReads {
  rawPointsOf(ids: readonly string[], metric: string, from: number, to: number): Promise<ReadonlyMap<string, ReadonlyMap<string, TaggedPoints>>>;
  windowsOf(
    ids: readonly string[],
    metric: string,
    spans: readonly WindowSpan[],
    marks: MarkSpan,
  ): Promise<{
    readonly windows: ReadonlyMap<string, readonly StoredWindow[]>;
    readonly marks: ReadonlyMap<string, readonly MarkedWindow[]>;
    /** ids answered from the window cache */
    readonly cachedIds: ReadonlySet<string>;
    /** the bucket generations the windows were read under (window cache on) */
    readonly gens: ReadonlyMap<number, string> | undefined;
  }>;
}

/** One read asked: of these ids, for one metric. */
interface Ask {
  readonly ids: readonly string[];
  readonly metric: string;
  readonly resolve: (value: unknown) => void;
  readonly reject: (reason: unknown) => void;
}

/** A read that asks in a cluster may read this many more ids than its own (the union of the cluster's). */
const UNION_SLACK = 1.25;

/**
 * Asks of one key (same range or spans) clustered so that each cluster is one read of the union of
 * its ids and metrics: a site's temp, hum and load sub-queries match nearly the same ids (an id may
 * lack one metric), and reading the few more ids is far cheaper than two more scans; asks over
 * mostly other ids stay apart (their union would read many (id, metric) pairs no one asked for).
 */
export function clusterAsks<A extends { readonly ids: readonly string[] }>(asks: readonly A[]): { asks: A[]; ids: Set<string> }[] {
  const clusters: { asks: A[]; ids: Set<string>; largest: number }[] = [];
  for (const a of [...asks].sort((x, y) => y.ids.length - x.ids.length)) {
    const fit = clusters.find((c) => {
      let extra = 0;
      for (const id of a.ids) if (!c.ids.has(id)) extra++;
      return c.ids.size + extra <= UNION_SLACK * Math.max(c.largest, a.ids.length);
    });
    if (fit === undefined) {
      clusters.push({ asks: [a], ids: new Set(a.ids), largest: a.ids.length });
      continue;
    }
    fit.asks.push(a);
    for (const id of a.ids) fit.ids.add(id);
  }
  return clusters.map(({ asks: list, ids }) => ({ asks: list, ids }));
}

/** Reads asked with the same key, joined until the next turn of the event loop, then run once per cluster. */
class Turn {
  readonly #groups = new Map<string, { readonly start: (ids: string[], metrics: string[]) => Promise<unknown>; readonly asks: Ask[] }>();
  #scheduled = false;

  join(key: string, ids: readonly string[], metric: string, start: (ids: string[], metrics: string[]) => Promise<unknown>): Promise<unknown> {
    let group = this.#groups.get(key);
    if (group === undefined) this.#groups.set(key, (group = { start, asks: [] }));
    const joined = group;
    this.#schedule();
    return new Promise((resolve, reject) => joined.asks.push({ ids, metric, resolve, reject }));
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      const groups = [...this.#groups.values()];
      this.#groups.clear();
      for (const g of groups) {
        for (const c of clusterAsks(g.asks)) {
          g.start([...c.ids], [...new Set(c.asks.map((a) => a.metric))]).then(
            (value) => {
              for (const a of c.asks) a.resolve(value);
            },
            (err: unknown) => {
              for (const a of c.asks) a.reject(err);
            },
          );
        }
      }
    });
  }
}

/** One query's reads through `reads`, coalesced; points count against `budget`. */
export function coalescedReads(reads: SeriesReads, budget: PointBudget, concurrency: number): MetricReads {
  const turn = new Turn();
  return {
    async rawPointsOf(ids, metric, from, to) {
      const all = (await turn.join(`raw|${from}|${to}`, ids, metric, (union, metrics) =>
        reads.rawPointsOf({ ids: union, metrics, from, to }, budget, concurrency),
      )) as Map<string, Map<string, Map<string, TaggedPoints>>>;
      return all.get(metric) ?? new Map();
    },
    async windowsOf(ids, metric, spans, marks) {
      const key = `win|${spans.map((sp) => `${sp.sizeMs}/${sp.from}/${sp.to}/${sp.with}`).join(',')}|${marks.sizesMs.join(',')}/${marks.from}/${marks.to}/${marks.closedBy ?? ''}`;
      const all = (await turn.join(key, ids, metric, (union, metrics) =>
        reads.windowsOf({ ids: union, metrics, spans, marks }, budget, concurrency),
      )) as WindowsRead;
      return { windows: all.windows.get(metric) ?? new Map(), marks: all.marks, cachedIds: all.cachedIds, gens: all.gens };
    },
  };
}
