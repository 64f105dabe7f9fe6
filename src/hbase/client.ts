// HBase REST gateway client (HBase 2.6 REST protocol, JSON representation). Promise-based;
// row keys, columns (`family:qualifier`) and values are Buffers. Every call has a deadline
// (defaultDeadlineMs unless overridden) and fails with an HBaseError naming the op and table.
import * as admin from './admin-ops.ts';
import { encodeCellSet } from './codec.ts';
import { encodeCellSetProto } from './protobuf.ts';
import { PROTOBUF, decodeCellSetResponse } from './protobuf-decode.ts';
import { isValidTableName, rowPath, tablePath } from './paths.ts';
import { RestCaller, withContext, type Authorization } from './rest-caller.ts';
import * as rowOps from './row-ops.ts';
import { scanRows, type ScanOptions } from './scanner.ts';
import type { HttpTransport } from './transport.ts';
import type { CallOptions, ClusterStatus, GetOptions, Region, Row, RowCells, TableSchema, TableSchemaInput } from './types.ts';
import { UndiciTransport, type TransportTls } from './undici-transport.ts';

export interface HBaseRestClientOptions {
  /** e.g. http://127.0.0.1:8080 (a path prefix such as /hbase is kept). */
  baseUrl: string;
  /** Defaults to an UndiciTransport (keep-alive pool) that the client owns and closes. */
  transport?: HttpTransport;
  /** The given `transport` is handed over: close() closes it too (default: only a transport the client built). */
  closeTransport?: boolean;
  defaultDeadlineMs: number;
  /** Namespace applied to table names without an `ns:` prefix. */
  namespace?: string;
  /** Socket pool size of the default transport. */
  connections?: number;
  /**
   * Body format of puts: `protobuf` (default; CellSet as application/x-protobuf: no base64, no JSON
   * on either side) or `json`.
   */
  putEncoding?: PutEncoding;
  /** TLS of the default transport (an https baseUrl): CA, client certificate; verification is always on. */
  tls?: TransportTls;
  /** Authorization header per request (Basic or Bearer, for Knox or an authenticating proxy). */
  authorization?: Authorization;
  /**
   * Wraps the default transport of a gateway (its origin given) in a decorator that authenticates
   * requests itself and keeps per-gateway state, such as SpnegoTransport and its cookie. The client
   * owns and closes the result. Not applied to a `transport` given by the caller (decorate it there,
   * per gateway, as clients.ts does); given anyway, it tells the client's errors that the transport
   * authenticates the requests.
   */
  authTransport?: (transport: HttpTransport, origin: string) => HttpTransport;
}

export type PutEncoding = 'protobuf' | 'json';

export interface DeleteRowOptions extends CallOptions {
  /** `family` or `family:qualifier` (all versions); omitted → the whole row. */
  columns?: readonly Buffer[];
  /** Only delete versions <= timestamp. */
  timestamp?: number;
}

function defaultTransport(origin: string, conn: { connections?: number }, opts: HBaseRestClientOptions): HttpTransport {
  const pool = new UndiciTransport({ origin, ...conn, ...(opts.tls === undefined ? {} : { tls: opts.tls }) });
  return opts.authTransport === undefined ? pool : opts.authTransport(pool, origin);
}

export class HBaseRestClient {
  readonly #caller: RestCaller;
  readonly #transport: HttpTransport;
  readonly #ownsTransport: boolean;
  readonly #namespace: string | undefined;
  readonly #putEncoding: PutEncoding;

  constructor(opts: HBaseRestClientOptions) {
    const url = new URL(opts.baseUrl);
    if (!(opts.defaultDeadlineMs > 0)) throw new RangeError('defaultDeadlineMs must be > 0');
    if (opts.namespace !== undefined && !/^[A-Za-z0-9_]+$/.test(opts.namespace)) {
      throw new RangeError(`invalid namespace '${opts.namespace}'`);
    }
    const conn = opts.connections === undefined ? {} : { connections: opts.connections };
    this.#ownsTransport = opts.transport === undefined || opts.closeTransport === true;
    this.#transport = opts.transport ?? defaultTransport(url.origin, conn, opts);
    this.#caller = new RestCaller(this.#transport, url.pathname, {
      defaultDeadlineMs: opts.defaultDeadlineMs,
      authorization: opts.authorization,
      transportAuthenticates: opts.authTransport !== undefined,
    });
    this.#putEncoding = opts.putEncoding ?? 'protobuf';
    this.#namespace = opts.namespace;
  }

  /** `ns:table` for a bare name when a namespace is configured. */
  qualify(table: string): string {
    return table.includes(':') || this.#namespace === undefined ? table : `${this.#namespace}:${table}`;
  }

  async #run<T>(op: string, table: string | undefined, fn: (t: string) => Promise<T>): Promise<T> {
    const t = table === undefined ? '' : this.qualify(table);
    try {
      if (table !== undefined && !isValidTableName(t)) throw new RangeError(`invalid table name '${t}'`);
      return await fn(t);
    } catch (err) {
      throw withContext(err, op, table === undefined ? undefined : t);
    }
  }

  /** Multi-row put, one request; explicit cell timestamps are kept. Keys travel in the body; the
   * URL row ("fakerow") is a placeholder that the 2.6 RowResource only has to parse. */
  put(table: string, rows: readonly RowCells[], opts: CallOptions = {}): Promise<void> {
    return this.#run('put', table, async (t) => {
      if (rows.length === 0) return;
      if (rows.some((r) => r.cells.length === 0)) throw new RangeError('every row needs at least one cell');
      const path = `${tablePath(t)}/fakerow`;
      const body = this.#putEncoding === 'protobuf' ? { body: encodeCellSetProto(rows), contentType: 'application/x-protobuf' } : { body: encodeCellSet(rows) };
      await this.#caller.call({ method: 'PUT', path, ...body, deadlineMs: opts.deadlineMs, ok: [200] });
    });
  }

  /** The row, or null when it has no (matching) cells. The 2.6 gateway answers the same plain
   * 404 for a missing table, so a missing table reads as null here too. */
  get(table: string, row: Buffer, opts: GetOptions = {}): Promise<Row | null> {
    return this.#run('get', table, async (t) => {
      const v = opts.maxVersions === undefined ? [] : [`v=${rowOps.positiveInt(opts.maxVersions, 'maxVersions')}`];
      const path = rowPath(t, row, { columns: opts.columns, timeRange: opts.timeRange }, v);
      const res = await this.#caller.call({ method: 'GET', path, accept: PROTOBUF, deadlineMs: opts.deadlineMs, ok: [200, 404] });
      if (res.status === 404) return null;
      return decodeCellSetResponse(res).find((r) => r.row.equals(row)) ?? null;
    });
  }

  /** Results aligned with `rows` (null = not found). Uses /multiget with e=b64 (supported by
   * MultiRowResource in 2.6), split into URL-length-bounded requests run in parallel. */
  multiGet(table: string, rows: readonly Buffer[], opts: rowOps.MultiGetOptions = {}): Promise<(Row | null)[]> {
    return this.#run('multiGet', table, (t) => rowOps.multiGet(this.#caller, t, rows, opts));
  }

  /** Rows in key order through a stateful scanner. The scanner is created on the first next()
   * and deleted when exhausted, on break/return() and on error. Note: 2.6.1 scanners swallow
   * region-server IOExceptions mid-scan and report them as the end of the scan. */
  scan(table: string, opts: ScanOptions = {}): AsyncGenerator<Row, void, undefined> {
    return scanRows(this.#caller, this.qualify(table), opts);
  }

  regions(table: string, opts: CallOptions = {}): Promise<Region[]> {
    return this.#run('regions', table, (t) => admin.getRegions(this.#caller, t, opts.deadlineMs));
  }

  /** PUT /<table>/schema. Resolves true when created (or replaced), false when skipped. The
   * existence pre-check (unless ifExists: 'replace') is not atomic with the PUT. */
  createTable(schema: TableSchemaInput, opts: admin.CreateTableOptions = {}): Promise<boolean> {
    return this.#run('createTable', schema.name, (t) => admin.createTable(this.#caller, t, schema, opts));
  }

  /** POST /<table>/schema: adds or modifies the listed families and keeps the others. Each listed
   * family's descriptor is rebuilt from the given attributes (unlisted ones revert to defaults);
   * table-level attributes are ignored for an existing table; a missing table gets created. */
  updateSchema(table: string, schema: Omit<TableSchemaInput, 'name'>, opts: CallOptions = {}): Promise<void> {
    return this.#run('updateSchema', table, (t) => admin.updateSchema(this.#caller, t, schema, opts.deadlineMs));
  }

  getSchema(table: string, opts: CallOptions = {}): Promise<TableSchema> {
    return this.#run('getSchema', table, (t) => admin.getSchema(this.#caller, t, opts.deadlineMs));
  }

  /** Disables and deletes the table; false for a missing table when `ignoreMissing`. */
  deleteTable(table: string, opts: admin.DeleteTableOptions = {}): Promise<boolean> {
    return this.#run('deleteTable', table, (t) => admin.deleteTable(this.#caller, t, opts));
  }

  tableExists(table: string, opts: CallOptions = {}): Promise<boolean> {
    return this.#run('tableExists', table, (t) => admin.tableExists(this.#caller, t, opts.deadlineMs));
  }

  /** Every table the gateway lists (namespaced ones as `ns:table`). */
  listTables(opts: CallOptions = {}): Promise<string[]> {
    return this.#run('listTables', undefined, () => admin.listTables(this.#caller, opts.deadlineMs));
  }

  /** Puts `cells` iff `check` holds (false when it does not). HBase REST requires the check
   * column to be one of the put cells; that is validated before sending. */
  checkAndPut(table: string, put: rowOps.CheckedPut, opts: CallOptions = {}): Promise<boolean> {
    return this.#run('checkAndPut', table, (t) => rowOps.checkAndPut(this.#caller, t, put, opts.deadlineMs));
  }

  /** Deletes `deleteCells` iff `check` holds (false when it does not). With no deleteCells the
   * gateway deletes all versions of the check column (not the whole row). */
  checkAndDelete(table: string, del: rowOps.CheckedDelete, opts: CallOptions = {}): Promise<boolean> {
    return this.#run('checkAndDelete', table, (t) => rowOps.checkAndDelete(this.#caller, t, del, opts.deadlineMs));
  }

  /** DELETE /<table>/<row>[/<columns>][/<timestamp>]; deleting a missing row succeeds. */
  deleteRow(table: string, row: Buffer, opts: DeleteRowOptions = {}): Promise<void> {
    return this.#run('deleteRow', table, async (t) => {
      const path = rowPath(t, row, { columns: opts.columns, timestamp: opts.timestamp });
      const call = { method: 'DELETE', path, deadlineMs: opts.deadlineMs, ok: [200] } as const;
      await this.#caller.call({ ...call, notFound: 'HBASE_TABLE_NOT_FOUND' });
    });
  }

  /** The cluster's HBase version, e.g. "2.6.1-hadoop3". */
  version(opts: CallOptions = {}): Promise<string> {
    return this.#run('version', undefined, () => admin.clusterVersion(this.#caller, opts.deadlineMs));
  }

  clusterStatus(opts: CallOptions = {}): Promise<ClusterStatus> {
    return this.#run('clusterStatus', undefined, () => admin.clusterStatus(this.#caller, opts.deadlineMs));
  }

  /** Closes the transport if the client created it or was handed it (closeTransport). */
  async close(): Promise<void> {
    if (this.#ownsTransport) await this.#transport.close();
  }
}
