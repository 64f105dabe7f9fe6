// Shared setup for the HBase REST integration tests. They need a live gateway in
// TSI_HBASE_REST_URL and FAIL (never skip) when it is missing or unreachable.
import { randomBytes } from 'node:crypto';
import type { TestContext } from 'node:test';
import { HBaseRestClient, UndiciTransport } from '../../../src/hbase/index.ts';
import type { HttpRequest, HttpResponse, HttpTransport, TableSchemaInput } from '../../../src/hbase/index.ts';

const cleanups = new WeakMap<TestContext, (() => Promise<unknown>)[]>();

/** Registers cleanup that runs after the test in LIFO order (t.after hooks run FIFO). */
export function onCleanup(t: TestContext, fn: () => Promise<unknown>): void {
  let stack = cleanups.get(t);
  if (stack === undefined) {
    const fresh: (() => Promise<unknown>)[] = [];
    stack = fresh;
    cleanups.set(t, fresh);
    t.after(async () => {
      const errors: unknown[] = [];
      for (const f of fresh.reverse()) await f().catch((e: unknown) => errors.push(e));
      if (errors.length > 0) throw new AggregateError(errors, 'test cleanup failed');
    });
  }
  stack.push(fn);
}

export function restUrl(): string {
  const url = process.env['TSI_HBASE_REST_URL'];
  if (url === undefined || url === '') {
    throw new Error(
      'TSI_HBASE_REST_URL is not set: the HBase integration tests need a running REST gateway, ' + 'e.g. TSI_HBASE_REST_URL=http://127.0.0.1:8080',
    );
  }
  return url;
}

/** Records every exchange (request + status) while delegating to a real UndiciTransport. */
export class SpyTransport implements HttpTransport {
  readonly log: { req: HttpRequest; status: number | undefined }[] = [];
  readonly #inner: UndiciTransport;
  constructor(origin: string) {
    this.#inner = new UndiciTransport({ origin, connections: 4 });
  }
  async request(req: HttpRequest): Promise<HttpResponse> {
    const entry: { req: HttpRequest; status: number | undefined } = { req, status: undefined };
    this.log.push(entry);
    const res = await this.#inner.request(req);
    entry.status = res.status;
    return res;
  }
  close(): Promise<void> {
    return this.#inner.close();
  }
}

export interface Connected {
  client: HBaseRestClient;
  spy: SpyTransport;
}

/** A client over a SpyTransport; checks the gateway answers, closes on test end. */
export async function connect(t: TestContext, opts: { namespace?: string } = {}): Promise<Connected> {
  const baseUrl = restUrl();
  const spy = new SpyTransport(new URL(baseUrl).origin);
  const client = new HBaseRestClient({ baseUrl, transport: spy, defaultDeadlineMs: 30_000, ...opts });
  onCleanup(t, () => spy.close());
  try {
    await client.version({ deadlineMs: 5_000 });
  } catch (err) {
    throw new Error(`HBase REST gateway at TSI_HBASE_REST_URL=${baseUrl} is unreachable: ${String(err)}`, { cause: err });
  }
  return { client, spy };
}

export function uniqueTableName(): string {
  return `it_hbase_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

export const DEFAULT_FAMILIES: TableSchemaInput['families'] = [{ name: 'cf', attributes: { VERSIONS: 5 } }, { name: 'm' }];

/** Creates a uniquely named table and registers its deletion. */
export async function tempTable(t: TestContext, client: HBaseRestClient, families: TableSchemaInput['families'] = DEFAULT_FAMILIES): Promise<string> {
  const name = uniqueTableName();
  onCleanup(t, () => client.deleteTable(name, { ignoreMissing: true }));
  await client.createTable({ name, families });
  return name;
}
