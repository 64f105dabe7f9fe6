// URL building for the HBase 2.6 REST gateway (pure): row keys and columns as unpadded base64url
// (`e=b64`), with Jersey's route trap escaped.
// Design notes: docs/DECISIONS.md#gateway-urls
import type { TimeRange } from './types.ts';

export const KEY_ENCODING_PARAM = 'e=b64';

const RESERVED_SEGMENTS = new Set(['regions', 'schema', 'scanner', 'exists']);

function pctEncodeChar(ch: string): string {
  return `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;
}

/** base64url without padding. */
export function toB64Url(b: Buffer): string {
  return b.toString('base64url');
}

/** A row key as the first path segment after the table (for use with e=b64). */
export function encodeRowKeySegment(row: Buffer): string {
  if (row.length === 0) throw new RangeError('row key must not be empty');
  const s = toB64Url(row);
  if (RESERVED_SEGMENTS.has(s) || s.startsWith('multiget')) {
    return pctEncodeChar(s.charAt(0)) + s.slice(1);
  }
  return s;
}

const TABLE_RE = /^(?:[A-Za-z0-9_]+:)?[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

export function isValidTableName(table: string): boolean {
  return TABLE_RE.test(table) && table.length <= 255;
}

/** `/<table>`; namespaced names (`ns:table`) keep their ':' (a legal path character). */
export function tablePath(table: string): string {
  if (!isValidTableName(table)) throw new RangeError(`invalid table name '${table}'`);
  return `/${table}`;
}

export interface RowSpecParts {
  columns?: readonly Buffer[] | undefined;
  timeRange?: TimeRange | undefined;
  /** Single timestamp: for DELETE, "versions <= timestamp". */
  timestamp?: number | undefined;
}

function checkTs(n: number, what: string): void {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${what} must be a non-negative integer, got ${n}`);
}

/**
 * RowSpec text `<row>[/<col>,<col>][/<from>,<to>]` with base64url row + columns (the decoder
 * side needs e=b64). `timestamp` renders `/<ts>` (RowSpec: startTime 0, endTime ts).
 */
export function rowSpec(row: Buffer, parts: RowSpecParts = {}, rowSegment = encodeRowKeySegment(row)): string {
  let spec = rowSegment;
  const cols = parts.columns ?? [];
  let ts = '';
  if (parts.timeRange !== undefined) {
    const { from, to } = parts.timeRange;
    checkTs(from, 'timeRange.from');
    checkTs(to, 'timeRange.to');
    if (to <= from) throw new RangeError(`timeRange.to (${to}) must be > timeRange.from (${from})`);
    // RowSpec reads "<a>,<b>" as [a, b) but a second value of 0 as "no range": to > from >= 0 here.
    ts = `${from},${to}`;
  } else if (parts.timestamp !== undefined) {
    checkTs(parts.timestamp, 'timestamp');
    if (parts.timestamp === 0) throw new RangeError('timestamp must be > 0');
    ts = String(parts.timestamp);
  }
  if (cols.length > 0 || ts !== '') {
    spec +=
      '/' +
      cols
        .map((c) => {
          if (c.length === 0) throw new RangeError('column must not be empty');
          return toB64Url(c);
        })
        .join(',');
  }
  if (ts !== '') spec += `/${ts}`;
  return spec;
}

/** `/<table>/<rowspec>?e=b64[&extra]`. */
export function rowPath(table: string, row: Buffer, parts: RowSpecParts = {}, query: readonly string[] = []): string {
  return `${tablePath(table)}/${rowSpec(row, parts)}?${[KEY_ENCODING_PARAM, ...query].join('&')}`;
}

/** `/<table>/multiget?e=b64&row=<spec>&row=<spec>[&v=N]` (MultiRowResource, e=b64 supported in 2.6). */
export function multiGetPath(table: string, specs: readonly string[], maxVersions?: number): string {
  const q = [KEY_ENCODING_PARAM, ...specs.map((s) => `row=${encodeURIComponent(s)}`)];
  if (maxVersions !== undefined) q.push(`v=${maxVersions}`);
  return `${tablePath(table)}/multiget?${q.join('&')}`;
}
