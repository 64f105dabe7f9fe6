/**
 * Why an input record was dead-lettered. One closed list for every stage that rejects a record: the
 * DLQ header `tsingest-reason` and the metric label `tsingest_dlq_records_total{reason}` take their
 * values from it, and DLQ consumers may rely on it. Add a reason here before producing it anywhere.
 */
import type { TsEvent } from './event.ts';

export const REJECT_REASONS = [
  // --- parseEvent (src/events/parse.ts) ---
  /** not UTF-8, not JSON, not a JSON object, a string holding a lone surrogate escape, or a tombstone (no value) */
  'invalid_json',
  'missing_field',
  /** e.g. a numeric string for value, a number for id, an array for tags, a fractional ts */
  'wrong_type',
  /** id is the empty string */
  'id_empty',
  'id_contains_nul',
  /** id longer than 128 UTF-8 bytes */
  'id_too_long',
  /** a number literal that overflows to ±Infinity (JSON cannot carry NaN/Infinity otherwise) */
  'value_not_finite',
  /** ts string that is not ISO-8601 with a timezone, or names an impossible date/time */
  'ts_invalid',
  /** ts before limits.minTs, after events.maxTs, or beyond now + events.maxFutureSkewMs */
  'ts_out_of_range',
  /** metric empty, longer than limits.maxMetricBytes, or containing NUL */
  'metric_invalid',
  /** non-string tag value, NUL in a tag key/value, more than limits.maxTags tags */
  'tags_invalid',
  /** raw record or encoded tags cell larger than limits.maxCellBytes */
  'cell_too_large',
  // --- batch planning (src/ingest/batch-plan.ts) ---
  /**
   * the event parsed but the key layout refused to build a data or index rowkey of it (its KeyError; a
   * guard: parsing already checks what the key codecs need). Any other failure there is a bug and
   * stops the unit for replay instead.
   */
  'key_invalid',
  // --- writing (src/ingest/event-writer.ts) ---
  /** HBase answered 400 for the row itself (found by bisecting the refused chunk) */
  'hbase_rejected',
] as const;

export type RejectReason = (typeof REJECT_REASONS)[number];

export type ParseAccepted = { readonly ok: true; readonly event: TsEvent };
export type ParseRejected = {
  readonly ok: false;
  readonly reason: RejectReason;
  /** the source field path as configured in the mapping (e.g. `payload.deviceId`, `tags.site`) */
  readonly field?: string;
  readonly detail: string;
};
export type ParseResult = ParseAccepted | ParseRejected;

export function reject(reason: RejectReason, field: string | undefined, detail: string): ParseRejected {
  return field === undefined ? { ok: false, reason, detail } : { ok: false, reason, field, detail };
}

const MAX_DESCRIPTION_CHARS = 512;

/**
 * One line of human text for DLQ headers and logs, e.g. `missing_field [payload.deviceId]: … is missing`.
 * Single line, at most 512 characters.
 */
export function describeReject(result: ParseRejected): string {
  const text = `${result.reason}${result.field === undefined ? '' : ` [${result.field}]`}: ${result.detail}`.replace(/[\r\n]+/g, ' ');
  return text.length > MAX_DESCRIPTION_CHARS ? `${text.slice(0, MAX_DESCRIPTION_CHARS - 1)}…` : text;
}

/** A short, safe rendering of an offending input value for reject details. */
export function preview(value: unknown): string {
  let text: string = typeof value;
  try {
    const json: unknown = JSON.stringify(value); // undefined for undefined/functions
    if (typeof json === 'string') text = json;
  } catch {
    // BigInt or cyclic values cannot come from JSON.parse; keep the type name
  }
  return text.length > 64 ? `${text.slice(0, 61)}...` : text;
}
