// Pure: turns a run of Kafka records into the rows to write (data rows, index rows) and the records
// to dead-letter, and cuts work into flush units and write chunks. No I/O.
import { KeyError, type Keyspace } from '../keys/index.ts';
import {
  buildEventCells,
  buildIndexRows,
  describeReject,
  parseEventCells,
  type DataRow,
  type EventLimits,
  type FieldMapping,
  type ParseRejected,
  type TsEvent,
} from '../events/index.ts';
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
  /** what of the event HBase holds all the same (DLQ header `tsingest-stored`; event-writer.ts) */
  readonly stored?: StoredPart | undefined;
}

/**
 * `data-row`: an event whose index row HBase refused keeps its data row (with its rollup mark and
 * series catalog row); only index rows are missing, and `tsingest index verify` reports them.
 */
export type StoredPart = 'data-row';

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

/** Index rows of one event, each with its bucket: salt' is the first byte of an index key. */
function indexRowsOf(event: TsEvent, offset: number, s: PlanSettings): PlannedRow[] {
  if (s.indexTags.length === 0) return [];
  return buildIndexRows({ id: event.id, ts: event.ts, tags: event.tags, metrics: [event.metric], offset }, s).map((row) => ({
    row,
    bucket: row.key[0] as number,
  }));
}

function reject(record: SourceRecord, r: ParseRejected): Rejected {
  return { record, reason: r.reason, field: r.field, detail: describeReject(r) };
}

export function planBatch(records: readonly SourceRecord[], s: PlanSettings): BatchPlan {
  const plan: BatchPlan = { events: [], rejects: [], fences: new Map() };
  planPart(plan, records, s);
  return plan;
}

/** Records per step of a sliced plan (planSliced): about a millisecond of planning. */
export const PLAN_STEP = 64;

/**
 * planBatch, the event loop given back between steps of PLAN_STEP records once `pause` says a slice is
 * spent (planning costs ~15 µs an event: a 2,000-record unit, or a burst of late events, planned in one
 * go held the ingest's loop for tens to hundreds of ms). The same plan, in the same order.
 */
export async function planSliced(records: readonly SourceRecord[], s: PlanSettings, pause: () => Promise<void> | undefined): Promise<BatchPlan> {
  const plan: BatchPlan = { events: [], rejects: [], fences: new Map() };
  for (let i = 0; i < records.length; i += PLAN_STEP) {
    planPart(plan, records.slice(i, i + PLAN_STEP), s);
    if (i + PLAN_STEP >= records.length) break; // done: no pause after the last step
    const paused = pause();
    if (paused !== undefined) await paused;
  }
  return plan;
}

/** Plans `records` into `plan`, after what it holds. */
function planPart(plan: BatchPlan, records: readonly SourceRecord[], s: PlanSettings): void {
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
      // Only the key layout's own error says the event cannot have a key; anything else (a TypeError
      // included) is a bug: it fails the unit, which is replayed, rather than dead-lettering good data.
      if (!(err instanceof KeyError)) throw err;
      plan.rejects.push({ record, reason: 'key_invalid', detail: `key_invalid: ${err.message}` });
      continue;
    }
    const data = { row: { key, cells: buildEventCells(event, s.dataFamily, parsed.tagsCell) }, bucket: s.keyspace.dataBucket(key) };
    plan.events.push({ record, id: event.id, ts: event.ts, metric: event.metric, tags: event.tags, tagsCell: parsed.tagsCell, data, index });
  }
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
