// A stateful REST scanner as an async generator: created, read a page at a time, always deleted;
// the chunks of one row are merged before they are yielded.
// Design notes: docs/DECISIONS.md#rest-scanners
import { HBaseError } from './errors.ts';
import { decodeCellSet, encodeScanner, protocolError, type ScannerSpec } from './codec.ts';
import { PROTOBUF, decodeCellSetResponse } from './protobuf-decode.ts';
import { tablePath } from './paths.ts';
import { tableScanPath } from './table-scan.ts';
import { withContext, type RestCaller } from './rest-caller.ts';
import { headerValue } from './transport.ts';
import type { Row } from './types.ts';

export interface ScanOptions extends Omit<ScannerSpec, 'batch' | 'maxVersions'> {
  /** Max cells per HTTP response (default 1000). Rows are still yielded whole. */
  batch?: number;
  /** Versions per column (default 1, like get; the REST ScannerModel default would be "all"). */
  maxVersions?: number;
  /** Stop after this many rows (client-side; the scanner is deleted when reached). */
  limit?: number;
  /** Rows asked per HTTP page (`?n=`), so a scan read lazily does not pull `limit` rows up front. */
  pageRows?: number;
  /** Deadline per HTTP round trip (open, each page, close). */
  deadlineMs?: number;
  /** Always a stateful scanner (no stateless first page; table-scan.ts). */
  stateful?: boolean;
  /**
   * Finish without waiting for the scanner's delete once the last page is read (default false). The
   * delete is still sent at once (with the last page); a reader that answers a request saves its
   * round trip. A failed delete only leaves the scanner to the gateway's expiry, as always.
   */
  detachClose?: boolean;
}

export const DEFAULT_SCAN_BATCH = 1000;
/** Cells per row a page of `pageRows` rows has room for before the cell cap cuts it. */
export const PAGE_CELLS_PER_ROW = 8;

/** The cell cap per response: DEFAULT_SCAN_BATCH, or room for `pageRows` rows of up to PAGE_CELLS_PER_ROW cells. */
export function scanBatchFor(pageRows: number | undefined): number {
  return pageRows === undefined ? DEFAULT_SCAN_BATCH : Math.max(DEFAULT_SCAN_BATCH, pageRows * PAGE_CELLS_PER_ROW);
}
/** Upper bound of the caching derived from `limit` when neither `caching` nor `pageRows` is given. */
export const MAX_DEFAULT_CACHING = 1000;

/**
 * HBase REST answers a scanner request it cannot read (an unknown field) with a bodiless 500. Seen
 * from a gateway whose JSON mapper had lost its JAXB annotations, so the `column` we send was
 * unknown to it; a restart of the gateway cleared it. Said in the error, since the 500 says nothing.
 */
function explainUnreadScanner(err: unknown): never {
  if (!(err instanceof HBaseError) || err.status !== 500 || (err.body ?? '') !== '') throw err;
  throw new HBaseError({
    code: err.code,
    retriable: err.retriable,
    status: 500,
    body: '',
    cause: err,
    message: `${err.message}: the REST gateway could not read the scanner request (HBase REST answers an unreadable request so); if every scan fails so, restart the gateway`,
  });
}

function scannerIdFrom(location: string): string {
  const path = new URL(location, 'http://placeholder').pathname;
  const id = path.slice(path.lastIndexOf('/') + 1);
  if (id === '' || !path.includes('/scanner/')) throw protocolError(`unexpected scanner Location '${location}'`);
  return decodeURIComponent(id);
}

export async function* scanRows(caller: RestCaller, table: string, opts: ScanOptions): AsyncGenerator<Row, void, undefined> {
  const { limit, pageRows, deadlineMs } = opts;
  let scannerPath: string | undefined;
  // the scanner's delete, once sent (with the last page, before its rows are yielded)
  let closing: Promise<unknown> | undefined;
  // The scanner lives on the gateway that created it: its pages and its delete all go there.
  let session: RestCaller | undefined;
  try {
    if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 0)) {
      throw new RangeError(`limit must be a non-negative integer, got ${limit}`);
    }
    if (pageRows !== undefined && (!Number.isSafeInteger(pageRows) || pageRows < 1)) {
      throw new RangeError(`pageRows must be a positive integer, got ${pageRows}`);
    }
    if (limit === 0) return;
    // A bounded scan whose bounds the stateless endpoint can take: its first page is one request
    // (table-scan.ts); a scanner is opened only when the read wants more than that page.
    const first = pageRows === undefined ? limit : Math.min(pageRows, limit ?? pageRows);
    const statelessPath = first === undefined || opts.stateful === true ? null : tableScanPath(table, opts, first);
    if (first !== undefined && statelessPath !== null) {
      const res = await caller.call({ method: 'GET', path: statelessPath, deadlineMs, ok: [200, 204], notFound: 'HBASE_TABLE_NOT_FOUND' });
      const rows = res.status === 204 ? [] : decodeCellSet(res.body);
      for (const r of rows) yield r;
      const last = rows.at(-1);
      if (last === undefined || rows.length < first || (limit !== undefined && rows.length >= limit)) return;
      yield* scanRows(caller, table, {
        ...opts,
        startRow: Buffer.concat([last.row, Buffer.from([0x00])]),
        ...(limit === undefined ? {} : { limit: limit - rows.length }),
        stateful: true,
      });
      return;
    }
    // Region-server caching (rows per RPC) follows the rows we will ask for: left unset, HBase 2 fills
    // the first RPC up to its 2 MB result size, so opening a scanner on a big range reads thousands of
    // rows that a bounded read never uses.
    const caching = opts.caching ?? pageRows ?? (limit === undefined ? undefined : Math.min(limit, MAX_DEFAULT_CACHING));
    const batch = opts.batch ?? scanBatchFor(pageRows);
    const body = encodeScanner({ ...opts, caching, batch, maxVersions: opts.maxVersions ?? 1 });
    const base = `${tablePath(table)}/scanner`;
    session = caller.session();
    const created = await session
      .call({ method: 'PUT', path: base, body, deadlineMs, ok: [201], notFound: 'HBASE_TABLE_NOT_FOUND' })
      .catch(explainUnreadScanner);
    const location = headerValue(created, 'location');
    if (location === undefined) throw protocolError('scanner created without a Location header');
    scannerPath = `${base}/${encodeURIComponent(scannerIdFrom(location))}`;

    let pending: Row | undefined;
    let yielded = 0;
    for (;;) {
      const rows = limit === undefined ? pageRows : Math.min(limit - yielded, pageRows ?? Number.MAX_SAFE_INTEGER);
      const n = rows === undefined ? '' : `?n=${rows}`;
      const page = await session.call({ method: 'GET', path: scannerPath + n, accept: PROTOBUF, deadlineMs, ok: [200, 204] });
      if (page.status === 204) break;
      const decoded = decodeCellSetResponse(page);
      if (decoded.length === 0) break;
      let cells = 0;
      for (const r of decoded) cells += r.cells.length;
      const cut = cells >= batch; // cut at the cell cap: the last row may go on in the next page
      const last = !cut && (rows === undefined || decoded.length < rows); // fewer rows than asked too: exhausted
      // the last page: the scanner's delete goes out while its rows are handed on
      if (last) closing = deleteScanner(session, scannerPath, deadlineMs);
      for (const r of decoded) {
        if (pending?.row.equals(r.row) === true) {
          pending.cells.push(...r.cells);
          continue;
        }
        if (pending !== undefined) {
          yield pending;
          if (limit !== undefined && ++yielded >= limit) return;
        }
        pending = r;
      }
      if (cut) continue;
      // the last row is whole: yield it now (a limit may be reached without another page)
      if (pending !== undefined) {
        const whole: Row = pending;
        pending = undefined;
        yield whole;
        if (limit !== undefined && ++yielded >= limit) return;
      }
      if (last) return;
    }
    if (pending !== undefined) yield pending;
  } catch (err) {
    throw withContext(err, 'scan', table);
  } finally {
    if (scannerPath !== undefined && session !== undefined) {
      const close = closing ?? deleteScanner(session, scannerPath, deadlineMs);
      if (closing === undefined || opts.detachClose !== true) await close;
    }
  }
}

/** Best effort: a failure here only leaves the scanner to the server's expiry. */
function deleteScanner(session: RestCaller, path: string, deadlineMs: number | undefined): Promise<unknown> {
  return session.call({ method: 'DELETE', path, deadlineMs, ok: [200, 404] }).catch(() => undefined);
}
