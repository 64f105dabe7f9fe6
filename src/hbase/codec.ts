// Pure encoding / decoding of the HBase REST JSON models (CellSet, Scanner). Byte fields are
// standard padded base64 (Jackson's byte[] encoding); Buffers on our side.
import { z } from 'zod';
import { HBaseError } from './errors.ts';
import { encodeFilter, type ScanFilter } from './filters.ts';
import type { Cell, Row, TimeRange } from './types.ts';

const COLON = 0x3a;
const B64_RE = /^[A-Za-z0-9+/]*={0,2}$/;

export function protocolError(message: string, cause?: unknown): HBaseError {
  return new HBaseError({ code: 'HBASE_PROTOCOL', retriable: false, message, cause });
}

/** Strict standard-base64 decode (padding optional); throws HBASE_PROTOCOL on garbage. */
export function fromB64(s: string, what = 'base64 field'): Buffer {
  if (!B64_RE.test(s) || s.length % 4 === 1) throw protocolError(`invalid base64 in ${what}: '${s.slice(0, 40)}'`);
  return Buffer.from(s, 'base64');
}

export function toB64(b: Buffer): string {
  return b.toString('base64');
}

/** `family:qualifier` column bytes; without a qualifier just `family` (= the whole family where
 * a family is accepted). An empty-string qualifier gives `family:` (the empty qualifier). */
export function column(family: Buffer | string, qualifier?: Buffer | string): Buffer {
  const f = typeof family === 'string' ? Buffer.from(family) : family;
  if (f.length === 0 || f.includes(COLON)) throw new RangeError('column family must be non-empty and contain no ":"');
  if (qualifier === undefined) return Buffer.from(f);
  const q = typeof qualifier === 'string' ? Buffer.from(qualifier) : qualifier;
  return Buffer.concat([f, Buffer.from([COLON]), q]);
}

/** Splits at the first ':' (families cannot contain ':'); no ':' → whole family, empty qualifier. */
export function splitColumn(col: Buffer): { family: Buffer; qualifier: Buffer } {
  const i = col.indexOf(COLON);
  if (i < 0) return { family: col, qualifier: Buffer.alloc(0) };
  return { family: col.subarray(0, i), qualifier: col.subarray(i + 1) };
}

/** A cell on the wire; `value` omitted for delete specs in check=delete. */
export interface WireCell {
  column: Buffer;
  value?: Buffer | undefined;
  timestamp?: number | undefined;
}

export interface WireRow {
  row: Buffer;
  cells: readonly WireCell[];
}

function checkTimestamp(ts: number): number {
  if (!Number.isSafeInteger(ts) || ts < 0) throw new RangeError(`cell timestamp must be a non-negative integer, got ${ts}`);
  return ts;
}

/** CellSet JSON: {"Row":[{"key":b64,"Cell":[{"column":b64,"timestamp":n,"$":b64}]}]}. */
export function encodeCellSet(rows: readonly WireRow[]): string {
  return JSON.stringify({
    Row: rows.map((r) => {
      if (r.row.length === 0) throw new RangeError('row key must not be empty');
      return {
        key: toB64(r.row),
        Cell: r.cells.map((c) => {
          if (c.column.length === 0) throw new RangeError('column must not be empty');
          const cell: Record<string, string | number> = { column: toB64(c.column) };
          if (c.timestamp !== undefined) cell['timestamp'] = checkTimestamp(c.timestamp);
          if (c.value !== undefined) cell['$'] = toB64(c.value);
          return cell;
        }),
      };
    }),
  });
}

const CellSetSchema = z.object({
  Row: z
    .array(
      z.object({
        key: z.string(),
        Cell: z.array(z.object({ column: z.string(), timestamp: z.number().int(), $: z.string().optional() })).optional(),
      }),
    )
    .optional(),
});

export function parseJson(body: Buffer | string, what: string): unknown {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw protocolError(`${what}: response is not JSON: '${text.slice(0, 80)}'`, err);
  }
}

export function parseWith<T>(schema: z.ZodType<T>, body: Buffer | string, what: string): T {
  const res = schema.safeParse(parseJson(body, what));
  if (!res.success) throw protocolError(`${what}: unexpected response shape: ${res.error.message.slice(0, 300)}`, res.error);
  return res.data;
}

export function decodeCellSet(body: Buffer | string): Row[] {
  const parsed = parseWith(CellSetSchema, body, 'CellSet');
  return (parsed.Row ?? []).map((r) => ({
    row: fromB64(r.key, 'row key'),
    cells: (r.Cell ?? []).map((c): Cell => {
      const col = fromB64(c.column, 'column');
      const { family, qualifier } = splitColumn(col);
      return { column: col, family, qualifier, timestamp: c.timestamp, value: fromB64(c.$ ?? '', 'value') };
    }),
  }));
}

export interface ScannerSpec {
  startRow?: Buffer | undefined;
  /** Exclusive. */
  stopRow?: Buffer | undefined;
  columns?: readonly Buffer[] | undefined;
  /** Typed filter, or the raw FilterModel JSON text. */
  filter?: ScanFilter | string | undefined;
  timeRange?: TimeRange | undefined;
  /** Max cells per GET response (ScannerModel.batch). */
  batch?: number | undefined;
  /** Region-server scanner caching (rows per RPC). */
  caching?: number | undefined;
  maxVersions?: number | undefined;
  cacheBlocks?: boolean | undefined;
}

function positiveInt(n: number, what: string): number {
  if (!Number.isSafeInteger(n) || n <= 0) throw new RangeError(`${what} must be a positive integer, got ${n}`);
  return n;
}

/**
 * ScannerModel JSON. Field names are the JAXB ones: `column` (singular, a list), `startRow`,
 * `endRow`, `batch`, `caching`, `startTime`, `endTime`, `maxVersions`, `filter` (a JSON *string*),
 * `cacheBlocks`. Unknown names (e.g. "columns") make 2.6 answer 500.
 */
export function encodeScanner(spec: ScannerSpec): string {
  const m: Record<string, unknown> = {};
  if (spec.startRow !== undefined && spec.startRow.length > 0) m['startRow'] = toB64(spec.startRow);
  if (spec.stopRow !== undefined && spec.stopRow.length > 0) m['endRow'] = toB64(spec.stopRow);
  if (spec.columns !== undefined && spec.columns.length > 0) m['column'] = spec.columns.map(toB64);
  if (spec.batch !== undefined) m['batch'] = positiveInt(spec.batch, 'batch');
  if (spec.caching !== undefined) m['caching'] = positiveInt(spec.caching, 'caching');
  if (spec.timeRange !== undefined) {
    const { from, to } = spec.timeRange;
    if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from < 0 || to <= from) {
      throw new RangeError(`invalid timeRange [${from}, ${to})`);
    }
    m['startTime'] = from;
    m['endTime'] = to;
  }
  if (spec.maxVersions !== undefined) m['maxVersions'] = positiveInt(spec.maxVersions, 'maxVersions');
  if (spec.cacheBlocks !== undefined) m['cacheBlocks'] = spec.cacheBlocks;
  if (spec.filter !== undefined) m['filter'] = typeof spec.filter === 'string' ? spec.filter : encodeFilter(spec.filter);
  return JSON.stringify(m);
}
