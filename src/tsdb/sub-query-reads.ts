// What the reads of one sub-query share (execute.ts runs them, read-points.ts and read-summaries.ts
// do them): the catalog's series by id, the inputs collected in catalog order, and the counts the
// plan header reports.
import type { PointBudget } from './points.ts';
import type { MarkSpan } from './windows.ts';
import type { SeriesInput } from './types.ts';

/** A series as the catalog shows it: its tags include the id under the id tag key. */
export interface CatalogSeries {
  readonly metric: string;
  readonly id: string;
  readonly tags: Readonly<Record<string, string>>;
}

/** The series of a sub-query by id, then by tag set (tagSetKey). */
export type IdSeries = ReadonlyMap<string, ReadonlyMap<string, CatalogSeries>>;

/** Inputs collected as reads finish, put back in catalog order (an answer must not depend on timing). */
export class Inputs {
  readonly #order: ReadonlyMap<CatalogSeries, number>;
  readonly #got: { n: number; input: SeriesInput }[] = [];

  constructor(series: readonly CatalogSeries[]) {
    this.#order = new Map(series.map((s, n) => [s, n]));
  }

  add(s: CatalogSeries, input: SeriesInput): void {
    this.#got.push({ n: this.#order.get(s) ?? 0, input });
  }

  ordered(): SeriesInput[] {
    return this.#got.sort((a, b) => a.n - b.n).map((g) => g.input);
  }
}

/** What one sub-query read: its series' inputs and the counts the plan header shows. */
export interface SubQueryReads {
  readonly inputs: Inputs;
  /** raw points read (from the data table or point blocks; summary windows are not counted) */
  points: number;
  /** rollup plans: downsample buckets answered from raw points because their windows were not summarised for good */
  rawBuckets: number;
  /** rollup plans: of those, buckets the data table no longer holds whole */
  expiredBuckets: number;
  /** raw plans: windows (of any id) whose points came from a point block */
  blockWindows: number;
  /** raw plans: ranges (of any id) read from the data table */
  rawRanges: number;
  /** raw plans of a `0all` downsample folded from summaries: windows (of any id) whose summary answered */
  summaryWindows: number;
  /** rollup plans: coarser windows (of any id) whose finer summaries came from a summary pack */
  packWindows: number;
  /** rollup plans: ids whose windows came from the window cache (window-cache.ts) */
  cachedIds: number;
  /**
   * rollup plans answered from stored windows alone (no marker, no bucket read raw, one series per
   * id), read under known generations: what the answer memo keeps with the answer (answer-memo.ts)
   */
  fromWindows: { readonly ids: readonly string[]; readonly gens: ReadonlyMap<number, string>; readonly marks: MarkSpan } | undefined;
  /** the query's point budget: block points count too */
  readonly budget: PointBudget;
}

export function newReads(series: readonly CatalogSeries[], budget: PointBudget): SubQueryReads {
  return {
    inputs: new Inputs(series),
    points: 0,
    rawBuckets: 0,
    expiredBuckets: 0,
    blockWindows: 0,
    rawRanges: 0,
    summaryWindows: 0,
    packWindows: 0,
    cachedIds: 0,
    fromWindows: undefined,
    budget,
  };
}
