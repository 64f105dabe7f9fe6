// Pure: the facts of a data row and of an index row as read from HBase, and the two checks —
// an index row against the data row it names ("dangling"), and a data row against the index rows
// it should have ("missing"). Expected index rows come from the ingest's own row builder.
import { TAGS_QUALIFIER, decodeTags } from '../events/cells.ts';
import { EventError, buildIndexRows } from '../events/index.ts';
import { KeyError, type IndexEntry } from '../keys/index.ts';
import type { Cell, Row } from '../hbase/types.ts';
import type { IndexToolSettings } from './index-settings.ts';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export interface DataFacts {
  readonly key: Buffer;
  readonly id: string;
  readonly ts: number;
  /** the spread offset j of the row (its index rows carry the same j) */
  readonly offset: number;
  readonly metrics: readonly string[];
  readonly tags: Readonly<Record<string, string>>;
}

export interface IndexFacts {
  readonly key: Buffer;
  readonly entry: IndexEntry;
  /** the data row the index row points at (same id, ts and spread offset j) */
  readonly dataKey: Buffer;
  /** Metric names the index row's qualifiers list. */
  readonly metrics: readonly string[];
}

function familyCells(cells: readonly Cell[], family: string): Cell[] {
  return cells.filter((c) => c.family.toString('utf8') === family);
}

function metricName(q: Buffer): string {
  try {
    return strictUtf8.decode(q);
  } catch (cause) {
    throw new EventError('MALFORMED_CELL', q.toString('hex'), `qualifier ${q.toString('hex')} is not valid UTF-8`, { cause });
  }
}

/**
 * Metric names (qualifiers not starting 0x00) and tags of a data row; throws when malformed, or when
 * the row is not in the bucket the spread registry assigns to its (id, ts) (misplaced: readers of the
 * id would not look there).
 */
export function dataFactsOf(row: Row, s: IndexToolSettings): DataFacts {
  const d = s.keyspace.decodeDataKey(row.row);
  if (!s.keyspace.fits(d)) {
    throw new KeyError(
      'INVALID_SPREAD',
      `misplaced: the row is in spread bucket offset ${d.offset}, the registry puts (${JSON.stringify(d.id)}, ${d.ts}) at offset ${s.keyspace.offsetOf(d.id, d.ts)}`,
    );
  }
  const { id, ts, offset } = d;
  const metrics: string[] = [];
  let tags: Readonly<Record<string, string>> = {};
  for (const c of familyCells(row.cells, s.dataFamily)) {
    if (c.qualifier[0] === 0x00) {
      if (c.qualifier.equals(TAGS_QUALIFIER)) tags = decodeTags(c.value);
      continue;
    }
    metrics.push(metricName(c.qualifier));
  }
  return { key: row.row, id, ts, offset, metrics, tags };
}

/** The decoded key, the data key it points at and the metric qualifiers of an index row; throws when malformed or misplaced. */
export function indexFactsOf(row: Row, s: IndexToolSettings): IndexFacts {
  const d = s.keyspace.decodeIndexKey(row.row);
  if (!s.keyspace.fits(d)) {
    throw new KeyError(
      'INVALID_SPREAD',
      `misplaced: the index row is in spread bucket offset ${d.offset}, the registry puts (${JSON.stringify(d.id)}, ${d.ts}) at offset ${s.keyspace.offsetOf(d.id, d.ts)}`,
    );
  }
  const entry: IndexEntry = { indexName: d.indexName, value: d.value, ts: d.ts, id: d.id };
  const metrics = familyCells(row.cells, s.indexFamily).map((c) => metricName(c.qualifier));
  return { key: row.row, entry, dataKey: d.dataKey, metrics };
}

export type DanglingReason = 'no_data_row' | 'tag_mismatch' | 'metrics_missing';

export interface Dangling {
  readonly key: Buffer;
  readonly entry: IndexEntry;
  readonly reason: DanglingReason;
  /** Metrics the index row names that the data row lacks (all of them when the row is gone). */
  readonly extraMetrics: readonly string[];
  /** For tag_mismatch: the data row's value of the tag (undefined = the tag is absent). */
  readonly dataValue?: string | undefined;
}

/** Why this index row does not match its data row, or null when it does. */
export function checkIndexRow(idx: IndexFacts, data: DataFacts | null): Dangling | null {
  if (data === null) return { key: idx.key, entry: idx.entry, reason: 'no_data_row', extraMetrics: idx.metrics };
  const tag = idx.entry.indexName;
  const dataValue = Object.hasOwn(data.tags, tag) ? data.tags[tag] : undefined;
  if (dataValue !== idx.entry.value) {
    return { key: idx.key, entry: idx.entry, reason: 'tag_mismatch', extraMetrics: idx.metrics, dataValue };
  }
  const have = new Set(data.metrics);
  const extra = idx.metrics.filter((m) => !have.has(m));
  return extra.length === 0 ? null : { key: idx.key, entry: idx.entry, reason: 'metrics_missing', extraMetrics: extra };
}

export interface ExpectedIndexRow {
  readonly key: Buffer;
  readonly entry: IndexEntry;
  readonly metrics: readonly string[];
}

/** The index rows a data row should have for the checked tags (the ingest's row builder). */
export function expectedIndexRows(data: DataFacts, s: IndexToolSettings): ExpectedIndexRow[] {
  const rows = buildIndexRows(
    { id: data.id, ts: data.ts, tags: data.tags, metrics: data.metrics, offset: data.offset },
    { keyspace: s.keyspace, indexFamily: s.indexFamily, indexTags: s.tags },
  );
  return rows.map((r) => {
    const d = s.keyspace.decodeIndexKey(r.key);
    return {
      key: r.key,
      entry: { indexName: d.indexName, value: d.value, ts: d.ts, id: d.id },
      metrics: r.cells.map((c) => c.qualifier.toString('utf8')),
    };
  });
}

export type MissingReason = 'no_index_row' | 'metrics_missing';

export interface Missing {
  readonly key: Buffer;
  readonly entry: IndexEntry;
  readonly reason: MissingReason;
  /** Qualifiers the index row lacks: what a rebuild writes. */
  readonly metrics: readonly string[];
}

/** What the index lacks for one expected row (`present` = metrics of the index row, null = no row). */
export function checkExpectedRow(expected: ExpectedIndexRow, present: readonly string[] | null): Missing | null {
  if (present === null) return { key: expected.key, entry: expected.entry, reason: 'no_index_row', metrics: expected.metrics };
  const have = new Set(present);
  const lacking = expected.metrics.filter((m) => !have.has(m));
  return lacking.length === 0 ? null : { key: expected.key, entry: expected.entry, reason: 'metrics_missing', metrics: lacking };
}
