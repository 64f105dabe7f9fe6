// The reads of one /api/query, coalesced: what its sub-queries ask of HBase in the same turn of the
// event loop is read once. Sub-queries over the same ids and range that differ only by metric (a
// site's temp, hum and load) share one scan for all their metrics: raw points, and stored windows
// (summaries, point blocks, packs, with the pending markers) of the same spans. The sub-queries run
// concurrently (execute.ts), so their reads meet here; a read asked later simply starts its own scan.
import type { MarkSpan, PointBudget, StoredWindow, TaggedPoints, WindowSpan, WindowsRead } from './series-store.ts';
import type { MarkedWindow } from './tiles.ts';

export type { MarkedWindow } from './tiles.ts';

/** What a query needs of HBase (series-store.ts SeriesStore fits): each read takes several metrics. */
export interface SeriesReads {
  /** every id's points of each metric, by metric, id and tag set */
  rawPointsOf(ids: readonly string[], metrics: readonly string[], from: number, to: number, budget: PointBudget, concurrency?: number): Promise<Map<string, Map<string, Map<string, TaggedPoints>>>>;
  /** stored windows (summaries with blocks or packs) of each metric by id, and the pending markers by id, in one scan group */
  windowsOf(ids: readonly string[], metrics: readonly string[], spans: readonly WindowSpan[], marks: MarkSpan, concurrency?: number): Promise<WindowsRead>;
}

/** The reads of one sub-query: one metric each. */
export interface MetricReads {
  rawPointsOf(ids: readonly string[], metric: string, from: number, to: number): Promise<ReadonlyMap<string, ReadonlyMap<string, TaggedPoints>>>;
  windowsOf(ids: readonly string[], metric: string, spans: readonly WindowSpan[], marks: MarkSpan): Promise<{ readonly windows: ReadonlyMap<string, readonly StoredWindow[]>; readonly marks: ReadonlyMap<string, readonly MarkedWindow[]> }>;
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
    async windowsOf(ids, metric, spans, marks) {
      const key = `win|${spans.map((sp) => `${sp.sizeMs}/${sp.from}/${sp.to}/${sp.with}`).join(',')}|${marks.sizesMs.join(',')}/${marks.from}/${marks.to}|${idsKey(ids)}`;
      const all = (await turn.join(key, [metric], (metrics) => reads.windowsOf(ids, metrics, spans, marks, concurrency))) as WindowsRead;
      return { windows: all.windows.get(metric) ?? new Map(), marks: all.marks };
    },
  };
}
