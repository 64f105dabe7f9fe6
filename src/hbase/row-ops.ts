// Row-level calls: multi-get and check-and-mutate.
import { encodeCellSet, type WireCell } from './codec.ts';
import { PROTOBUF, decodeCellSetResponse } from './protobuf-decode.ts';
import { multiGetPath, rowPath, rowSpec, toB64Url } from './paths.ts';
import type { RestCaller } from './rest-caller.ts';
import type { CellInput, GetOptions, Row } from './types.ts';

/** Compare-and-set condition. `value: null` means "column absent (or empty)": the 2.6 gateway
 * NPEs on a missing check value, so it is sent as an empty value, which HBase's checkAndMutate
 * treats as "no such cell, or a cell with an empty value". */
export interface CheckSpec {
  /** `family:qualifier`. */
  column: Buffer;
  value: Buffer | null;
}

/** For checkAndDelete: `family` → every version <= timestamp (default: all) of the family;
 * `family:qualifier` → the single version at `timestamp` (default: the newest). */
export interface DeleteCell {
  column: Buffer;
  timestamp?: number;
}

/** checkAndPut's mutation: `cells` are put iff `check` holds. */
export interface CheckedPut {
  row: Buffer;
  cells: readonly CellInput[];
  check: CheckSpec;
}

/** checkAndDelete's mutation: `deleteCells` are deleted iff `check` holds (none: the check column). */
export interface CheckedDelete {
  row: Buffer;
  check: CheckSpec;
  deleteCells?: readonly DeleteCell[];
}

export interface MultiGetOptions extends GetOptions {
  /** Rows travel as query params; requests are split to stay under this URL length (6000). */
  maxUrlLength?: number;
}

export function positiveInt(n: number, what: string): number {
  if (!Number.isSafeInteger(n) || n <= 0) throw new RangeError(`${what} must be a positive integer, got ${n}`);
  return n;
}

/** GET /<table>/multiget?e=b64&row=<b64url>[/<cols>][/<from>,<to>]…&v=N, chunked, in parallel. */
export async function multiGet(caller: RestCaller, t: string, rows: readonly Buffer[], opts: MultiGetOptions): Promise<(Row | null)[]> {
  if (rows.length === 0) return [];
  const maxVersions = opts.maxVersions === undefined ? undefined : positiveInt(opts.maxVersions, 'maxVersions');
  const maxUrl = opts.maxUrlLength ?? 6000;
  const chunks: string[][] = [];
  let cur: string[] = [];
  for (const r of rows) {
    if (r.length === 0) throw new RangeError('row key must not be empty');
    // Query-param specs are not route-matched, so the plain base64url form is used.
    const s = rowSpec(r, { columns: opts.columns, timeRange: opts.timeRange }, toB64Url(r));
    if (cur.length > 0 && multiGetPath(t, [...cur, s], maxVersions).length > maxUrl) {
      chunks.push(cur);
      cur = [];
    }
    cur.push(s);
  }
  chunks.push(cur);
  const found = new Map<string, Row>();
  await Promise.all(
    chunks.map(async (chunk) => {
      const path = multiGetPath(t, chunk, maxVersions);
      // 404 "No rows found." when none of the chunk's rows exist.
      const res = await caller.call({ method: 'GET', path, accept: PROTOBUF, deadlineMs: opts.deadlineMs, ok: [200, 404] });
      if (res.status === 404) return;
      for (const row of decodeCellSetResponse(res)) found.set(row.row.toString('hex'), row);
    }),
  );
  return rows.map((r) => found.get(r.toString('hex')) ?? null);
}

const COLON = 0x3a;

function checkColumn(col: Buffer, allowEmptyQualifier: boolean): void {
  const i = col.indexOf(COLON);
  if (i <= 0 || (!allowEmptyQualifier && i === col.length - 1)) {
    throw new RangeError('check column must be family:qualifier');
  }
}

function checkCell(check: CheckSpec): WireCell {
  return { column: check.column, value: check.value ?? Buffer.alloc(0) };
}

/** PUT /<table>/<row>?e=b64&check=put|delete with the check cell LAST; 200 → true, 304 → false. */
async function checkAndMutate(
  caller: RestCaller,
  t: string,
  mutation: { readonly row: Buffer; readonly cells: WireCell[]; readonly kind: 'put' | 'delete' },
  deadlineMs: number | undefined,
): Promise<boolean> {
  const { row, cells, kind } = mutation;
  const path = rowPath(t, row, {}, [`check=${kind}`]);
  const body = encodeCellSet([{ row, cells }]);
  const res = await caller.call({ method: 'PUT', path, body, deadlineMs, ok: [200, 304] });
  return res.status === 200;
}

export function checkAndPut(caller: RestCaller, t: string, put: CheckedPut, deadlineMs: number | undefined): Promise<boolean> {
  const { row, cells, check } = put;
  checkColumn(check.column, false);
  if (cells.length === 0 || !cells.some((c) => c.column.equals(check.column))) {
    throw new RangeError('checkAndPut: the check column must also be one of the put cells (HBase REST requirement)');
  }
  return checkAndMutate(caller, t, { row, cells: [...cells, checkCell(check)], kind: 'put' }, deadlineMs);
}

export function checkAndDelete(caller: RestCaller, t: string, del: CheckedDelete, deadlineMs: number | undefined): Promise<boolean> {
  const { row, check, deleteCells = [] } = del;
  checkColumn(check.column, true);
  const cells: WireCell[] = deleteCells.map((d) => ({ column: d.column, timestamp: d.timestamp }));
  return checkAndMutate(caller, t, { row, cells: [...cells, checkCell(check)], kind: 'delete' }, deadlineMs);
}
