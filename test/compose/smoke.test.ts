// Compose smoke test (`npm run test:compose`): docker-compose.yml brought up the way a user does it
// (scripts/lib/images/compose.ts: the project's images, Kafka + HBase, tables through table-admin in the
// hbase container, topics, the ingest and query services, Prometheus), under its own project name on
// ports moved with the TSI_COMPOSE_*_PORT variables while something else holds the default ones (the
// test holds those that are free). Events produced to Kafka must come back from HBase and from the
// query service's series API (the ingest service's answers 404), Prometheus must be scraping both
// services, and `down -v` must leave no container, volume or network of the project.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { generateEvents } from '../../src/demo/generate.ts';
import { HBaseRestClient } from '../../src/hbase/index.ts';
import { composeDown, composeUp, type ComposeProject } from '../../scripts/lib/images/compose.ts';
import { DEFAULT_PORTS, PORT_NAMES, PUBLISHED, resolvePorts } from '../../scripts/lib/images/compose-ports.ts';
import { freePort } from '../../scripts/lib/stack/probes.ts';
import { holdPorts, projectLeftovers } from './project.ts';
import { projectRoot } from '../../scripts/lib/stack/config.ts';

const EVENTS = 2000;
const log = (m: string): void => {
  process.stdout.write(`[compose-smoke] ${m}\n`);
};

async function eventually<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 2000));
  }
  const why = last instanceof Error ? ` (last error: ${last.message})` : '';
  throw new Error(`${what} within ${timeoutMs / 1000} s${why}`);
}

async function countRows(rest: HBaseRestClient, table: string): Promise<number> {
  let n = 0;
  for await (const row of rest.scan(table, { batch: 1000 })) if (row.row.length > 0) n++;
  return n;
}

async function promQuery(port: number, q: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> {
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/query?query=${encodeURIComponent(q)}`, { signal: AbortSignal.timeout(5000) });
  const body = (await res.json()) as { status: string; data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
  assert.equal(body.status, 'success');
  return body.data.result;
}

function httpsGet(port: number, path: string, ca: string, authorization?: string): Promise<{ status: number }> {
  return new Promise((resolveGet, reject) => {
    const req = httpsRequest(
      { host: '127.0.0.1', port, path, ca, servername: 'localhost', headers: authorization === undefined ? {} : { authorization }, timeout: 10_000 },
      (res) => {
        res.resume();
        res.on('end', () => {
          resolveGet({ status: res.statusCode ?? 0 });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

test('compose: events produced to Kafka land in HBase, Prometheus scrapes the service, down -v cleans up', { timeout: 1_200_000 }, async (t) => {
  const defaults = await holdPorts(PORT_NAMES.map((n) => DEFAULT_PORTS[n]));
  t.after(defaults.release);
  log(`default ports held by this test: ${defaults.held.join(', ') || 'none'} (the others by something else)`);
  const env: Record<string, string> = {};
  for (const n of PORT_NAMES) env[PUBLISHED[n].variable] = String(await freePort());
  const project: ComposeProject = { name: `tsismoke${Date.now().toString(36)}`, ports: resolvePorts(env, new Map()) };
  for (const n of PORT_NAMES) assert.notEqual(project.ports[n], DEFAULT_PORTS[n], `${n} moved off its default port`);
  let down = false;
  t.after(async () => {
    if (!down)
      await composeDown(project, log).catch((e: unknown) => {
        log(`cleanup failed: ${String(e)}`);
      });
  });

  const t0 = Date.now();
  await composeUp(project, log); // a failure prints the services' logs and removes the project
  log(`up in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  const kafka = new Kafka({ clientId: 'compose-smoke', brokers: [`127.0.0.1:${project.ports.kafka}`], logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const startTs = Date.now() - 3_600_000;
  const events = [...generateEvents({ count: EVENTS, ids: 50, startTs, stepMs: 1000, seed: 7 })];
  try {
    for (let i = 0; i < events.length; i += 500) {
      await producer.send({ topic: 'ts-events', acks: -1, messages: events.slice(i, i + 500).map((e) => ({ key: e.id, value: JSON.stringify(e) })) });
    }
  } finally {
    await producer.disconnect();
  }
  log(`produced ${EVENTS} events`);

  const rest = new HBaseRestClient({ baseUrl: `http://127.0.0.1:${project.ports.rest}`, defaultDeadlineMs: 30_000 });
  try {
    // Each generated event has its own timestamp: one data row per event.
    const rows = await eventually('every event as a row in tsdata', 180_000, async () => {
      const n = await countRows(rest, 'tsdata');
      return n >= EVENTS ? n : undefined;
    });
    assert.equal(rows, EVENTS, 'exactly one data row per event');
    const indexRows = await countRows(rest, 'tsindex');
    assert.equal(indexRows, EVENTS, 'one site-index row per event (config/compose.json indexes "site")');
  } finally {
    await rest.close();
  }

  const scraped = await eventually('Prometheus to have tsingest_ series from the ingest target', 120_000, async () => {
    const r = await promQuery(project.ports.prometheus, 'sum(tsingest_events_total{job="tsingest"})');
    const v = Number(r[0]?.value[1] ?? NaN);
    return v >= EVENTS ? v : undefined;
  });
  assert.ok(scraped >= EVENTS, `tsingest_events_total as scraped by Prometheus: ${scraped}`);
  const up = await promQuery(project.ports.prometheus, 'up{job="tsingest"}');
  assert.equal(up[0]?.value[1], '1', 'the ingest target is up (HTTPS, bearer token file)');
  // The service's port is HTTPS with credentials: anonymous gets 401, the operator token 200.
  const secrets = join(projectRoot, 'secrets');
  const ca = readFileSync(join(secrets, 'http-ca.crt'), 'utf8');
  const anonymous = await httpsGet(project.ports.http, '/metrics', ca);
  assert.equal(anonymous.status, 401, 'anonymous /metrics');
  const operator = await httpsGet(project.ports.http, '/metrics', ca, `Bearer ${readFileSync(join(secrets, 'operator-token'), 'utf8')}`);
  assert.equal(operator.status, 200, 'the operator token reads /metrics');
  assert.equal((await httpsGet(project.ports.http, '/readyz', ca)).status, 200, '/readyz stays open');
  const series = await promQuery(project.ports.prometheus, 'count({__name__=~"tsingest_.+"})');
  assert.ok(Number(series[0]?.value[1] ?? 0) > 10, 'many tsingest_ series scraped');
  // The query role: the series API on its own port behind the same credentials; the ingest role has none.
  const operatorToken = `Bearer ${readFileSync(join(secrets, 'operator-token'), 'utf8')}`;
  assert.equal((await httpsGet(project.ports.query, '/api/suggest?type=metrics&q=', ca, operatorToken)).status, 200, 'the query service reads');
  assert.equal((await httpsGet(project.ports.query, '/api/suggest?type=metrics&q=', ca)).status, 401, 'the same front door');
  assert.equal((await httpsGet(project.ports.http, '/api/suggest?type=metrics&q=', ca, operatorToken)).status, 404, 'the ingest service serves no read');
  const queryUp = await eventually('Prometheus to scrape the query target', 60_000, async () => {
    const r = await promQuery(project.ports.prometheus, 'up{job="tsingest-query"}');
    return r[0]?.value[1] === '1' ? r : undefined;
  });
  assert.equal(queryUp[0]?.value[1], '1', 'the query target is up (HTTPS, bearer token file, server name query)');

  const t1 = Date.now();
  await composeDown(project, log);
  down = true;
  log(`down -v in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
  assert.deepEqual(projectLeftovers(project.name), { containers: '', volumes: '', networks: '' }, 'no container, volume or network of the project left');
});
