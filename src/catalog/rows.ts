/**
 * Pure: the series catalog rows of the meta table, one per series (metric, id, tag set), their keys
 * and scan ranges. Specification: docs/KEYS.md, "Series catalog".
 * Design notes: docs/DECISIONS.md#catalog-rows
 */
import { createHash } from 'node:crypto';
import { encodeTags } from '../events/cells.ts';
import { prefixRange, type ScanRange } from '../keys/index.ts';
import { ringRuns, ringSlot, type TimeRing } from '../toolkit/time-ring.ts';

export const SERIES_PREFIX = Buffer.from('series/', 'latin1');
export const SERIES_QUALIFIER = Buffer.from('t', 'latin1');
export const DIGEST_BYTES = 8;

export const SERIES_RANGE: ScanRange = prefixRange(SERIES_PREFIX);

/**
 * The catalog's generation: one cell (a random token) that every writer of series rows replaces right
 * after its rows are acknowledged, so a reader that finds the token it saw before its last reread
 * knows no series row was written since (docs/KEYS.md, "Series catalog").
 */
export const GENERATION_ROW = Buffer.from('catalog/generation', 'latin1');
export const GENERATION_QUALIFIER = Buffer.from('g', 'latin1');
/** The same token again, put only by writers that keep the journal: equal to `g` when the last writer did. */
export const JOURNALED_QUALIFIER = Buffer.from('j', 'latin1');

/**
 * The catalog's journal: what writers added lately, so a reader whose generation changed reads the new
 * series alone rather than scanning every series row. A row per minute of the day (the writer's
 * clock), `"catalog/journal/"` ‖ the minute as 4 decimal digits (`0000` … `1439`), reused every day:
 * one cell per series row written in that minute (qualifier: the series row's key, value: its cell,
 * timestamp: its cell's), and a writer deletes a row's cells older than JOURNAL_KEEP_MS when it first
 * writes there in a minute, so the journal holds about an hour (docs/KEYS.md, "Series catalog").
 */
export const JOURNAL_PREFIX = Buffer.from('catalog/journal/', 'latin1');
export const JOURNAL_MINUTE_MS = 60_000;
const MINUTES_PER_DAY = 1440;
/** Cells a writer keeps in a journal row it reuses (older are deleted). */
export const JOURNAL_KEEP_MS = 3_600_000;
/** How far back a reader may read the journal (what is older may be deleted): less than JOURNAL_KEEP_MS by a margin for writers' clocks. */
export const JOURNAL_SPAN_MS = 30 * 60_000;

const JOURNAL_RING: TimeRing = { sliceMs: JOURNAL_MINUTE_MS, slots: MINUTES_PER_DAY };

/** The journal row of a minute of the day (0 … 1439). */
function journalRow(minute: number): Buffer {
  return Buffer.concat([JOURNAL_PREFIX, Buffer.from(String(minute).padStart(4, '0'), 'latin1')]);
}

/** The journal row of the minute holding `ms`. */
export function journalKey(ms: number): Buffer {
  return journalRow(ringSlot(JOURNAL_RING, ms));
}

/**
 * The scan ranges of the journal rows of the minutes from `fromMs` through `toMs` (one range, or two
 * when they pass midnight); every row when they span a day or more.
 */
export function journalRanges(fromMs: number, toMs: number): ScanRange[] {
  const whole = prefixRange(JOURNAL_PREFIX);
  if (toMs - fromMs >= (MINUTES_PER_DAY - 1) * JOURNAL_MINUTE_MS) return [whole];
  // (the run after a wrap starts at the prefix's start, the last minute's ends at its end)
  return ringRuns(JOURNAL_RING, fromMs, toMs).map(([first, last], i) => ({
    startRow: i > 0 ? whole.startRow : journalRow(first),
    stopRow: last === MINUTES_PER_DAY - 1 ? whole.stopRow : journalRow(last + 1),
  }));
}

/** One series: a metric of one id with one tag set (the id is not among the tags). */
export interface Series {
  readonly metric: string;
  readonly id: string;
  readonly tags: Readonly<Record<string, string>>;
}

/** A series row: its key and the bytes of its one cell (the canonical tags JSON). */
export interface SeriesRow {
  readonly key: Buffer;
  readonly value: Buffer;
}

/** The canonical JSON of a tag set (= the data table's tags cell; `{}` without tags). */
export function canonicalTags(tags: Readonly<Record<string, string>>): Buffer {
  return encodeTags(tags);
}

export function tagsDigest(canonical: Buffer): Buffer {
  return createHash('sha1').update(canonical).digest().subarray(0, DIGEST_BYTES);
}

const NUL = Buffer.from([0x00]);

/** The row of a series whose canonical tags JSON is `canonical` (a caller that has the bytes, e.g. the data row's tags cell, skips re-encoding). */
export function seriesRowOf(metric: string, id: string, canonical: Buffer): SeriesRow {
  if (metric.length === 0 || metric.includes('\u0000')) throw new RangeError('a series metric must be non-empty and free of NUL');
  if (id.length === 0 || id.includes('\u0000')) throw new RangeError('a series id must be non-empty and free of NUL');
  const key = Buffer.concat([SERIES_PREFIX, Buffer.from(metric, 'utf8'), NUL, Buffer.from(id, 'utf8'), NUL, tagsDigest(canonical)]);
  return { key, value: canonical };
}

export function seriesRow(s: Series): SeriesRow {
  return seriesRowOf(s.metric, s.id, canonicalTags(s.tags));
}

/** The scan range of one metric's series rows. */
export function metricRange(metric: string): ScanRange {
  return prefixRange(Buffer.concat([SERIES_PREFIX, Buffer.from(metric, 'utf8'), NUL]));
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function parseTags(value: Uint8Array): Record<string, string> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(strictUtf8.decode(value));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  for (const v of Object.values(parsed)) if (typeof v !== 'string') return undefined;
  return parsed as Record<string, string>;
}

/**
 * The series of a row (key and cell value), or undefined for a row that is not a well-formed series
 * row: another prefix, a missing separator, bad UTF-8, a cell that is not a JSON object of strings, or
 * a digest that does not match the cell (a reader skips it rather than serving a wrong tag set).
 */
export function decodeSeriesRow(key: Buffer, value: Uint8Array): Series | undefined {
  const p = SERIES_PREFIX.length;
  if (key.length < p + 1 + 1 + 1 + 1 + DIGEST_BYTES || !key.subarray(0, p).equals(SERIES_PREFIX)) return undefined;
  const end = key.length - DIGEST_BYTES - 1;
  if (key[end] !== 0x00) return undefined;
  const sep = key.indexOf(0x00, p);
  if (sep <= p || sep + 1 >= end) return undefined;
  const bytes = Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (!tagsDigest(bytes).equals(key.subarray(end + 1))) return undefined;
  const tags = parseTags(bytes);
  if (tags === undefined) return undefined;
  let metric: string;
  let id: string;
  try {
    metric = strictUtf8.decode(key.subarray(p, sep));
    id = strictUtf8.decode(key.subarray(sep + 1, end));
  } catch {
    return undefined;
  }
  if (id.length === 0 || id.includes('\u0000')) return undefined;
  return { metric, id, tags };
}

/** The id a series row key names (key only, the cell unread), or undefined for another row. */
export function seriesKeyId(key: Buffer): string | undefined {
  const p = SERIES_PREFIX.length;
  if (key.length < p + 4 + DIGEST_BYTES || !key.subarray(0, p).equals(SERIES_PREFIX)) return undefined;
  const end = key.length - DIGEST_BYTES - 1;
  const sep = key.indexOf(0x00, p);
  if (key[end] !== 0x00 || sep <= p || sep + 1 >= end) return undefined;
  try {
    return strictUtf8.decode(key.subarray(sep + 1, end));
  } catch {
    return undefined;
  }
}
