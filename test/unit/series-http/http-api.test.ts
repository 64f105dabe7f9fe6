// The series API's HTTP answers when the reads fail or take too long (src/series-http/http-api.ts): a query
// past series.deadlineMs is OpenTSDB's 408 with its reads cancelled, HBase away a 503 with a short
// Retry-After, the gateway refusing the service's credentials a 503 with a long one, a bug a 500, a
// body over series.maxBodyBytes a 413. A real HTTP server; the reads are a port that stalls or fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { SeriesIndex } from '../../../src/catalog/series-index.ts';
import { HBaseError } from '../../../src/hbase/errors.ts';
import { createSeriesApi } from '../../../src/series-http/http-api.ts';
import type { SeriesReads } from '../../../src/series-query/series-reads.ts';

/** Reads that never answer (until aborted by nobody: the deadline must end the request) or fail with `err`. */
function reads(behave: 'stall' | Error): SeriesReads & { calls: number } {
  const port = {
    calls: 0,
    rawPointsOf(): Promise<never> {
      port.calls++;
      return behave === 'stall' ? new Promise(() => undefined) : Promise.reject(behave);
    },
    windowsOf(): Promise<never> {
      port.calls++;
      return behave === 'stall' ? new Promise(() => undefined) : Promise.reject(behave);
    },
  };
  return port;
}

async function serve(r: SeriesReads, deadlineMs = 150, logged: Record<string, unknown>[] = []): Promise<{ url: string; server: Server }> {
  const catalog = new SeriesIndex({ idTagKey: 'id' });
  catalog.add({ metric: 'temp', id: 'a', tags: {} });
  const api = createSeriesApi({
    catalog,
    reads: r,
    tier: undefined,
    idTagKey: 'id',
    now: Date.now,
    integerValues: false,
    limits: { maxSeries: 10, maxPoints: 1000, concurrency: 2 },
    ready: () => Promise.resolve(),
    deadlineMs,
    maxBodyBytes: 200,
    log: {
      warn: (o: Record<string, unknown>) => logged.push({ level: 'warn', ...o }),
      error: (o: Record<string, unknown>) => logged.push({ level: 'error', ...o }),
    } as never,
  });
  const server = createServer((req, res) => {
    const requestId = req.headers['x-request-id'];
    void api(req, res, new URL(req.url ?? '/', 'http://x'), { requestId: typeof requestId === 'string' ? requestId : undefined }).then((done) => {
      if (!done) res.writeHead(404).end();
    });
  });
  await new Promise<void>((res) => {
    server.listen(0, '127.0.0.1', () => {
      res();
    });
  });
  const addr = server.address();
  return { url: `http://127.0.0.1:${typeof addr === 'object' && addr !== null ? addr.port : 0}`, server };
}

const query = '/api/query?start=1h-ago&m=sum:temp';

void test('an answer carries Server-Timing: where its time went, phase by phase', async (t) => {
  const empty: SeriesReads = {
    rawPointsOf: () => Promise.resolve(new Map()),
    windowsOf: () => Promise.resolve({ windows: new Map(), marks: new Map(), cachedIds: new Set() }),
  };
  const { url, server } = await serve(empty, 5000);
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const res = await fetch(url + query);
  assert.equal(res.status, 200);
  await res.text();
  const timing = res.headers.get('server-timing') ?? '';
  assert.deepEqual(
    timing.split(', ').map((p) => p.split(';')[0]),
    ['catalog', 'refuse', 'lookup', 'recall', 'read', 'compute'],
    timing,
  );
  for (const p of timing.split(', ')) assert.match(p, /;dur=\d+\.\d$/);
});

void test('a query past series.deadlineMs: 408 naming the setting, within about the deadline', async (t) => {
  const r = reads('stall');
  const { url, server } = await serve(r, 150);
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const t0 = Date.now();
  const res = await fetch(url + query);
  assert.equal(res.status, 408);
  assert.match(((await res.json()) as { error: { message: string } }).error.message, /did not finish within 150 ms \(series\.deadlineMs\)/);
  assert.ok(Date.now() - t0 < 5000, 'answered at the deadline, not when the read ends');
  assert.ok(r.calls > 0, 'the read was started');
});

void test("HBase away: 503 with Retry-After 1; the gateway refusing the service's credentials: 503 with Retry-After 30, no detail; a bug: 500", async (t) => {
  const cases: [Error, number, string | null][] = [
    [new HBaseError({ code: 'HBASE_UNAVAILABLE', retriable: true, status: 503, message: 'HBase scan failed: HTTP 503' }), 503, '1'],
    [new HBaseError({ code: 'HBASE_UNAUTHORIZED', status: 401, message: 'HTTP 401 HBASE_UNAUTHORIZED: the gateway refused the credentials' }), 503, '30'],
    [new TypeError('a bug'), 500, null],
  ];
  for (const [err, status, retryAfter] of cases) {
    const logged: Record<string, unknown>[] = [];
    const { url, server } = await serve(reads(err), 150, logged);
    t.after(() => {
      server.closeAllConnections();
      server.close();
    });
    const res = await fetch(url + query, { headers: { 'x-request-id': `req-${status}` } });
    assert.equal(res.status, status, err.message);
    assert.equal(res.headers.get('retry-after'), retryAfter, err.message);
    const body = (await res.json()) as { error: { code: number; message: string; details?: string; requestId?: string } };
    assert.equal(body.error.code, status);
    if (retryAfter === '30') assert.equal(body.error.details, undefined, 'nothing of the refusal is echoed to the client');
    if (status !== 500) continue;
    assert.equal(body.error.requestId, 'req-500', "a 500's body carries the request's id");
    const line = logged.find((l) => l['level'] === 'error');
    assert.ok(line !== undefined && line['requestId'] === 'req-500' && line['err'] === err, 'logged with its cause and the id');
  }
});

void test('a body over series.maxBodyBytes: 413; the wrong method: 405', async (t) => {
  const { url, server } = await serve(reads('stall'));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const big = await fetch(`${url}/api/query`, {
    method: 'POST',
    body: JSON.stringify({ start: '1h-ago', queries: [{ aggregator: 'sum', metric: 'x'.repeat(400) }] }),
  });
  assert.equal(big.status, 413);
  const put = await fetch(`${url}/api/version`, { method: 'PUT' });
  assert.equal(put.status, 405);
});
