// TableAdminPort adapter that runs deploy/admin/TableAdmin.java (HBase's Java Admin API): one JSON
// request on the tool's stdin, one JSON line back on its stdout, logs on stderr; a process per call,
// or with `session` one process for many calls (tool-process.ts).
// `command` is the argv prefix that starts the tool, e.g.
//   ['java', ...jvmFlags, '-cp', '<classes>:<hbase-lib>/*:<conf>', 'tsingest.admin.TableAdmin']
//   ['docker', 'exec', '-i', '<container>', 'table-admin']
// Buffers become base64 at this boundary and nowhere else. The same tool answers the codec probe
// (CodecProbePort): `codecs` tests HBase's codecs in the tool's JVM, without a cluster connection.
import { z } from 'zod';
import type { CodecProbe, CodecProbePort } from './codec-probe-port.ts';
import { TableAdminError, tableAdminErrorCodeOf } from './table-admin-port.ts';
import type { EnsureTableRequest, EnsureTableResult, TableAdminPort, TableDescription } from './table-admin-port.ts';
import { runTool, ToolSession, withTail, type ToolAnswer, type ToolSpec } from './tool-process.ts';

export interface JavaTableAdminOptions {
  /** argv prefix that runs the tool (no shell is involved). */
  readonly command: readonly string[];
  /** Whole-call limit, JVM start-up included (with `session`, a new process's start has a limit of its own). Default 120 s. */
  readonly timeoutMs?: number;
  /** ZooKeeper quorum `host[:port][,host[:port]]`; default: hbase-site.xml on the tool's classpath. */
  readonly zk?: string;
  readonly zkParent?: string;
  /** Extra HBase client configuration for the tool (`hbase.*` keys). */
  readonly conf?: Readonly<Record<string, string>>;
  /** Environment for the tool process; default: this process's environment. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Keep one tool process (and its HBase connection) for every call until close(), instead of one
   * process per call: a JVM start and a connection are ~2–4 s, the calls themselves ~0.2–1 s. For
   * callers that make several calls in a row (`tables apply` makes one or more per table and family).
   */
  readonly session?: boolean;
}

export interface PingResult {
  readonly clusterId: string;
  readonly hbaseVersion: string;
  readonly master: string | null;
  readonly liveServers: readonly string[];
}

const DEFAULT_TIMEOUT_MS = 120_000;

const stringMap = z.record(z.string(), z.string());
const envelopeSchema = z.object({
  ok: z.boolean(),
  code: z.string().optional(),
  error: z.string().optional(),
  table: z.string().nullish(),
  field: z.string().nullish(),
});
const ensureSchema = z.object({
  table: z.string(),
  created: z.boolean(),
  exists: z.boolean(),
  dryRun: z.boolean(),
  diff: z.array(
    z.object({
      scope: z.enum(['table', 'family']),
      key: z.string(),
      from: z.string().nullable(),
      to: z.string(),
    }),
  ),
  tableAttrs: stringMap.default({}),
  familyAttrs: stringMap.default({}),
  regionCount: z.number().int().default(0),
  splitsMatch: z.boolean().nullable().default(null),
});
const describeSchema = z.object({
  table: z.string(),
  exists: z.boolean(),
  enabled: z.boolean().default(false),
  tableAttrs: stringMap.default({}),
  families: z.array(z.object({ name: z.string(), attrs: stringMap })).default([]),
  regions: z
    .array(
      z.object({
        startKey: z.base64(),
        endKey: z.base64(),
        name: z.string(),
        encodedName: z.string(),
        server: z.string().nullable(),
      }),
    )
    .default([]),
});
const pingSchema = z.object({
  clusterId: z.string(),
  hbaseVersion: z.string(),
  master: z.string().nullable(),
  liveServers: z.array(z.string()),
});
/** A codec that is not usable says why; every codec has a name. */
const codecsSchema = z.object({
  codecs: z.array(
    z.discriminatedUnion('usable', [
      z.object({ name: z.string().min(1), usable: z.literal(true) }),
      z.object({ name: z.string().min(1), usable: z.literal(false), error: z.string().min(1) }),
    ]),
  ),
});

export class JavaTableAdmin implements TableAdminPort, CodecProbePort {
  readonly #tool: ToolSpec;
  readonly #timeoutMs: number;
  readonly #connection: Readonly<Record<string, unknown>>;
  readonly #session: ToolSession | undefined;

  constructor(options: JavaTableAdminOptions) {
    const [program] = options.command;
    if (program === undefined || program === '') {
      throw new TypeError('JavaTableAdmin: command must name the program that runs the admin tool');
    }
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1_000) {
      throw new RangeError(`JavaTableAdmin: timeoutMs must be an integer >= 1000, got ${timeoutMs}`);
    }
    this.#tool = { command: [...options.command], env: options.env };
    this.#timeoutMs = timeoutMs;
    this.#connection = {
      ...(options.zk === undefined ? {} : { zk: options.zk }),
      ...(options.zkParent === undefined ? {} : { zkParent: options.zkParent }),
      ...(options.conf === undefined ? {} : { conf: options.conf }),
    };
    this.#session = options.session === true ? new ToolSession(this.#tool) : undefined;
  }

  /** Ends the session's tool process, if any (a no-op without `session`). */
  close(): Promise<void> {
    return this.#session?.close() ?? Promise.resolve();
  }

  async ensureTable(req: EnsureTableRequest): Promise<EnsureTableResult> {
    const body = await this.#call('ensureTable', req.table, {
      family: req.family,
      splits: req.splits.map((s) => s.toString('base64')),
      familyAttrs: req.familyAttrs ?? {},
      tableAttrs: req.tableAttrs ?? {},
      ...(req.immutableTableAttrs === undefined ? {} : { immutableTableAttrs: req.immutableTableAttrs }),
      ...(req.dryRun === undefined ? {} : { dryRun: req.dryRun }),
    });
    return this.#parse('ensureTable', req.table, ensureSchema, body);
  }

  async describe(table: string): Promise<TableDescription> {
    const body = await this.#call('describe', table, {});
    const d = this.#parse('describe', table, describeSchema, body);
    return {
      ...d,
      regions: d.regions.map((r) => ({
        ...r,
        startKey: Buffer.from(r.startKey, 'base64'),
        endKey: Buffer.from(r.endKey, 'base64'),
      })),
    };
  }

  async drop(table: string): Promise<void> {
    await this.#call('drop', table, {});
  }

  async split(table: string, splitPoint: Buffer): Promise<void> {
    await this.#call('split', table, { splitPoint: splitPoint.toString('base64') });
  }

  /** Flush, major-compact and wait until the table has no compaction running or queued. */
  async compact(table: string): Promise<void> {
    await this.#call('compact', table, {});
  }

  /** Cluster id, version and live region servers: a cheap check that the admin path works. */
  async ping(): Promise<PingResult> {
    const body = await this.#call('ping', undefined, {});
    return this.#parse('ping', undefined, pingSchema, body);
  }

  /** Every codec HBase knows, tested in the tool's JVM (its jars, native libraries, hbase-site.xml). */
  async codecs(): Promise<readonly CodecProbe[]> {
    const body = await this.#call('codecs', undefined, {});
    return this.#parse('codecs', undefined, codecsSchema, body).codecs;
  }

  async #call(op: string, table: string | undefined, fields: Record<string, unknown>): Promise<unknown> {
    const what = table === undefined ? op : `${op} on table '${table}'`;
    // The tool's own deadline is shorter, so it normally answers TIMEOUT itself (ADMIN_TIMEOUT here) (and, behind
    // `docker exec`, stops even though killing the docker CLI would not stop it).
    const toolTimeoutMs = this.#timeoutMs - Math.min(5_000, Math.floor(this.#timeoutMs / 4));
    const request = { op, ...(table === undefined ? {} : { table }), ...fields, ...this.#connection, timeoutMs: toolTimeoutMs };
    const input = JSON.stringify(request);
    const run: ToolAnswer =
      this.#session === undefined ? await runTool(this.#tool, input, this.#timeoutMs, what) : await this.#session.request(input, this.#timeoutMs, what);
    const tail = run.stderrTail;
    const line = run.line;
    if (line === undefined) {
      throw protocolError(`${what}: admin tool exited with ${run.exit ?? 'code 0'} and wrote no JSON response`, table, tail);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (cause) {
      throw protocolError(`${what}: admin tool wrote invalid JSON: ${line.slice(0, 200)}`, table, tail, cause);
    }
    const envelope = envelopeSchema.safeParse(parsed);
    if (!envelope.success) {
      throw protocolError(`${what}: admin tool response lacks a boolean 'ok': ${line.slice(0, 200)}`, table, tail);
    }
    const e = envelope.data;
    if (!e.ok) {
      const code = tableAdminErrorCodeOf(e.code);
      const message = `${what} failed (${e.code ?? 'no code'}): ${e.error ?? 'no message'}`;
      throw new TableAdminError(code, code === 'ADMIN_INTERNAL' ? withTail(message, tail) : message, {
        table: e.table ?? table,
        field: e.field ?? undefined,
        stderrTail: tail,
      });
    }
    if (run.exit !== undefined) {
      throw protocolError(`${what}: admin tool answered ok but exited with ${run.exit}`, table, tail);
    }
    return parsed;
  }

  #parse<T>(op: string, table: string | undefined, schema: z.ZodType<T>, body: unknown): T {
    const result = schema.safeParse(body);
    if (!result.success) {
      const where = table === undefined ? op : `${op} on table '${table}'`;
      throw protocolError(`${where}: unexpected admin tool response: ${z.prettifyError(result.error)}`, table, '');
    }
    return result.data;
  }
}

function protocolError(message: string, table: string | undefined, tail: string, cause?: unknown): TableAdminError {
  return new TableAdminError('ADMIN_PROTOCOL', withTail(message, tail), { table, stderrTail: tail, cause });
}
