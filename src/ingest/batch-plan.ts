// Pure: turns a run of Kafka records into the rows to write (data rows, index rows) and the records
// to dead-letter, and cuts work into flush units and write chunks. No I/O.
import { encodeDataKey, encodeIndexKey, encodePrintableDataKey, type IndexSaltMode, type KeyFormat } from '../keys/index.ts';
import { buildEventCells, describeReject, parseEvent, type DataRow, type EventLimits, type FieldMapping, type ParseRejected, type TsEvent } from '../events/index.ts';
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
  readonly buckets: number;
  readonly keyFormat: KeyFormat;
  readonly dataFamily: string;
  readonly indexFamily: string;
  readonly indexTags: readonly string[];
  readonly indexSaltMode: IndexSaltMode;
}

export interface Rejected {
  readonly record: SourceRecord;
  readonly reason: RejectReason;
  readonly field?: string | undefined;
  readonly detail: string;
}

/** One accepted event: its data row and the index rows that point at it. */
export interface PlannedEvent {
  readonly record: SourceRecord;
  readonly id: string;
  readonly ts: number;
  readonly dataRow: DataRow;
  readonly indexRows: readonly DataRow[];
}

export interface BatchPlan {
  readonly events: PlannedEvent[];
  readonly rejects: Rejected[];
}

const EMPTY = Buffer.alloc(0);

function indexRowsOf(event: TsEvent, s: PlanSettings): DataRow[] {
  const rows: DataRow[] = [];
  for (const indexName of s.indexTags) {
    const value = event.tags[indexName];
    if (value === undefined) continue;
    // One index row per (tag, value, ts, id); its qualifiers name the metrics the data row holds.
    rows.push({
      key: encodeIndexKey({ indexName, value, ts: event.ts, id: event.id }, s.buckets, s.indexSaltMode),
      cells: [{ family: s.indexFamily, qualifier: Buffer.from(event.metric, 'utf8'), value: EMPTY, timestamp: event.ts }],
    });
  }
  return rows;
}

function reject(record: SourceRecord, r: ParseRejected): Rejected {
  return { record, reason: r.reason, field: r.field, detail: describeReject(r) };
}

export function planBatch(records: readonly SourceRecord[], s: PlanSettings): BatchPlan {
  const plan: BatchPlan = { events: [], rejects: [] };
  for (const record of records) {
    if (record.value === null) {
      plan.rejects.push({ record, reason: 'invalid_json', detail: 'invalid_json: the record has no value (tombstone)' });
      continue;
    }
    const parsed = parseEvent(record.value, s.mapping, s.limits);
    if (!parsed.ok) {
      plan.rejects.push(reject(record, parsed));
      continue;
    }
    const event = parsed.event;
    let key: Buffer;
    let indexRows: DataRow[];
    try {
      key = s.keyFormat === 'binary' ? encodeDataKey(event, s.buckets) : encodePrintableDataKey(event, s.buckets);
      indexRows = indexRowsOf(event, s);
    } catch (err) {
      plan.rejects.push({ record, reason: 'key_invalid', detail: `key_invalid: ${(err as Error).message}` });
      continue;
    }
    plan.events.push({ record, id: event.id, ts: event.ts, dataRow: { key, cells: buildEventCells(event, s.dataFamily) }, indexRows });
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
