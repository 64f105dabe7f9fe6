/**
 * parseEvent: raw Kafka record value → validated TsEvent or a rejection with a closed reason, the
 * source field path and a human detail. Pure and total: it never throws for any input bytes.
 * Fields not named by the mapping are ignored. `tags` absent or null means no tags.
 */
import { MAX_ID_BYTES } from '../keys/key-bytes.ts';
import { NO_TAGS, encodeTags } from './cells.ts';
import type { TsEvent } from './event.ts';
import { readField, isJsonObject, type FieldMapping, type JsonObject } from './field-mapping.ts';
import { effectiveMaxTs, type EventLimits } from './limits.ts';
import { preview, reject, type ParseRejected, type ParseResult } from './reject.ts';
import { parseIsoTimestamp } from './timestamp.ts';

export { describeReject, REJECT_REASONS } from './reject.ts';
export type { ParseAccepted, ParseRejected, ParseResult, RejectReason } from './reject.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true });

type Step<T> = { readonly ok: true; readonly value: T } | ParseRejected;

function lookup(record: JsonObject, path: string, what: string): Step<unknown> {
  const found = readField(record, path);
  if (!found.found) return reject('missing_field', path, `${what}: ${found.detail}`);
  return { ok: true, value: found.value };
}

function loneSurrogate(path: string): ParseRejected {
  return reject('invalid_json', path, 'string contains a lone UTF-16 surrogate escape, not representable as UTF-8');
}

function readId(record: JsonObject, path: string): Step<string> {
  const step = lookup(record, path, 'id');
  if (!step.ok) return step;
  const id = step.value;
  if (typeof id !== 'string') return reject('wrong_type', path, `id must be a string, got ${preview(id)}`);
  if (!id.isWellFormed()) return loneSurrogate(path);
  if (id.length === 0) return reject('id_empty', path, `id is the empty string; it must be 1–${MAX_ID_BYTES} UTF-8 bytes`);
  if (id.includes('\u0000')) return reject('id_contains_nul', path, 'id contains a NUL (U+0000) character');
  const bytes = Buffer.byteLength(id, 'utf8');
  if (bytes > MAX_ID_BYTES) return reject('id_too_long', path, `id is ${bytes} UTF-8 bytes, max ${MAX_ID_BYTES}`);
  return { ok: true, value: id };
}

/** ISO-8601 of an epoch-ms value, when Date can represent it. */
function isoOf(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? '' : ` (${date.toISOString()})`;
}

/** Why ts is outside the accepted range (naming the setting that moves the bound), or undefined. */
function outOfRange(ts: number, limits: EventLimits): string | undefined {
  if (ts < limits.minTs) return `ts ${ts}${isoOf(ts)} is before the earliest accepted ts ${limits.minTs}${isoOf(limits.minTs)}`;
  const max = effectiveMaxTs(limits);
  if (ts <= max) return undefined;
  const { nowMs, maxFutureSkewMs } = limits;
  if (max < limits.maxTs && nowMs !== undefined && maxFutureSkewMs !== undefined) {
    return `ts ${ts}${isoOf(ts)} is more than ${maxFutureSkewMs} ms (events.maxFutureSkewMs) ahead of now ${nowMs}${isoOf(nowMs)}`;
  }
  return `ts ${ts}${isoOf(ts)} is after events.maxTs ${limits.maxTs}${isoOf(limits.maxTs)}; raise events.maxTs (epoch ms or ISO-8601) to accept it`;
}

function readTs(record: JsonObject, path: string, limits: EventLimits): Step<number> {
  const step = lookup(record, path, 'ts');
  if (!step.ok) return step;
  const raw = step.value;
  let ts: number;
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw)) return reject('ts_out_of_range', path, `ts ${String(raw)} is not finite`);
    if (!Number.isInteger(raw)) return reject('wrong_type', path, `ts must be integer epoch milliseconds, got ${raw}`);
    ts = raw;
  } else if (typeof raw === 'string') {
    if (!raw.isWellFormed()) return loneSurrogate(path);
    const parsed = parseIsoTimestamp(raw);
    if (!parsed.ok) return reject('ts_invalid', path, `${parsed.detail}: ${preview(raw)}`);
    ts = parsed.ms;
  } else {
    return reject('wrong_type', path, `ts must be epoch milliseconds or an ISO-8601 string, got ${preview(raw)}`);
  }
  const range = outOfRange(ts, limits);
  if (range !== undefined) return reject('ts_out_of_range', path, range);
  return { ok: true, value: ts };
}

function readMetric(record: JsonObject, path: string, limits: EventLimits): Step<string> {
  const step = lookup(record, path, 'metric');
  if (!step.ok) return step;
  const metric = step.value;
  if (typeof metric !== 'string') return reject('wrong_type', path, `metric must be a string, got ${preview(metric)}`);
  if (!metric.isWellFormed()) return loneSurrogate(path);
  if (metric.length === 0) return reject('metric_invalid', path, 'metric is empty');
  if (metric.includes('\u0000')) return reject('metric_invalid', path, 'metric contains a NUL (U+0000) character');
  const bytes = Buffer.byteLength(metric, 'utf8');
  if (bytes > limits.maxMetricBytes) {
    return reject('metric_invalid', path, `metric is ${bytes} UTF-8 bytes, max ${limits.maxMetricBytes}`);
  }
  return { ok: true, value: metric };
}

function readValue(record: JsonObject, path: string): Step<number> {
  const step = lookup(record, path, 'value');
  if (!step.ok) return step;
  const value = step.value;
  if (typeof value !== 'number') return reject('wrong_type', path, `value must be a JSON number, got ${preview(value)}`);
  if (!Number.isFinite(value)) return reject('value_not_finite', path, `value ${String(value)} is not finite`);
  return { ok: true, value };
}

/** The tags and, when there are any, their encoded cell (checked against maxCellBytes, reused for the row). */
type TagsStep = { readonly ok: true; readonly value: Readonly<Record<string, string>>; readonly cell: Buffer | undefined };

function readTags(record: JsonObject, path: string, limits: EventLimits): TagsStep | ParseRejected {
  const found = readField(record, path);
  if (!found.found || found.value === null) return { ok: true, value: NO_TAGS, cell: undefined };
  const tags = found.value;
  if (!isJsonObject(tags)) return reject('wrong_type', path, `tags must be an object of strings, got ${preview(tags)}`);
  const keys = Object.keys(tags);
  if (keys.length > limits.maxTags) {
    return reject('tags_invalid', path, `${keys.length} tags, max ${limits.maxTags}`);
  }
  for (const key of keys) {
    const value = tags[key];
    if (typeof value !== 'string') return reject('tags_invalid', `${path}.${key}`, `tag value must be a string, got ${preview(value)}`);
    if (!key.isWellFormed() || !value.isWellFormed()) return loneSurrogate(`${path}.${key}`);
    if (key.includes('\u0000')) return reject('tags_invalid', `${path}.${key}`, 'tag key contains a NUL (U+0000) character');
    if (value.includes('\u0000')) return reject('tags_invalid', `${path}.${key}`, 'tag value contains a NUL (U+0000) character');
  }
  // The object came fresh from JSON.parse and nobody else holds it: frozen in place, not copied.
  const result = Object.freeze(tags as Record<string, string>);
  if (keys.length === 0) return { ok: true, value: result, cell: undefined };
  const cell = encodeTags(result);
  if (cell.length > limits.maxCellBytes) {
    return reject('cell_too_large', path, `encoded tags cell is ${cell.length} bytes, max ${limits.maxCellBytes}`);
  }
  return { ok: true, value: result, cell };
}

function decodeRecord(raw: Uint8Array, limits: EventLimits): Step<JsonObject> {
  if (raw.length > limits.maxCellBytes) {
    return reject('cell_too_large', undefined, `record is ${raw.length} bytes, max ${limits.maxCellBytes}`);
  }
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    return reject('invalid_json', undefined, 'record is not valid UTF-8');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error: unknown) {
    return reject('invalid_json', undefined, error instanceof Error ? error.message : 'not valid JSON');
  }
  if (!isJsonObject(parsed)) {
    const kind = parsed === null ? 'null' : Array.isArray(parsed) ? 'an array' : `a ${typeof parsed}`;
    return reject('invalid_json', undefined, `record must be a JSON object, got ${kind}`);
  }
  return { ok: true, value: parsed };
}

/** A parsed event and its encoded tags cell (undefined without tags), for building its row. */
export type ParsedCells = { readonly ok: true; readonly event: TsEvent; readonly tagsCell: Buffer | undefined };

/** parseEvent, also handing back the tags cell it encoded to check its size (the write path reuses it). */
export function parseEventCells(raw: Uint8Array, mapping: FieldMapping, limits: EventLimits): ParsedCells | ParseRejected {
  const record = decodeRecord(raw, limits);
  if (!record.ok) return record;
  const id = readId(record.value, mapping.id);
  if (!id.ok) return id;
  const ts = readTs(record.value, mapping.ts, limits);
  if (!ts.ok) return ts;
  const metric = readMetric(record.value, mapping.metric, limits);
  if (!metric.ok) return metric;
  const value = readValue(record.value, mapping.value);
  if (!value.ok) return value;
  const tags = readTags(record.value, mapping.tags, limits);
  if (!tags.ok) return tags;
  const event: TsEvent = { id: id.value, ts: ts.value, metric: metric.value, value: value.value, tags: tags.value };
  return { ok: true, event, tagsCell: tags.cell };
}

export function parseEvent(raw: Uint8Array, mapping: FieldMapping, limits: EventLimits): ParseResult {
  const parsed = parseEventCells(raw, mapping, limits);
  return parsed.ok ? { ok: true, event: parsed.event } : parsed;
}
