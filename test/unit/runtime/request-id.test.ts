// Every response of the service's HTTP server carries X-Request-Id (src/runtime/http.ts): the caller's
// when well-formed, a new one otherwise; routes see it in their context, and a route that fails is a
// 500 whose body and error log line carry the same id and the log line the cause.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createMetrics } from '../../../src/metrics/ingest-metrics.ts';
import { requestIdOf, startHttpServer } from '../../../src/runtime/http.ts';
import { Lifecycle } from '../../../src/runtime/lifecycle.ts';
import { createLogger } from '../../../src/runtime/logger.ts';

function capture(): { lines: Record<string, unknown>[]; destination: Writable } {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n')) if (l !== '') lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  return { lines, destination };
}

void test('requestIdOf: a well-formed incoming id is kept, anything else replaced by a UUID', () => {
  assert.equal(requestIdOf({ headers: { 'x-request-id': 'abc-123:x.y_z' } }), 'abc-123:x.y_z');
  for (const bad of ['', 'a b', 'x'.repeat(129), 'a\nb', '<script>']) {
    assert.match(requestIdOf({ headers: { 'x-request-id': bad } }), /^[0-9a-f-]{36}$/, JSON.stringify(bad));
  }
  assert.match(requestIdOf({ headers: {} }), /^[0-9a-f-]{36}$/);
});

void test('every response has X-Request-Id; a failing route is a 500 with the id in its body and in the logged line with the cause', async (t) => {
  const { lines, destination } = capture();
  const log = createLogger({ level: 'info', destination });
  const metrics = createMetrics(undefined, { defaultMetrics: false });
  const seen: (string | undefined)[] = [];
  const server = await startHttpServer({
    host: '127.0.0.1',
    port: 0,
    registry: metrics.registry,
    lifecycle: new Lifecycle({ log, metrics }),
    log,
    routes: (_req, _res, url, ctx) => {
      seen.push(ctx.requestId);
      if (url.pathname === '/boom') return Promise.reject(new TypeError('a bug', { cause: new Error('its cause') }));
      return Promise.resolve(false);
    },
  });
  t.after(() => server.close());
  const base = `http://127.0.0.1:${server.port}`;
  const health = await fetch(`${base}/healthz`);
  assert.match(health.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  const missing = await fetch(`${base}/nope`, { headers: { 'x-request-id': 'caller-42' } });
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get('x-request-id'), 'caller-42');
  assert.equal(seen.at(-1), 'caller-42', 'the route saw the id');
  const boom = await fetch(`${base}/boom`, { headers: { 'x-request-id': 'caller-43' } });
  assert.equal(boom.status, 500);
  assert.equal(boom.headers.get('x-request-id'), 'caller-43');
  assert.deepEqual(await boom.json(), { status: 'error', requestId: 'caller-43' });
  const logged = lines.find((l) => l['requestId'] === 'caller-43');
  assert.ok(logged !== undefined, 'the 500 is logged with the id');
  assert.equal(logged['level'], 'error');
  assert.match(JSON.stringify(logged['err']), /a bug: its cause/);
});
