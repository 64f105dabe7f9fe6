// The read API's HTTP shape over an in-memory store: routes and percent-decoding, the streamed JSON
// page, error statuses (400/404/405, 503 for retriable HBase failures, 500 otherwise).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { buildDataRow } from '../../../src/events/cells.ts';
import { encodeIndexKey } from '../../../src/keys/index.ts';
import { HBaseError } from '../../../src/hbase/errors.ts';
import type { ScanOptions } from '../../../src/hbase/scanner.ts';
import type { Row } from '../../../src/hbase/types.ts';
import { createReadApi, matchRoute } from '../../../src/reads-v1/http-api.ts';
import type { QueryStore } from '../../../src/reads-v1/types.ts';
import { loadConfig } from '../../../src/runtime/config.ts';
import { startHttpServer } from '../../../src/runtime/http.ts';
import { Lifecycle } from '../../../src/runtime/lifecycle.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { keyspaceOf, tablesOf } from '../../../src/service/keyspace.ts';
import { FakeHBase } from '../../support/fake-hbase.ts';

const log = createLogger({ level: 'silent' });
const cfg = loadConfig({ env: {}, sets: ['keys.saltBuckets=4', 'index.tags=["site"]', 'query.maxLimit=50'] });

async function serve(t: TestContext, hbase: QueryStore, config = cfg): Promise<string> {
  const server = await startHttpServer({
    host: '127.0.0.1',
    port: 0,
    registry: new Registry(),
    lifecycle: new Lifecycle({ log }),
    log,
    routes: createReadApi({ cfg: config, hbase, keyspace: keyspaceOf(config), tables: tablesOf(config), log }),
  });
  t.after(() => server.close());
  return `http://127.0.0.1:${server.port}`;
}

test('routes match their segments and percent-decode ids and values', () => {
  assert.deepEqual(matchRoute(['ids', '%E8%AE%BE%E5%A4%87-7', 'latest'])?.params, { id: '设备-7' });
  assert.equal(matchRoute(['ids', 'a', 'latest'])?.route.kind, 'latest');
  assert.equal(matchRoute(['ids', 'a', 'events'])?.route.kind, 'range');
  assert.deepEqual(matchRoute(['index', 'site', 'a%2Fb', 'events'])?.params, { tag: 'site', value: 'a/b' });
  assert.deepEqual(matchRoute(['ids', 'a+b%20c', 'latest'])?.params, { id: 'a+b c' }, 'in a path + is a plus');
  assert.deepEqual(matchRoute(['ids', '..', 'rollups', '%2E'])?.params, { id: '..', window: '.' });
  assert.deepEqual(matchRoute(['ids', 'a', 'rollups', '1h'])?.params, { id: 'a', window: '1h' });
  assert.equal(matchRoute(['ids', 'a']), null);
  assert.equal(matchRoute(['ids', 'a', 'latest', 'x']), null);
  assert.throws(() => matchRoute(['ids', '%E8', 'latest']), /id is not valid percent-encoded/);
});

test('a page streams as one JSON document with the effective limit; the API leaves other paths alone', async (t) => {
  const store = new FakeHBase();
  const ts = 1_732_262_400_000;
  for (let i = 0; i < 60; i++) {
    const row = buildDataRow({ id: 'a/b', ts: ts + i, metric: 'temp', value: i, tags: { site: 'x' } }, 4, 'd');
    store.seed('tsdata', row.key, row.cells);
  }
  const base = await serve(t, store);
  const res = await fetch(`${base}/api/v1/ids/a%2Fb/latest?limit=500`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('cache-control'), 'no-store');
  const body = (await res.json()) as { items: { ts: number; metrics: { temp: number } }[]; next: string | null; limit: number };
  assert.equal(body.limit, 50, 'capped at query.maxLimit');
  assert.deepEqual(
    body.items.map((x) => x.ts),
    Array.from({ length: 50 }, (_, i) => ts + 59 - i),
  );
  assert.equal(typeof body.next, 'string');
  const rest = (await (await fetch(`${base}/api/v1/ids/a%2Fb/latest?limit=50&cursor=${body.next ?? ''}`)).json()) as typeof body;
  assert.deepEqual(
    rest.items.map((x) => x.metrics.temp),
    Array.from({ length: 10 }, (_, i) => 9 - i),
  );
  assert.equal(rest.next, null);
  const other = await fetch(`${base}/nope`);
  assert.equal(other.status, 404);
  assert.deepEqual(await other.json(), { status: 'not_found', path: '/nope' });
  const head = await fetch(`${base}/api/v1/ids/x/latest`, { method: 'HEAD' });
  assert.equal(head.status, 200);
  const del = await fetch(`${base}/api/v1/ids/x/latest`, { method: 'DELETE' });
  assert.equal(del.status, 405);
  assert.equal(del.headers.get('allow'), 'GET, HEAD');
  await del.body?.cancel();
});

test('a bad parameter is a 400 whose body names it, the code in lower case as docs/QUERIES.md documents', async (t) => {
  const base = await serve(t, new FakeHBase());
  const res = await fetch(`${base}/api/v1/ids/a/latest?limit=0`);
  assert.equal(res.status, 400);
  const body = (await res.json()) as { error: string; parameter: string };
  assert.deepEqual({ error: body.error, parameter: body.parameter }, { error: 'bad_parameter', parameter: 'limit' });
  const unknown = await fetch(`${base}/api/v1/index/nope/x/events`);
  assert.equal(unknown.status, 404);
  assert.equal(((await unknown.json()) as { error: string }).error, 'unknown_index');
});

class FailingStore extends FakeHBase {
  readonly #err: () => Error;
  readonly #after: number;
  constructor(err: () => Error, after = 0) {
    super();
    this.#err = err;
    this.#after = after;
  }

  override scan(table: string, opts: ScanOptions = {}): AsyncGenerator<Row, void, undefined> {
    const inner = super.scan(table, opts);
    const fail = this.#err;
    const after = this.#after;
    return (async function* failing() {
      let n = 0;
      for await (const r of inner) {
        if (n++ >= after) break;
        yield r;
      }
      throw fail();
    })();
  }
}

test('HBase failures: 503 + Retry-After when retriable, 500 otherwise, a cut connection once streaming', async (t) => {
  const unavailable = await serve(t, new FailingStore(() => new HBaseError({ code: 'HBASE_UNAVAILABLE', message: 'HTTP 503 UNAVAILABLE' })));
  const r503 = await fetch(`${unavailable}/api/v1/ids/a/latest`);
  assert.equal(r503.status, 503);
  assert.equal(r503.headers.get('retry-after'), '1');
  assert.equal(((await r503.json()) as { error: string }).error, 'unavailable');

  // The gateway refusing the service's own credentials is an outage for the caller, not a 500.
  for (const code of ['HBASE_UNAUTHORIZED', 'HBASE_FORBIDDEN'] as const) {
    const refused = await serve(
      t,
      new FailingStore(
        () =>
          new HBaseError({
            code,
            status: code === 'HBASE_UNAUTHORIZED' ? 401 : 403,
            message: `HTTP 401 ${code}: the gateway refused the request's credentials`,
          }),
      ),
    );
    const r = await fetch(`${refused}/api/v1/ids/a/latest`);
    assert.equal(r.status, 503, code);
    assert.equal(r.headers.get('retry-after'), '30');
    assert.deepEqual(await r.json(), {
      error: 'unavailable',
      message: 'HBase is unavailable to the service (the gateway refused its credentials), retry later',
    });
  }

  const broken = await serve(t, new FailingStore(() => new HBaseError({ code: 'HBASE_TABLE_NOT_FOUND', message: 'no table' })));
  const r500 = await fetch(`${broken}/api/v1/ids/a/latest`);
  assert.equal(r500.status, 500);
  assert.match(((await r500.json()) as { message: string }).message, /no table/);

  const store = new FailingStore(() => new HBaseError({ code: 'HBASE_UNAVAILABLE', message: 'gone mid-scan' }), 2);
  for (let i = 0; i < 5; i++) {
    const row = buildDataRow({ id: 'a', ts: 1000 + i, metric: 'temp', value: i, tags: {} }, 4, 'd');
    store.seed('tsdata', row.key, row.cells);
  }
  const midway = await serve(t, store);
  const res = await fetch(`${midway}/api/v1/ids/a/latest`);
  assert.equal(res.status, 200, 'the status went out with the first item');
  await assert.rejects(res.text(), 'the body is cut, never a complete-looking page');
});

/** A store whose scans read their rows at once (like one HBase response) but stop before the third until `open()` is called. */
class GatedStore extends FakeHBase {
  readonly #gate: Promise<void>;
  readonly open: () => void;
  constructor() {
    super();
    let open = (): void => undefined;
    this.#gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    this.open = open;
  }

  override scan(table: string, opts: ScanOptions = {}): AsyncGenerator<Row, void, undefined> {
    const inner = super.scan(table, opts);
    const gate = this.#gate;
    return (async function* gated() {
      const rows: Row[] = [];
      for await (const r of inner) rows.push(r);
      for (const [i, r] of rows.entries()) {
        if (i === 2) await gate;
        yield r;
      }
    })();
  }
}

test('items stream: those read so far go out (in one write) while the read waits for more', async (t) => {
  const store = new GatedStore();
  for (let i = 0; i < 5; i++) {
    const row = buildDataRow({ id: 'a', ts: 1000 + i, metric: 'temp', value: i, tags: { site: 'x' } }, 4, 'd');
    store.seed('tsdata', row.key, row.cells);
  }
  const base = await serve(t, store);
  const res = await fetch(`${base}/api/v1/ids/a/latest?limit=10`);
  assert.equal(res.status, 200);
  const reader = (res.body ?? assert.fail('no body')).getReader() as ReadableStreamDefaultReader<Uint8Array>;
  const utf8 = new TextDecoder();
  const first = await reader.read();
  const sent = utf8.decode(first.value);
  assert.equal(
    sent,
    `{"items":[${[1004, 1003].map((ts) => JSON.stringify({ id: 'a', ts, time: new Date(ts).toISOString(), metrics: { temp: ts - 1000 }, tags: { site: 'x' } })).join(',')}`,
  );
  store.open();
  let text = sent;
  for (let r = await reader.read(); !r.done; r = await reader.read()) text += utf8.decode(r.value);
  const body = JSON.parse(text) as { items: { ts: number }[]; next: string | null; limit: number };
  assert.deepEqual(
    body.items.map((x) => x.ts),
    [1004, 1003, 1002, 1001, 1000],
  );
  assert.deepEqual([body.next, body.limit], [null, 10]);
});

test('a read past query.deadlineMs: 408, and the stalled scan is abandoned', async (t) => {
  let scans = 0;
  let gate = (): void => undefined;
  const stalled = new Promise<void>((resolve) => {
    gate = resolve;
  });
  class StalledStore extends FakeHBase {
    override scan(table: string, opts: ScanOptions = {}): AsyncGenerator<Row, void, undefined> {
      const inner = super.scan(table, opts);
      scans++;
      return (async function* slow() {
        await stalled;
        yield* inner;
      })();
    }
  }
  const base = await serve(t, new StalledStore(), loadConfig({ env: {}, sets: ['keys.saltBuckets=4', 'query.deadlineMs=150'] }));
  const started = Date.now();
  const res = await fetch(`${base}/api/v1/ids/a/latest`);
  gate();
  assert.equal(res.status, 408);
  assert.match(((await res.json()) as { message: string }).message, /did not finish within 150 ms \(query\.deadlineMs\)/);
  assert.ok(Date.now() - started < 5000);
  assert.ok(scans > 0, 'the read had started its scans');
});

test('no writes behind a GET: dangling index rows are repaired only in a read whose caller has the admin scope', async (t) => {
  const repairing = loadConfig({ env: {}, sets: ['keys.saltBuckets=4', 'index.tags=["site"]', 'query.repairDangling=true', 'query.danglingGraceMs=0'] });
  const store = new FakeHBase();
  const ev = { id: 'gone', ts: 1_700_000_000_000, metric: 'temp', value: 1, tags: { site: 'x' } };
  const indexKey = encodeIndexKey({ indexName: 'site', value: 'x', ts: ev.ts, id: ev.id }, 4);
  store.seed('tsindex', indexKey, [{ family: 'd', qualifier: Buffer.from('temp'), value: Buffer.alloc(0), timestamp: ev.ts }]);
  // the data row is never written: the index row dangles
  const api = createReadApi({ cfg: repairing, hbase: store, keyspace: keyspaceOf(repairing), tables: tablesOf(repairing), log });
  const serveAs = async (scopes: string[]): Promise<string> => {
    const server = await startHttpServer({
      host: '127.0.0.1',
      port: 0,
      registry: new Registry(),
      lifecycle: new Lifecycle({ log }),
      log,
      routes: api,
      guard: () => Promise.resolve({ identity: { name: 'x', via: 'token', scopes: new Set(scopes) } }),
    });
    t.after(() => server.close());
    return `http://127.0.0.1:${server.port}`;
  };
  const reader = await serveAs(['read']);
  const page = (await (await fetch(`${reader}/api/v1/index/site/x/events`)).json()) as { dangling: number };
  assert.equal(page.dangling, 1);
  assert.equal(store.has('tsindex', indexKey), true, 'a read-scope GET wrote nothing');
  const anonymous = await serve(t, store, repairing);
  await (await fetch(`${anonymous}/api/v1/index/site/x/events`)).json();
  assert.equal(store.has('tsindex', indexKey), true, 'an anonymous GET wrote nothing');
  const admin = await serveAs(['read', 'admin']);
  await (await fetch(`${admin}/api/v1/index/site/x/events`)).json();
  assert.equal(store.has('tsindex', indexKey), false, 'the admin scope repairs');
});
