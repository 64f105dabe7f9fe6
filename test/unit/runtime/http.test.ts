import { describe, it } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { createMetrics } from '../../../src/metrics/ingest-metrics.ts';
import { RegionMap } from '../../../src/load/region-map.ts';
import type { RegionInfo } from '../../../src/load/region-source.ts';
import { meteredRegionWrites } from '../../../src/metrics/region-writes-metrics.ts';
import { startHttpServer } from '../../../src/runtime/http.ts';
import type { HttpServerHandle } from '../../../src/runtime/http.ts';
import { Lifecycle } from '../../../src/runtime/lifecycle.ts';
import { createLogger } from '../../../src/runtime/logger.ts';

const log = createLogger({ level: 'silent' });
const HOST = '127.0.0.1';

async function start(t: TestContext): Promise<{ server: HttpServerHandle; lifecycle: Lifecycle; base: string; metrics: ReturnType<typeof createMetrics> }> {
  const metrics = createMetrics();
  const lifecycle = new Lifecycle({ log, metrics });
  const server = await startHttpServer({ host: HOST, port: 0, registry: metrics.registry, lifecycle, log });
  t.after(() => server.close());
  return { server, lifecycle, base: `http://${HOST}:${server.port}`, metrics };
}

async function getJson(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(res.headers.get('cache-control'), 'no-store');
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

void describe('startHttpServer', () => {
  void it('binds port 0 to a free port', async (t) => {
    const { server } = await start(t);
    assert.ok(Number.isInteger(server.port) && server.port > 0);
  });

  void it('/healthz is 200 while live and 503 once stopped or failed', async (t) => {
    const { lifecycle, base } = await start(t);
    assert.deepEqual(await getJson(`${base}/healthz`), { status: 200, body: { status: 'ok', state: 'starting' } });
    lifecycle.transition('degraded', 'hbase down');
    assert.deepEqual(await getJson(`${base}/healthz`), { status: 200, body: { status: 'ok', state: 'degraded' } });
    lifecycle.transition('draining', 'SIGTERM');
    assert.equal((await getJson(`${base}/healthz`)).status, 200);
    lifecycle.transition('stopped', 'drained');
    assert.deepEqual(await getJson(`${base}/healthz`), {
      status: 503,
      body: { status: 'down', state: 'stopped', reason: 'drained' },
    });
  });

  void it('/readyz is 200 only in running, else 503 with state and reason', async (t) => {
    const { lifecycle, base } = await start(t);
    assert.deepEqual(await getJson(`${base}/readyz`), {
      status: 503,
      body: { status: 'not_ready', state: 'starting', reason: 'starting up' },
    });
    lifecycle.transition('running', 'consumer joined');
    assert.deepEqual(await getJson(`${base}/readyz?verbose=1`), { status: 200, body: { status: 'ready', state: 'running' } });
    lifecycle.transition('degraded', 'hbase unavailable past 60s deadline');
    assert.deepEqual(await getJson(`${base}/readyz`), {
      status: 503,
      body: { status: 'not_ready', state: 'degraded', reason: 'hbase unavailable past 60s deadline' },
    });
    lifecycle.transition('failed', 'fatal');
    assert.equal((await getJson(`${base}/readyz`)).status, 503);
  });

  void it('/metrics serves the Prometheus text format with the region-writes gauges', async (t) => {
    const { base, metrics } = await start(t);
    const regions: RegionInfo[] = [
      { name: 't,,1.0123456789abcdef0123456789abcdef.', startKey: Buffer.alloc(0), endKey: Buffer.from([1]), server: 'rs1:1' },
      { name: 't,\\x01,1.fedcba9876543210fedcba9876543210.', startKey: Buffer.from([1]), endKey: Buffer.alloc(0), server: 'rs1:1' },
    ];
    const map = new RegionMap({ source: { regions: () => Promise.resolve(regions) }, log });
    const { writes, close } = meteredRegionWrites(metrics, { regionMap: map });
    t.after(close);
    await map.refresh('t');
    writes.record('t', [Buffer.from([0, 1]), Buffer.from([0, 2])], (k) => k[0]);
    const res = await fetch(`${base}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    assert.match(text, /^# TYPE tsingest_instance_region_write_skew gauge$/m);
    assert.match(text, /^tsingest_instance_region_write_skew\{table="t"\} 2$/m);
    assert.match(text, /^tsingest_region_writes_total\{table="t",region="0123456789abcdef0123456789abcdef",server="rs1:1"\} 2$/m);
    assert.match(text, /^tsingest_state\{state="starting"\} 1$/m);
    assert.match(text, /^tsingest_process_cpu_user_seconds_total /m);
  });

  void it('/metrics?name=… renders only the named metrics (unknown names nothing)', async (t) => {
    const { base, metrics } = await start(t);
    metrics.events.inc({ outcome: 'written' }, 7);
    const res = await fetch(`${base}/metrics?name=tsingest_events_total&name=tsingest_state&name=no_such_metric`);
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.match(text, /^tsingest_events_total\{outcome="written"\} 7$/m);
    assert.match(text, /^tsingest_state\{state="starting"\} 1$/m);
    const families = [...text.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]);
    assert.deepEqual(families, ['tsingest_events_total', 'tsingest_state'], 'nothing else');
    const full = await (await fetch(`${base}/metrics`)).text();
    assert.ok([...full.matchAll(/^# TYPE /gm)].length > 10, 'without a name: everything');
  });

  void it('answers 404 for other paths, 405 for other methods, and HEAD without a body', async (t) => {
    const { base } = await start(t);
    const notFound = await fetch(`${base}/nope`);
    assert.equal(notFound.status, 404);
    await notFound.body?.cancel();
    const post = await fetch(`${base}/metrics`, { method: 'POST', body: 'x' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
    await post.body?.cancel();
    const head = await fetch(`${base}/healthz`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), '');
  });

  void it('close is idempotent and stops listening, even with a keep-alive connection open', async (t) => {
    const { server, base } = await start(t);
    // open a keep-alive connection through node:http so it stays idle in the pool
    const agentRes = await new Promise<number>((resolve, reject) => {
      const req = request(`${base}/healthz`, { headers: { connection: 'keep-alive' } }, (res) => {
        res.resume();
        res.on('end', () => {
          resolve(res.statusCode ?? 0);
        });
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(agentRes, 200);
    const first = server.close();
    assert.equal(server.close(), first);
    await first;
    await server.close();
    await assert.rejects(fetch(`${base}/healthz`));
  });

  void it('offers other paths to the routes hook before the 404; the ops routes keep precedence', async (t) => {
    const metrics = createMetrics();
    const seen: string[] = [];
    const server = await startHttpServer({
      host: HOST,
      port: 0,
      registry: metrics.registry,
      lifecycle: new Lifecycle({ log, metrics }),
      log,
      routes: async (req, res, url) => {
        await Promise.resolve();
        seen.push(`${req.method ?? ''} ${url.pathname}${url.search}`);
        if (url.pathname === '/boom') throw new Error('handler failed');
        if (!url.pathname.startsWith('/api/')) return false;
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
        res.end(JSON.stringify({ path: url.pathname, q: url.searchParams.get('q') }));
        return true;
      },
    });
    t.after(() => server.close());
    const base = `http://${HOST}:${server.port}`;
    assert.deepEqual(await getJson(`${base}/api/x?q=1`), { status: 200, body: { path: '/api/x', q: '1' } });
    assert.deepEqual(await getJson(`${base}/other`), { status: 404, body: { status: 'not_found', path: '/other' } });
    const boom = await getJson(`${base}/boom`);
    assert.equal(boom.status, 500);
    assert.equal(boom.body['status'], 'error');
    assert.equal(typeof boom.body['requestId'], 'string', 'the 500 names its request (request-id.test.ts)');
    assert.equal((await getJson(`${base}/healthz`)).status, 200);
    assert.deepEqual(seen, ['GET /api/x?q=1', 'GET /other', 'GET /boom'], 'the hook never sees /healthz');
  });

  void it('rejects when the port is taken', async (t) => {
    const { server } = await start(t);
    await assert.rejects(
      startHttpServer({ host: HOST, port: server.port, registry: createMetrics().registry, lifecycle: new Lifecycle({ log }), log }),
      /EADDRINUSE/,
    );
  });
});
