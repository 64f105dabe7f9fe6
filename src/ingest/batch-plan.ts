// Pure: turns a run of Kafka records into the rows to write (data rows, index rows) and the records
// to dead-letter, and cuts work into flush units and write chunks. No I/O.
import type { Keyspace } from '../keys/index.ts';
import { buildEventCells, describeReject, metricQualifier, parseEventCells, type DataCell, type DataRow, type EventLimits, type FieldMapping, type ParseRejected, type TsEvent } from '../events/index.ts';
import type { RejectReason } from '../events/index.ts';

export interface SourceRecord {
  readonly offset: string;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly timestamp: string;
}

export interface PlanSettings {
  readonly mapping: FieldMapping;
  readonly limits: EventLimits;
  /** the key layout and the spread registry's view (src/keys/keyspace.ts) */
  readonly keyspace: Keyspace;
  readonly dataFamily: string;
  readonly indexFamily: string;
  readonly indexTags: readonly string[];
  /**
   * Events with ts ≥ this (the writer's fence horizon, src/spread/timing.ts) are only planned once
   * their id's fence covers them; the plan lists what to raise. Omitted: no fences (no registry).
   */
  readonly fenceFrom?: number | undefined;
}

export interface Rejected {
  readonly record: SourceRecord;
  readonly reason: RejectReason;
  readonly field?: string | undefined;
  readonly detail: string;
}

/** A row to write and the salt bucket its key starts with (for the per-bucket write metrics). */
export interface PlannedRow {
  readonly row: DataRow;
  readonly bucket: number;
}

/** One accepted event: its data row and the index rows that point at it. */
export interface PlannedEvent {
  readonly record: SourceRecord;
  readonly id: string;
  readonly ts: number;
  /** the event's metric and tags (its series, for the series catalog) */
  readonly metric: string;
  readonly tags: Readonly<Record<string, string>>;
  /** the encoded tags cell (canonical tags JSON), undefined without tags */
  readonly tagsCell: Buffer | undefined;
  readonly data: PlannedRow;
  readonly index: readonly PlannedRow[];
}

export interface BatchPlan {
  readonly events: PlannedEvent[];
  readonly rejects: Rejected[];
  /** id → the largest far-future ts whose fence is not yet raised (plan again once it is) */
  readonly fences: Map<string, number>;
}

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

export type IndexRowSettings = Pick<PlanSettings, 'keyspace' | 'indexFamily' | 'indexTags'>;

/**
 * The index rows pointing at one data row (shared by ingest and `tsingest index rebuild`): one per
 * indexed tag it carries, key (tag, value, ts, id) in bucket salt' + j, one empty cell per metric,
 * cell timestamp = ts.
 */
export function buildIndexRows(src: IndexSource, s: IndexRowSettings): DataRow[] {
  const rows: DataRow[] = [];
  if (src.metrics.length === 0) return rows;
  for (const indexName of s.indexTags) {
    if (!Object.hasOwn(src.tags, indexName)) continue;
    const value = src.tags[indexName];
    if (value === undefined) continue;
    rows.push({
      key: s.keyspace.indexKey({ indexName, value, ts: src.ts, id: src.id }, src.offset),
      cells: src.metrics.map((metric) => ({ family: s.indexFamily, qualifier: metricQualifier(metric), value: EMPTY, timestamp: src.ts })),
    });
  }
  return rows;
}

/** Index rows of one event, each with its bucket: salt' is the first byte of an index key. */
function indexRowsOf(event: TsEvent, offset: number, s: PlanSettings): PlannedRow[] {
  const rows: PlannedRow[] = [];
  if (s.indexTags.length === 0) return rows;
  let cells: DataCell[] | undefined;
  for (const indexName of s.indexTags) {
    if (!Object.hasOwn(event.tags, indexName)) continue;
    const value = event.tags[indexName];
    if (value === undefined) continue;
    const key = s.keyspace.indexKey({ indexName, value, ts: event.ts, id: event.id }, offset);
    // The same empty metric cell for every index row of the event (cells are never mutated).
    cells ??= [{ family: s.indexFamily, qualifier: metricQualifier(event.metric), value: EMPTY, timestamp: event.ts }];
    rows.push({ row: { key, cells }, bucket: key[0] as number });
  }
  return rows;
}

function reject(record: SourceRecord, r: ParseRejected): Rejected {
  return { record, reason: r.reason, field: r.field, detail: describeReject(r) };
}

export function planBatch(records: readonly SourceRecord[], s: PlanSettings): BatchPlan {
  const plan: BatchPlan = { events: [], rejects: [], fences: new Map() };
  const fenceFrom = s.fenceFrom ?? Number.POSITIVE_INFINITY;
  for (const record of records) {
    if (record.value === null) {
      plan.rejects.push({ record, reason: 'invalid_json', detail: 'invalid_json: the record has no value (tombstone)' });
      continue;
    }
    const parsed = parseEventCells(record.value, s.mapping, s.limits);
    if (!parsed.ok) {
      plan.rejects.push(reject(record, parsed));
      continue;
    }
    const event = parsed.event;
    let key: Buffer;
    let index: PlannedRow[];
    if (event.ts >= fenceFrom && (s.keyspace.entryOf(event.id)?.fence ?? -1) < event.ts) {
      plan.fences.set(event.id, Math.max(plan.fences.get(event.id) ?? 0, event.ts));
    }
    try {
      const offset = s.keyspace.offsetOf(event.id, event.ts);
      key = s.keyspace.dataKey(event.id, event.ts, offset);
      index = indexRowsOf(event, offset, s);
    } catch (err) {
      plan.rejects.push({ record, reason: 'key_invalid', detail: `key_invalid: ${(err as Error).message}` });
      continue;
    }
    const data = { row: { key, cells: buildEventCells(event, s.dataFamily, parsed.tagsCell) }, bucket: s.keyspace.dataBucket(key) };
    plan.events.push({ record, id: event.id, ts: event.ts, metric: event.metric, tags: event.tags, tagsCell: parsed.tagsCell, data, index });
  }
  return plan;
}

export function rowBytes(row: DataRow): number {
  let n = row.key.length;
  for (const c of row.cells) n += c.qualifier.length + c.value.length + c.family.length + 16;
  return n;
}

/** Cuts rows into chunks of at most maxRows rows and about maxBytes bytes (a single larger row gets its own chunk). */
export function chunkRows<T>(items: readonly T[], maxRows: number, maxBytes: number, sizeOf: (item: T) => number): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = sizeOf(item);
    if (current.length > 0 && (current.length >= maxRows || bytes + size > maxBytes)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

export function recordBytes(r: SourceRecord): number {
  return (r.value?.length ?? 0) + (r.key?.length ?? 0);
}
