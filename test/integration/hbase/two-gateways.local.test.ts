// Two REST gateways (hbase.restUrls): the local stack's and a second one started here against the same
// HBase. Under a steady produce stream the second gateway is killed (-9) and restarted on the same port:
// no event is lost (rows in data and index table by scan, offsets committed to the end), /readyz stays
// 200 throughout, the killed gateway's health series goes to 0 and back to 1, and it serves writes again.
// The write throughput per second around the kill is recorded as a diagnostic, never asserted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gatewayLabel } from '../../../src/hbase/index.ts';
import { uniqueName } from '../../support/env.ts';
import { startRestGateway, type RestGateway } from '../../support/rest-gateway.ts';
import {
  countIndexed,
  countRows,
  createHarness,
  eventsProcessed,
  makeEvents,
  offsets,
  readyzStatus,
  startInProcess,
  waitFor,
  waitForCommittedAtEnd,
  waitForEvents,
  type Harness,
  type TestEvent,
} from '../../support/service-harness.ts';

/** The value of one series of `name` whose labels include all of `labels`, from /metrics (0 when absent). */
async function series(port: number, name: string, labels: Readonly<Record<string, string>>): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && want.every((w) => l.includes(w)));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** Produces 50 events every 100 ms (distinct id/ts) until stopped; resolves with everything it sent. */
function produceSteadily(h: Harness): { stop(): Promise<TestEvent[]> } {
  const sent: TestEvent[] = [];
  const stopped = new AbortController();
  const loop = (async () => {
    const producer = h.kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    try {
      for (let tick = 0; !stopped.signal.aborted; tick++) {
        const events = makeEvents(50, { idPrefix: 'gw', base: 1_732_262_400_000 + tick * 50_000 });
        await producer.send({ topic: h.names.topic, acks: -1, messages: events.map((e) => ({ key: e.id, value: JSON.stringify(e) })) });
        sent.push(...events);
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await producer.disconnect();
    }
  })();
  return {
    stop: async () => {
      stopped.abort();
      await loop;
      return sent;
    },
  };
}

void test('two REST gateways: one killed -9 mid-stream and restarted: nothing lost, ready throughout, health 0 then 1', async (t) => {
  const h = await createHarness(t, { prefix: 'gw2' });
  const dir = mkdtempSync(join(tmpdir(), 'tsi-gw2-'));
  h.defer(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  let second: RestGateway = await startRestGateway({ dir });
  h.defer(() => second.stop());
  const gw1 = gatewayLabel(h.env.restUrl);
  const gw2 = gatewayLabel(second.url);
  const group = uniqueName('it-gw2-g');
  const svc = await startInProcess(h, [`kafka.groupId=${group}`, 'http.port=0', `hbase.restUrls=${h.env.restUrl},${second.url}`]);
  const port = svc.httpPort;
  const ok = (gateway: string): Promise<number> => series(port, 'tsingest_hbase_gateway_requests_total', { client: 'write', gateway, outcome: 'ok' });
  const up = (gateway: string): Promise<number> => series(port, 'tsingest_hbase_gateway_up', { client: 'write', gateway });

  // Side loops: /readyz every 250 ms, written events every second (the throughput diagnostic).
  const notReady: string[] = [];
  const marks: string[] = [];
  const perSecond: string[] = [];
  const watching = new AbortController();
  const watchers = Promise.all([
    (async () => {
      while (!watching.signal.aborted) {
        const status = await readyzStatus(port).catch((err: unknown) => String(err));
        if (status !== 200) notReady.push(`${new Date().toISOString()} ${String(status)}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    })(),
    (async () => {
      let last = (await eventsProcessed(svc)).written;
      for (let s = 1; !watching.signal.aborted; s++) {
        await new Promise((r) => setTimeout(r, 1000));
        const now = (await eventsProcessed(svc)).written;
        perSecond.push(
          `${s}s:${now - last}${marks
            .splice(0)
            .map((m) => ` [${m}]`)
            .join('')}`,
        );
        last = now;
      }
    })(),
  ]);
  const producing = produceSteadily(h);
  const stopSideLoops = async (): Promise<void> => {
    watching.abort();
    await watchers;
  };
  try {
    // a few seconds of the stream over both gateways first, so the series shows the rate before the kill
    await waitFor(
      'both gateways to acknowledge writes',
      60_000,
      async () => (await ok(gw1)) > 0 && (await ok(gw2)) > 0 && (await eventsProcessed(svc)).written >= 1500,
      500,
    );
    assert.equal(await up(gw2), 1);

    second.signal('SIGKILL');
    marks.push('kill -9');
    await waitFor(`${gw2} health 0`, 60_000, async () => (await up(gw2)) === 0, 200);
    const writtenAtKill = (await eventsProcessed(svc)).written;
    await waitFor('writes going on through the other gateway', 60_000, async () => (await eventsProcessed(svc)).written > writtenAtKill + 500, 250);

    const port2 = second.port;
    await second.stop(); // reaps the killed process
    second = await startRestGateway({ dir, port: port2 });
    marks.push('restarted');
    assert.equal(gatewayLabel(second.url), gw2, 'same URL');
    await waitFor(`${gw2} health 1 again`, 60_000, async () => (await up(gw2)) === 1, 200);
    const okAtReturn = await ok(gw2);
    await waitFor(`${gw2} to acknowledge writes again`, 60_000, async () => (await ok(gw2)) > okAtReturn, 250);
    marks.push('serving again');
  } catch (err) {
    await producing.stop();
    await stopSideLoops();
    throw err;
  }
  const sent = await producing.stop();
  await waitForEvents(svc, sent.length);
  await stopSideLoops();
  t.diagnostic(`written events per second (kill, restart marked): ${perSecond.join(' ')}`);
  const attempts = await Promise.all(
    ['ok', 'connection_error', 'server_error', 'timeout', 'error'].map(
      async (outcome) => `${outcome}=${await series(port, 'tsingest_hbase_gateway_requests_total', { client: 'write', gateway: gw2, outcome })}`,
    ),
  );
  t.diagnostic(`events sent: ${sent.length}; write attempts on ${gw2}: ${attempts.join(' ')}; on ${gw1}: ok=${await ok(gw1)}`);
  await waitForCommittedAtEnd(h, group);
  assert.deepEqual(notReady, [], '/readyz answered 200 throughout');
  assert.equal(await countRows(h, h.names.data), sent.length, "every event's data row");
  assert.equal(await countRows(h, h.names.index), countIndexed(sent), 'every index row');
  const o = await offsets(h, group);
  assert.deepEqual(o.committed, o.end, 'offsets committed to the end');
  assert.equal((await eventsProcessed(svc)).dlq, 0, 'nothing dead-lettered');
});
