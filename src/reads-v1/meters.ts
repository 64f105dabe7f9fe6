/**
 * What the read paths report, declared here by the query layer itself so that it never imports the
 * metrics: the meters it times and counts, each with only the calls it makes. The service hands in
 * its Prometheus read metrics (src/metrics/read-metrics.ts); without meters nothing is counted.
 */

/** The kinds of read (`tsingest_query_duration_seconds{kind}`, cursors, the read API's routes). */
export const QUERY_KINDS = ['latest', 'range', 'by_tag', 'rollups'] as const;
export type QueryKind = (typeof QUERY_KINDS)[number];

export interface QueryMeters {
  /** one read of a kind: the returned function ends its timing */
  readonly queryDuration: { startTimer(labels: { kind: QueryKind }): () => unknown };
  /** index hits dropped because their data row is missing or no longer carries the tag value */
  readonly queryDangling: { inc(labels: { index: string }, value?: number): void };
  /** dangling index rows deleted */
  readonly queryRepaired: { inc(labels: { index: string }, value?: number): void };
}
