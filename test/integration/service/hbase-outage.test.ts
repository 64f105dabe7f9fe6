// HBase killed with the REST gateway left running: the gateway holds the writes, so failures arrive
// only at the request deadline; /readyz must still turn 503 within hbase.outageDeadlineMs of the
// oldest unacknowledged write, nothing is committed meanwhile, and once HBase is back the service is
// ready again and every event produced during the outage is written.
// (HBase of the local stack runs on file:// without WAL sync, so rows acknowledged before a kill -9
// may be lost by HBase itself; this test checks only what the service owes.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { uniqueName } from '../../support/env.ts';
import {
  createHarness,
  makeEvents,
  offsets,
  produceEvents,
  readyzStatus,
  retryingRest,
  startInProcess,
  waitFor,
  waitForCommittedAtEnd,
  waitForEvents,
  type Harness,
} from '../../support/service-harness.ts';
import { killStackProcess } from '../../support/stack-control.ts';

async function dataKeys(h: Harness): Promise<Set<string>> {
  return retryingRest(`scan ${h.names.data}`, async () => {
    const keys = new Set<string>();
    for await (const row of h.rest.scan(h.names.data, { batch: 5000 })) keys.add(row.row.toString('hex'));
    return keys;
  });
}

void test('HBase down (gateway up) → not ready within the deadline; back → ready, nothing lost', async (t) => {
  // A request deadline far longer than the outage deadline: readiness must not wait for failures.
  const h = await createHarness(t, { prefix: 'hdown', sets: ['hbase.requestDeadlineMs=60000', 'hbase.outageDeadlineMs=5000'] });
  const events = makeEvents(2000, { idPrefix: 'hd' });
  const group = uniqueName('it-hdown-g');
  const svc = await startInProcess(h, [`kafka.groupId=${group}`, 'http.port=0']);
  await produceEvents(h, events.slice(0, 1000));
  await waitForEvents(svc, 1000);
  await waitForCommittedAtEnd(h, group);
  assert.equal(await readyzStatus(svc.httpPort), 200);
  const before = (await offsets(h, group)).committed;

  const hbase = await killStackProcess(h.defer, 'hbase');
  const during = events.slice(1000);
  await produceEvents(h, during);
  await waitFor(
    '/readyz 503 while HBase is down',
    50_000,
    async () => {
      assert.deepEqual((await offsets(h, group)).committed, before, 'nothing committed while HBase is down');
      return (await readyzStatus(svc.httpPort)) === 503;
    },
    250,
  );
  assert.match(svc.lifecycle.reason, /HBase/);

  await hbase.restore();
  await waitForCommittedAtEnd(h, group, 300_000);
  await waitFor('/readyz 200 after HBase returned', 60_000, async () => (await readyzStatus(svc.httpPort)) === 200);
  const keys = await dataKeys(h);
  const { encodeDataKey } = await import('../../../src/keys/index.ts');
  const missing = during.filter((e) => !keys.has(encodeDataKey(e, 4).toString('hex')));
  assert.deepEqual(missing, [], 'every event produced during the outage was written after it');
});
