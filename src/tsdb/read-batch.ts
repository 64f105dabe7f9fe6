// The reads of one /api/query, coalesced: what its sub-queries ask of HBase in the same turn of the
// event loop is read once. Sub-queries over the same ids and range that differ only by metric (a
// site's temp, hum and load) share one scan for all their metrics; marker reads of the same sizes
// and range are one scan for the union of their ids. The sub-queries run concurrently (execute.ts),
// so their reads meet here; a read asked later simply starts its own scan.
import type { WindowSummary } from './compute/rollup-exact.ts';
import type { PointBudget, TaggedPoints } from './series-store.ts';

export interface MarkedWindow {
  readonly startMs: number;
  readonly sizeMs: number;
}

/** What a query needs of HBase (series-store.ts SeriesStore fits): each read takes several metrics. */
export interface SeriesReads {
  /** every id's points of each metric, by metric, id and tag set */
  rawPointsOf(ids: readonly string[], metrics: readonly string[], from: number, to: number, budget: PointBudget, concurrency?: number): Promise<Map<string, Map<string, Map<string, TaggedPoints>>>>;
  /** every id's window summaries of each metric, ascending, by metric and id */
  summariesOf(ids: readonly string[], metrics: readonly string[], windowMs: number, from: number, to: number, concurrency?: number): Promise<Map<string, Map<string, WindowSummary[]>>>;
  /** the windows with a pending rollup marker, by id */
  markedWindows(ids: readonly string[], sizesMs: readonly number[], from: number, to: number): Promise<Map<string, MarkedWindow[]>>;
}

/** The reads of one sub-query: one metric each. */
export interface MetricReads {
  rawPointsOf(ids: readonly string[], metric: string, from: number, to: number): Promise<ReadonlyMap<string, ReadonlyMap<string, TaggedPoints>>>;
  summariesOf(ids: readonly string[], metric: string, windowMs: number, from: number, to: number): Promise<ReadonlyMap<string, readonly WindowSummary[]>>;
  markedWindows(ids: readonly string[], sizesMs: readonly number[], from: number, to: number): Promise<ReadonlyMap<string, readonly MarkedWindow[]>>;
}

interface Group {
  /** metrics (or ids, for markers) asked so far */
  readonly items: Set<string>;
  readonly start: (items: string[]) => Promise<unknown>;
  readonly waiters: { resolve: (value: unknown) => void; reject: (reason: unknown) => void }[];
}

/** Requests with the same key, joined until the next turn of the event loop, then run once. */
class Turn {
  readonly #groups = new Map<string, Group>();
  #scheduled = false;

  join(key: string, items: readonly string[], start: (items: string[]) => Promise<unknown>): Promise<unknown> {
    let group = this.#groups.get(key);
    if (group === undefined) this.#groups.set(key, (group = { items: new Set(), start, waiters: [] }));
    for (const item of items) group.items.add(item);
    const joined = group;
    this.#schedule();
    return new Promise((resolve, reject) => joined.waiters.push({ resolve, reject }));
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      const groups = [...this.#groups.values()];
      this.#groups.clear();
      for (const g of groups) {
        g.start([...g.items]).then(
          (value) => { for (const w of g.waiters) w.resolve(value); },
          (err: unknown) => { for (const w of g.waiters) w.reject(err); },
        );
      }
    });
  }
}

function idsKey(ids: readonly string[]): string {
  return [...ids].sort().join('\u0000'); // ids contain no NUL
}

/** One query's reads through `reads`, coalesced; points count against `budget`. */
export function batchedReads(reads: SeriesReads, budget: PointBudget, concurrency: number): MetricReads {
  const turn = new Turn();
  return {
    async rawPointsOf(ids, metric, from, to) {
      const key = `raw|${from}|${to}|${idsKey(ids)}`;
      const all = (await turn.join(key, [metric], (metrics) => reads.rawPointsOf(ids, metrics, from, to, budget, concurrency))) as Map<string, Map<string, Map<string, TaggedPoints>>>;
      return all.get(metric) ?? new Map();
    },
    async summariesOf(ids, metric, windowMs, from, to) {
      const key = `sum|${windowMs}|${from}|${to}|${idsKey(ids)}`;
      const all = (await turn.join(key, [metric], (metrics) => reads.summariesOf(ids, metrics, windowMs, from, to, concurrency))) as Map<string, Map<string, WindowSummary[]>>;
      return all.get(metric) ?? new Map();
    },
    async markedWindows(ids, sizesMs, from, to) {
      const key = `marks|${sizesMs.join(',')}|${from}|${to}`;
      return (await turn.join(key, ids, (union) => reads.markedWindows(union, sizesMs, from, to))) as Map<string, MarkedWindow[]>;
    },
  };
}
