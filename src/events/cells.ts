/**
 * HBase cells of an event: one cell per metric (8-byte double, cell timestamp = event ts) and a
 * row-level tags cell. Specification: docs/KEYS.md, "Cells of the data table".
 * Design notes: docs/DECISIONS.md#cells-of-an-event
 */
import { encodeDataKey } from '../keys/data-key.ts';
import { EventError } from './event-error.ts';
import type { TsEvent } from './event.ts';

/** The tags of an event or series without any (one frozen object, shared). */
export const NO_TAGS: Readonly<Record<string, string>> = Object.freeze({});

export const DATA_FAMILY = 'd';
export const TAGS_QUALIFIER: Buffer = Buffer.from('\u0000tags', 'latin1');
export const METRIC_VALUE_BYTES = 8;

export type DataCell = {
  readonly family: string;
  readonly qualifier: Buffer;
  readonly value: Buffer;
  /** epoch ms = event ts */
  readonly timestamp: number;
};
export type StoredCell = { readonly qualifier: Uint8Array; readonly value: Uint8Array };
export type DataRow = { readonly key: Buffer; readonly cells: readonly DataCell[] };
export type DecodedDataRow = {
  readonly metrics: Readonly<Record<string, number>>;
  readonly tags: Readonly<Record<string, string>>;
};

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function encodeMetricValue(value: number): Buffer {
  const out = Buffer.allocUnsafe(METRIC_VALUE_BYTES);
  out.writeDoubleBE(value);
  return out;
}

export function decodeMetricValue(bytes: Uint8Array, qualifier = 'metric'): number {
  if (bytes.length !== METRIC_VALUE_BYTES) {
    throw new EventError('MALFORMED_CELL', qualifier, `cell ${qualifier} is ${bytes.length} bytes, expected an 8-byte double`);
  }
  return (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)).readDoubleBE(0);
}

/**
 * Code point order of two well-formed strings (= the order of their UTF-8 bytes) without encoding
 * them: UTF-16 units compare like code points except that surrogates (code points above U+FFFF) must
 * sort after U+E000–U+FFFF, so at the first difference both units are shifted into code point order.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800) x = x <= 0xdfff ? x + 0x2000 : x - 0x800;
    if (y >= 0xd800) y = y <= 0xdfff ? y + 0x2000 : y - 0x800;
    return x - y;
  }
  return a.length - b.length;
}

/** Stable compact JSON of tags: keys sorted by their UTF-8 bytes (= code point order). */
export function encodeTags(tags: Readonly<Record<string, string>>): Buffer {
  const keys = Object.keys(tags);
  if (keys.length > 1) keys.sort(compareCodePoints);
  let body = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    body += `${i === 0 ? '' : ','}${JSON.stringify(key)}:${JSON.stringify(tags[key] ?? '')}`;
  }
  return Buffer.from(`${body}}`, 'utf8');
}

export function decodeTags(bytes: Uint8Array): Readonly<Record<string, string>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(strictUtf8.decode(bytes));
  } catch (cause) {
    throw new EventError('MALFORMED_CELL', 'tags', 'tags cell is not UTF-8 JSON', { cause });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new EventError('MALFORMED_CELL', 'tags', 'tags cell is not a JSON object');
  }
  const entries = Object.entries(parsed);
  for (const [key, value] of entries) {
    if (typeof value !== 'string') throw new EventError('MALFORMED_CELL', 'tags', `tag ${key} is not a string`);
  }
  return Object.freeze(Object.fromEntries(entries) as Record<string, string>);
}

/**
 * The cells of one event: its metric cell, plus the tags cell when it has tags. `tagsCell` is
 * `encodeTags(event.tags)` when the caller already has it (parseEventCells does).
 */
/**
 * Metric name → its qualifier bytes, shared by every event of that metric (one Buffer per name, not
 * per event; writers may also key caches on the Buffer). Bounded: a stream of ever-new metric names
 * starts over rather than growing it.
 */
const QUALIFIERS = new Map<string, Buffer>();
const MAX_QUALIFIERS = 4096;

export function metricQualifier(metric: string): Buffer {
  let q = QUALIFIERS.get(metric);
  if (q === undefined) {
    if (QUALIFIERS.size >= MAX_QUALIFIERS) QUALIFIERS.clear();
    q = Buffer.from(metric, 'utf8');
    QUALIFIERS.set(metric, q);
  }
  return q;
}

export function buildEventCells(event: TsEvent, family: string = DATA_FAMILY, tagsCell?: Buffer): DataCell[] {
  const metric = { family, qualifier: metricQualifier(event.metric), value: encodeMetricValue(event.value), timestamp: event.ts };
  const tags = tagsCell ?? (Object.keys(event.tags).length > 0 ? encodeTags(event.tags) : undefined);
  return tags === undefined ? [metric] : [metric, { family, qualifier: TAGS_QUALIFIER, value: tags, timestamp: event.ts }];
}

/** Rowkey (binary format) + cells of one event. */
export function buildDataRow(event: TsEvent, buckets: number, family: string = DATA_FAMILY): DataRow {
  return { key: encodeDataKey({ id: event.id, ts: event.ts }, buckets), cells: buildEventCells(event, family) };
}

/** Cells of one data row (one family) → metric values and tags, for readers (`tagsOf`: decodeTags or a memo of it). */
export function decodeDataRow(cells: readonly StoredCell[], tagsOf: (bytes: Uint8Array) => Readonly<Record<string, string>> = decodeTags): DecodedDataRow {
  const metrics: Record<string, number> = {};
  let tags: Readonly<Record<string, string>> = NO_TAGS;
  for (const cell of cells) {
    const q = cell.qualifier;
    const qualifier: Buffer = Buffer.isBuffer(q) ? q : Buffer.from(q.buffer, q.byteOffset, q.byteLength);
    if (qualifier[0] === 0x00) {
      if (qualifier.equals(TAGS_QUALIFIER)) tags = tagsOf(cell.value);
      continue;
    }
    const name = metricName(qualifier);
    const value = decodeMetricValue(cell.value, name);
    // an own property even for the name __proto__ (as Object.fromEntries makes it)
    if (name === '__proto__') Object.defineProperty(metrics, name, { value, enumerable: true, writable: true, configurable: true });
    else metrics[name] = value;
  }
  return { metrics: Object.freeze(metrics), tags };
}

// The last metric names decoded (a row holds few; a read meets the same ones again and again).
const names = new Map<string, string>();
const NAMES_KEPT = 64;

/** A metric qualifier as its name (strict UTF-8), kept for the next rows. */
function metricName(qualifier: Buffer): string {
  const key = qualifier.toString('latin1');
  const known = names.get(key);
  if (known !== undefined) return known;
  let name: string;
  try {
    name = strictUtf8.decode(qualifier);
  } catch (cause) {
    throw new EventError('MALFORMED_CELL', qualifier.toString('hex'), 'metric qualifier is not valid UTF-8', { cause });
  }
  if (names.size >= NAMES_KEPT) names.clear();
  names.set(key, name);
  return name;
}
