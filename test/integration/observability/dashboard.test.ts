// The generated Grafana dashboard and the Prometheus rules against the real thing: the ingest
// service runs in-process on the real Kafka and HBase, a real Prometheus scrapes it every second
// with the project's rule files while events keep arriving, then every panel query of the dashboard
// (variables filled in) must return data, every rule must evaluate without error, and the alerts
// the input provokes must be active.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Producer } from 'kafkajs';
import { buildDashboard } from '../../../scripts/dashboard/region-write-spread.ts';
import { panelQueries, type PanelQuery } from '../../../scripts/dashboard/grafana.ts';
import { startKeyLabel } from '../../../src/metrics/ingest-metrics.ts';
import { uniqueName } from '../../support/env.ts';
import { createHarness, retryingRest, startInProcess, waitFor, type Harness, type TestEvent } from '../../support/service-harness.ts';
import { startPrometheus, type Prometheus } from './prometheus.ts';

const JOB = 'tsingest';
const RATE_INTERVAL = '10s';
/** How long events keep arriving before the panels are judged (the 1-minute rules need a few samples). */
const PRODUCE_MS = 20_000;
/** Extra time, still producing, for panels that have no data yet. */
const SETTLE_MS = 30_000;
/** Records the parser rejects, and why (src/events/reject.ts). */
const BAD_RECORDS = [
  { value: 'not json', reason: 'invalid_json' },
  { value: '{"id":"dev-x","metric":"temp","value":1}', reason: 'missing_field' },
] as const;

function substitute(expr: string, table: string): string {
  return expr.replaceAll('$__rate_interval', RATE_INTERVAL).replaceAll('$job', JOB).replaceAll('$table', table);
}

/** A skewed id mix (a few ids get most events) with distinct timestamps; every 5th event two hours old. */
function batchOf(n: number, seq: number): TestEvent[] {
  const now = Date.now();
  return Array.from({ length: n }, (_, i) => {
    const k = seq * n + i;
    const u = (k * 0.6180339887) % 1;
    const id = `dev-${Math.floor(40 * u * u * u)}`;
    const ts = (k % 5 === 0 ? now - 2 * 3_600_000 : now) - i;
    return { id, ts, metric: k % 2 === 0 ? 'temp' : 'hum', value: k / 4, tags: { site: `s${k % 3}` } };
  });
}

/** Sends a batch every 250 ms until stopped; resolves the returned promise on stop. */
function keepProducing(h: Harness, producer: Producer): { stop: () => Promise<void>; sent: () => number } {
  const state = { running: true };
  let sent = 0;
  const loop = (async () => {
    for (let seq = 0; state.running; seq++) {
      const events = batchOf(50, seq);
      await producer.send({ topic: h.names.topic, acks: -1, messages: events.map((e) => ({ key: e.id, value: JSON.stringify(e) })) });
      sent += events.length;
      await sleep(250);
    }
  })();
  return {
    stop: async () => {
      state.running = false;
      await loop;
    },
    sent: () => sent,
  };
}

async function emptyQueries(prom: Prometheus, queries: readonly PanelQuery[], table: string): Promise<string[]> {
  const empty: string[] = [];
  for (const q of queries) {
    const expr = substitute(q.expr, table);
    const result = await prom.query(expr);
    if (result.length === 0) empty.push(`${q.panel} [${q.refId}]: ${expr}`);
  }
  return empty;
}

void describe('observability against a real Prometheus', () => {
  void it('every panel query of the generated dashboard returns data; the rules load, evaluate and fire', async (t) => {
    const h = await createHarness(t, { prefix: 'obs', partitions: 2 });
    const svc = await startInProcess(h, [`kafka.groupId=${uniqueName('it-obs')}`, 'http.port=0', 'rollup.intervalMs=2000']);
    const prom = await startPrometheus({ job: JOB, targets: [`127.0.0.1:${svc.httpPort}`], defer: h.defer });

    const producer = h.kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    h.defer(() => producer.disconnect());
    const traffic = keepProducing(h, producer);
    h.defer(() => traffic.stop());

    await waitFor(
      'Prometheus to scrape written events',
      90_000,
      async () => (await prom.query(`sum(tsingest_events_total{job="${JOB}",outcome="written"}) > 0`)).length > 0,
      1000,
    );
    // Only now, so that Prometheus has seen the DLQ counters at 0 before they count these.
    await producer.send({ topic: h.names.topic, acks: -1, messages: BAD_RECORDS.map((b) => ({ key: 'bad', value: b.value })) });
    await sleep(PRODUCE_MS);

    // Every panel query, variables filled in, must return at least one series.
    const queries = panelQueries(buildDashboard());
    assert.ok(queries.length >= 30, `only ${queries.length} queries in the dashboard`);
    const table = h.names.data;
    let empty = await emptyQueries(prom, queries, table);
    const settleUntil = Date.now() + SETTLE_MS;
    while (empty.length > 0 && Date.now() < settleUntil) {
      await sleep(2000);
      empty = await emptyQueries(prom, queries, table);
    }
    assert.deepEqual(empty, [], `panel queries without data after ${traffic.sent()} events:\n  ${empty.join('\n  ')}\nPrometheus log:\n${prom.output()}`);

    // The rule files load and every rule evaluates without error.
    const groups = await prom.ruleGroups();
    assert.deepEqual(groups.map((g) => g.name).sort(), ['tsingest-alerts', 'tsingest-recording']);
    for (const g of groups) for (const r of g.rules) assert.equal(r.health, 'ok', `${g.name}/${r.name}: ${r.health} ${r.lastError ?? ''}`);

    // Cluster-wide region count = the table's regions as HBase lists them (idle ones included).
    const regions = await retryingRest('regions', () => h.rest.regions(table));
    const counted = await prom.query(`table:tsingest_regions:count{table="${table}"}`);
    assert.equal(Number(counted[0]?.value[1]), regions.length);
    // The heatmap rows are the table's regions, labelled with their start keys.
    const heat = queries.find((q) => q.panel.includes('key visualizer'));
    assert.ok(heat !== undefined);
    const rows = (await prom.query(substitute(heat.expr, table))).map((s) => s.metric['start_key'] ?? '');
    const starts = new Set(regions.map((r) => startKeyLabel(r.startKey)));
    for (const row of rows) assert.ok(starts.has(row), `heatmap row ${row} is not a start key of ${table} (${[...starts].join(', ')})`);

    // The bad records make TsingestDeadLetters fire (no `for`), per reason; the instance is not down.
    const expectedReasons = [...new Set(BAD_RECORDS.map((b) => b.reason))].sort();
    await waitFor(
      'TsingestDeadLetters to fire for every reason',
      30_000,
      async () => {
        const firing = (await prom.alerts()).filter((a) => a.labels['alertname'] === 'TsingestDeadLetters' && a.state === 'firing');
        return expectedReasons.every((r) => firing.some((a) => a.labels['reason'] === r));
      },
      1000,
    );
    const alerts = await prom.alerts();
    const unexpected = alerts.filter((a) => a.labels['alertname'] === 'TsingestInstanceDown' || a.labels['alertname'] === 'TsingestNotReady');
    assert.deepEqual(unexpected, []);
    const dlqReasons = alerts
      .filter((a) => a.labels['alertname'] === 'TsingestDeadLetters')
      .map((a) => a.labels['reason'])
      .sort();
    assert.deepEqual(dlqReasons, expectedReasons);
    await traffic.stop();
  });
});
