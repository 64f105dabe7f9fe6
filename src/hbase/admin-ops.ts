// Table / cluster administration calls (schema, regions, listing, version, status).
import { decodeClusterStatus, decodeClusterVersion, decodeRegions, decodeTableList, decodeTableSchema, encodeTableSchema } from './codec-admin.ts';
import { HBaseError } from './errors.ts';
import { tablePath } from './paths.ts';
import type { RestCaller } from './rest-caller.ts';
import type { CallOptions, ClusterStatus, Region, TableSchema, TableSchemaInput } from './types.ts';

export interface CreateTableOptions extends CallOptions {
  /** 'error' (default) → HBASE_TABLE_EXISTS; 'skip' → resolve false; 'replace' → PUT the schema over
   * the existing table (families not listed are DROPPED, the table is disabled meanwhile). */
  ifExists?: 'error' | 'skip' | 'replace';
}

export interface DeleteTableOptions extends CallOptions {
  /** Resolve false instead of throwing HBASE_TABLE_NOT_FOUND. */
  ignoreMissing?: boolean;
}

type Deadline = number | undefined;

export async function tableExists(caller: RestCaller, t: string, deadlineMs: Deadline): Promise<boolean> {
  const res = await caller.call({ method: 'GET', path: `${tablePath(t)}/exists`, deadlineMs, ok: [200, 404] });
  return res.status === 200;
}

export async function getRegions(caller: RestCaller, t: string, deadlineMs: Deadline): Promise<Region[]> {
  const path = `${tablePath(t)}/regions`;
  const res = await caller.call({ method: 'GET', path, deadlineMs, ok: [200], notFound: 'HBASE_TABLE_NOT_FOUND' });
  return decodeRegions(res.body);
}

/** PUT /<table>/schema (the server creates, or replaces an existing table's descriptor). */
export async function createTable(caller: RestCaller, t: string, schema: TableSchemaInput, opts: CreateTableOptions): Promise<boolean> {
  const ifExists = opts.ifExists ?? 'error';
  const onExisting = (): boolean => {
    if (ifExists === 'error') {
      throw new HBaseError({ code: 'HBASE_TABLE_EXISTS', retriable: false, message: `table '${t}' already exists` });
    }
    return false;
  };
  if (ifExists !== 'replace' && (await tableExists(caller, t, opts.deadlineMs))) return onExisting();
  const res = await caller.call({
    method: 'PUT',
    path: `${tablePath(t)}/schema`,
    body: encodeTableSchema(schema, t),
    deadlineMs: opts.deadlineMs,
    ok: [200, 201, 304],
  });
  // 304 = the gateway lost a create race (TableExistsException).
  return res.status === 304 ? onExisting() : true;
}

/** POST /<table>/schema: adds/modifies the listed families of an existing table. */
export async function updateSchema(caller: RestCaller, t: string, schema: Omit<TableSchemaInput, 'name'>, deadlineMs: Deadline): Promise<void> {
  const body = encodeTableSchema({ ...schema, name: t }, t);
  await caller.call({ method: 'POST', path: `${tablePath(t)}/schema`, body, deadlineMs, ok: [200, 201] });
}

export async function getSchema(caller: RestCaller, t: string, deadlineMs: Deadline): Promise<TableSchema> {
  const path = `${tablePath(t)}/schema`;
  const res = await caller.call({ method: 'GET', path, deadlineMs, ok: [200], notFound: 'HBASE_TABLE_NOT_FOUND' });
  return decodeTableSchema(res.body);
}

export async function deleteTable(caller: RestCaller, t: string, opts: DeleteTableOptions): Promise<boolean> {
  const res = await caller.call({
    method: 'DELETE',
    path: `${tablePath(t)}/schema`,
    deadlineMs: opts.deadlineMs,
    ok: opts.ignoreMissing === true ? [200, 404] : [200],
    notFound: 'HBASE_TABLE_NOT_FOUND',
  });
  return res.status === 200;
}

export async function listTables(caller: RestCaller, deadlineMs: Deadline): Promise<string[]> {
  const res = await caller.call({ method: 'GET', path: '/', deadlineMs, ok: [200] });
  return decodeTableList(res.body);
}

export async function clusterVersion(caller: RestCaller, deadlineMs: Deadline): Promise<string> {
  const res = await caller.call({ method: 'GET', path: '/version/cluster', deadlineMs, ok: [200] });
  return decodeClusterVersion(res.body);
}

export async function clusterStatus(caller: RestCaller, deadlineMs: Deadline): Promise<ClusterStatus> {
  const res = await caller.call({ method: 'GET', path: '/status/cluster', deadlineMs, ok: [200] });
  return decodeClusterStatus(res.body);
}
