// The index rows pointing at one data row (shared by ingest's write path and `tsingest index rebuild`
// / the index compare): one per indexed tag it carries, key (tag, value, ts, id) in bucket salt' + j,
// one empty cell per metric, cell timestamp = ts.
import type { Keyspace } from '../keys/index.ts';
import { metricQualifier, type DataRow } from './cells.ts';

const EMPTY = Buffer.alloc(0);

/** What index rows are built from: one data row's id, ts, tags, the metric names it holds and its spread offset j. */
export interface IndexSource {
  readonly id: string;
  readonly ts: number;
  readonly tags: Readonly<Record<string, string>>;
  readonly metrics: readonly string[];
  /** the spread offset j of the data row (its index rows carry the same j) */
  readonly offset: number;
}

export interface IndexRowSettings {
  readonly keyspace: Keyspace;
  readonly indexFamily: string;
  readonly indexTags: readonly string[];
}

/** The index rows of one data row. */
export function buildIndexRows(src: IndexSource, s: IndexRowSettings): DataRow[] {
  const rows: DataRow[] = [];
  if (src.metrics.length === 0) return rows;
  let cells: DataRow['cells'] | undefined;
  for (const indexName of s.indexTags) {
    if (!Object.hasOwn(src.tags, indexName)) continue;
    const value = src.tags[indexName];
    if (value === undefined) continue;
    // The same empty metric cells for every index row of the data row (cells are never mutated).
    cells ??= src.metrics.map((metric) => ({ family: s.indexFamily, qualifier: metricQualifier(metric), value: EMPTY, timestamp: src.ts }));
    rows.push({ key: s.keyspace.indexKey({ indexName, value, ts: src.ts, id: src.id }, src.offset), cells });
  }
  return rows;
}
