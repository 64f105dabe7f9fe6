// The roles of `tsingest run` against the real stack (docs/ARCHITECTURE.md, "Roles"): an ingest
// process (in-process, service.role=ingest) consumes and writes; a query process (`tsingest run --role
// query` as a child) answers the read API and the series API for what the ingest process wrote, behind
// the same credentials, while Kafka's admin API finds no member of it in any consumer group: neither
// its own configured ingest group nor its rollup-owners group exists, and no group on the broker has a
// member with its client id. The ingest process answers the data routes 404 and keeps its probes,
// /metrics and /ui; the query process answers /ui 404. A second query process with no reachable Kafka
// at all starts and is ready. SIGTERM stops the query process with exit 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashToken } from '../../../src/front-door/credentials.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { startService } from '../../../src/service/service.ts';
import { uniqueName } from '../../support/env.ts';
import { createHarness, freePort, makeEvents, produceEvents, startChild, startInProcess, waitFor, waitForEvents } from '../../support/service-harness.ts';

const TOKEN = `roles-${uniqueName('reader')}`;
const CREDENTIALS = JSON.stringify({ tokens: [{ name: 'reader', sha256: hashToken(TOKEN), scopes: ['read', 'ui', 'metrics'] }] });
const AUTH = { authorization: `Bearer ${TOKEN}` };

async function get(port: number, path: string, headers: Record<string, string> = AUTH): Promise<{ status: number; text: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers, signal: AbortSignal.timeout(30_000) });
  return { status: res.status, text: await res.text() };
}

async function postJson(port: number, path: string, body: unknown, headers: Record<string, string> = AUTH): Promise<{ status: number; text: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: res.status, text: await res.text() };
}

test('roles: a query process joins no consumer group and reads what an ingest process wrote; the ingest process serves no data route', async (t) => {
  const t0 = Date.now();
  const since = (): string => `${((Date.now() - t0) / 1000).toFixed(1)} s`;
  const h = await createHarness(t, { prefix: 'roles', partitions: 2 });
  t.diagnostic(`tables and topics: ${since()}`);
  const common = ['http.host=127.0.0.1', `http.auth.credentials=${CREDENTIALS}`, 'series.catalogRefreshMs=1000'];
  const ingestGroup = uniqueName('it-roles-ingest');
  const ingestPort = await freePort();
  const ingest = await startInProcess(h, [...common, 'service.role=ingest', `kafka.groupId=${ingestGroup}`, `http.port=${ingestPort}`]);
  assert.equal(ingest.role, 'ingest');
  t.diagnostic(`ingest process running: ${since()}`);

  // The query process: its own (unique) group ids and client id, which it must never use.
  const queryGroup = uniqueName('it-roles-query');
  const queryClient = uniqueName('it-roles-query-client');
  const queryPort = await freePort();
  const query = startChild(h, [...common, `kafka.groupId=${queryGroup}`, `kafka.clientId=${queryClient}`, 'service.role=ingest'], queryPort, [
    '--role',
    'query',
  ]);
  await waitFor('the query process to be ready', 60_000, async () => (await get(queryPort, '/readyz', {}).catch(() => ({ status: 0 }))).status === 200);
  assert.match(query.output(), /"role":"query"/, 'the flag won over --set service.role=ingest');
  t.diagnostic(`query process ready: ${since()}`);

  const events = makeEvents(60, { idPrefix: 'roles' });
  await produceEvents(h, events);
  await waitForEvents(ingest, events.length);
  t.diagnostic(`events written: ${since()}`);
  const id = events[0]?.id ?? '';
  const start = events[0]?.ts ?? 0;
  const end = (events.at(-1)?.ts ?? 0) + 1000;
  const temps = events.filter((e) => e.metric === 'temp');

  await t.test('the query process answers the read API and the series API, with credentials', async () => {
    const latest = await get(queryPort, `/api/v1/ids/${id}/latest?limit=5`);
    assert.equal(latest.status, 200, latest.text);
    assert.ok((JSON.parse(latest.text) as { items: unknown[] }).items.length > 0, 'the read returned events');
    // The catalog rows are the ingest process's; the query process rereads them on a miss.
    let points = 0;
    await waitFor('the series API to see every temp point', 30_000, async () => {
      const r = await postJson(queryPort, '/api/query', { start, end, queries: [{ aggregator: 'sum', metric: 'temp', tags: { id: '*' } }] });
      if (r.status !== 200) return false;
      points = (JSON.parse(r.text) as { dps: Record<string, number> }[]).reduce((n, s) => n + Object.keys(s.dps).length, 0);
      return points === temps.length;
    });
    assert.equal(points, temps.length);
    const suggest = await get(queryPort, '/api/suggest?type=metrics&q=&max=10');
    assert.deepEqual(JSON.parse(suggest.text), ['hum', 'temp']);
    assert.equal((await get(queryPort, `/api/v1/ids/${id}/latest`, {})).status, 401, 'the same front door: no credential, no read');
    assert.equal((await postJson(queryPort, '/api/query', { start, queries: [{ aggregator: 'sum', metric: 'temp' }] }, {})).status, 401);
  });

  await t.test('the query process joins no consumer group; the ingest process is in its group and the rollup-owners group', async () => {
    const { groups: listed } = await h.admin.listGroups();
    const described = await h.admin.describeGroups(listed.map((g) => g.groupId));
    const withQuery = described.groups.filter((g) => g.members.some((m) => m.clientId === queryClient)).map((g) => g.groupId);
    assert.deepEqual(withQuery, [], `no group on the broker (of ${listed.length}) has a member of the query process`);
    const ownersOf = (group: string): string => `${group}.${h.names.topic}.rollup-owners`;
    const own = await h.admin.describeGroups([queryGroup, ownersOf(queryGroup)]);
    for (const g of own.groups) {
      assert.deepEqual(g.members, [], `${g.groupId}: no member`);
      assert.equal(g.state, 'Dead', `${g.groupId}: never created`);
    }
    const theirs = await h.admin.describeGroups([ingestGroup, ownersOf(ingestGroup)]);
    for (const g of theirs.groups) {
      assert.ok(g.members.length > 0, `${g.groupId}: the ingest process is a member (state ${g.state})`);
      assert.ok(
        g.members.every((m) => m.clientId !== queryClient),
        `${g.groupId}: no member of the query process`,
      );
    }
  });

  await t.test('the ingest process answers the data routes 404 naming the query role; its probes, /metrics and /ui stay', async () => {
    for (const path of [`/api/v1/ids/${id}/latest?limit=5`, '/api/suggest?type=metrics&q=', '/api/version']) {
      const r = await get(ingestPort, path);
      assert.equal(r.status, 404, `${path}: ${r.text}`);
      assert.match(r.text, /the query role serves the read API and the series API/);
    }
    assert.equal((await postJson(ingestPort, '/api/query', { start, queries: [{ aggregator: 'sum', metric: 'temp' }] })).status, 404);
    assert.equal((await get(ingestPort, '/readyz', {})).status, 200);
    assert.equal((await get(ingestPort, '/ui')).status, 200);
    assert.match((await get(ingestPort, '/metrics')).text, /^tsingest_events_total\{[^}]*outcome="written"[^}]*\} 60$/m);
  });

  await t.test('the query process: /ui is 404 naming the ingest role; /metrics says ready and it consumed nothing', async () => {
    const ui = await get(queryPort, '/ui');
    assert.equal(ui.status, 404);
    assert.match(ui.text, /the ingest role serves \/ui/);
    const metrics = await get(queryPort, '/metrics');
    assert.equal(metrics.status, 200);
    assert.match(metrics.text, /^tsingest_ready 1$/m);
    assert.match(metrics.text, /^tsingest_events_total\{outcome="written"\} 0$/m, 'no event handled');
    assert.doesNotMatch(metrics.text, /^tsingest_consumer_lag\{/m, 'no partition owned');
    assert.doesNotMatch(metrics.text, /^tsingest_rollup_bucket_owned\{/m, 'no rollup bucket owned');
  });

  await t.test('a query process needs no Kafka: with no broker reachable it starts, is ready and reads', async () => {
    const closed = await freePort();
    const cfg = h.config([...common, 'service.role=query', `kafka.brokers=127.0.0.1:${closed}`, 'http.port=0']);
    const svc = await startService(cfg, createLogger({ level: 'warn' }));
    try {
      assert.equal(svc.lifecycle.state, 'running');
      assert.equal((await get(svc.httpPort, '/readyz', {})).status, 200);
      assert.equal((await get(svc.httpPort, `/api/v1/ids/${id}/latest?limit=1`)).status, 200);
    } finally {
      await svc.stop('test');
    }
    await svc.finished;
    assert.equal(svc.lifecycle.state, 'stopped');
  });

  await t.test('SIGTERM stops the query process cleanly: exit 0', async () => {
    query.child.kill('SIGTERM');
    const exit = await query.exited;
    assert.deepEqual(exit, { code: 0, signal: null }, query.output().slice(-3000));
    assert.match(query.output(), /lifecycle draining → stopped/);
    t.diagnostic(`done: ${since()}`);
  });
});
