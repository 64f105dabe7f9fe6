// Kafka broker killed mid-stream: /readyz turns 503 (the consumer crashes, the broker stops
// answering), nothing is committed while it is gone, and once it is back the service is ready
// again and writes every event exactly once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { uniqueName } from '../../support/env.ts';
import {
  countDataCells,
  createHarness,
  makeEvents,
  produceEvents,
  readyzStatus,
  startInProcess,
  waitFor,
  waitForCommittedAtEnd,
  waitForEvents,
} from '../../support/service-harness.ts';
import { killStackProcess } from '../../support/stack-control.ts';

void test('broker down → not ready; broker back → ready, every event written once', async (t) => {
  const h = await createHarness(t, { prefix: 'kdown' });
  const events = makeEvents(2000);
  const group = uniqueName('it-kdown-g');
  const svc = await startInProcess(h, [`kafka.groupId=${group}`, 'http.port=0']);
  await produceEvents(h, events.slice(0, 1000));
  await waitForEvents(svc, 1000);
  await waitForCommittedAtEnd(h, group);
  assert.equal(await readyzStatus(svc.httpPort), 200);

  const kafka = await killStackProcess(h.defer, 'kafka');
  await waitFor('/readyz 503 while the broker is down', 120_000, async () => (await readyzStatus(svc.httpPort)) === 503, 250);
  assert.match(svc.lifecycle.reason, /Kafka/, `the reason names Kafka: ${svc.lifecycle.reason}`);

  await kafka.restore();
  await waitFor('/readyz 200 after the broker returned', 180_000, async () => (await readyzStatus(svc.httpPort)) === 200, 500);
  await produceEvents(h, events.slice(1000));
  await waitForCommittedAtEnd(h, group, 180_000);
  assert.equal(await countDataCells(h), events.length, 'every event exactly once');
  assert.equal(await readyzStatus(svc.httpPort), 200);
});
