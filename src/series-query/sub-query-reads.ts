// What the reads of one sub-query found (read-points.ts and read-summaries.ts return it, execute.ts
// gathers it): the inputs of the catalog's series, and the counts the plan header reports.
import type { SeriesInput } from '../series-language/types.ts';
import type { MarkSpan } from '../series-data/windows.ts';

/** A series as the catalog shows it: its tags include the id under the id tag key. */
export interface CatalogSeries {
  readonly metric: string;
  readonly id: string;
  readonly tags: Readonly<Record<string, string>>;
}

/** The series of a sub-query by id, then by tag set (tagSetKey). */
export type IdSeries = ReadonlyMap<string, ReadonlyMap<string, CatalogSeries>>;

/** What a sub-query's reads took where: the counts the plan header shows. */
export interface ReadCounts {
  /** raw points read (from the data table or point blocks; summary windows are not counted) */
  readonly points: number;
  /** rollup plans: downsample buckets answered from raw points because their windows were not summarised for good */
  readonly rawBuckets: number;
  /** rollup plans: of those, buckets the data table no longer holds whole */
  readonly expiredBuckets: number;
  /** raw plans: windows (of any id) whose points came from a point block */
  readonly blockWindows: number;
  /** raw plans: ranges (of any id) read from the data table */
  readonly rawRanges: number;
  /** raw plans of a `0all` downsample folded from summaries: windows (of any id) whose summary answered */
  readonly summaryWindows: number;
  /** rollup plans: coarser windows (of any id) whose finer summaries came from a summary pack */
  readonly packWindows: number;
  /** rollup plans: ids whose windows came from the window cache (window-cache.ts) */
  readonly cachedIds: number;
}

/**
 * A rollup plan answered from stored windows alone (no marker, no bucket read raw, one series per
 * id), read under known generations: what the answer memo keeps with the answer (answer-memo.ts).
 */
export interface FromWindows {
  readonly ids: readonly string[];
  readonly gens: ReadonlyMap<number, string>;
  readonly marks: MarkSpan;
}

/** What one read of a sub-query found. */
export interface Found {
  /** each series' input, in the order the reads finished */
  readonly inputs: readonly (readonly [CatalogSeries, SeriesInput])[];
  /** what it took where (a count left out is 0) */
  readonly counts: Partial<ReadCounts>;
  readonly fromWindows?: FromWindows | undefined;
}

/** A read that found nothing and took nothing. */
export const FOUND_NOTHING: Found = { inputs: [], counts: {} };

/** The counts of several reads, added. */
export function addCounts(parts: readonly Partial<ReadCounts>[]): ReadCounts {
  const sum = (key: keyof ReadCounts): number => parts.reduce((n, c) => n + (c[key] ?? 0), 0);
  return {
    points: sum('points'),
    rawBuckets: sum('rawBuckets'),
    expiredBuckets: sum('expiredBuckets'),
    blockWindows: sum('blockWindows'),
    rawRanges: sum('rawRanges'),
    summaryWindows: sum('summaryWindows'),
    packWindows: sum('packWindows'),
    cachedIds: sum('cachedIds'),
  };
}

/** The inputs found, put back in the catalog's order of `series` (an answer must not depend on timing). */
export function inCatalogOrder(series: readonly CatalogSeries[], inputs: Found['inputs']): SeriesInput[] {
  const order = new Map(series.map((s, n) => [s, n]));
  return inputs
    .map(([s, input]) => ({ n: order.get(s) ?? 0, input }))
    .sort((a, b) => a.n - b.n)
    .map((g) => g.input);
}
