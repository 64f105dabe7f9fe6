// HBase REST gateway outage mid-stream: the service turns not-ready after the outage deadline, commits
// nothing it could not write, and once the gateway is back writes every event exactly once, commits
// to the end and is ready again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { uniqueName } from '../../support/env.ts';
import {
  countDataCells,
  countIndexed,
  countRows,
  createHarness,
  makeEvents,
  offsets,
  produceEvents,
  readyzStatus,
  startInProcess,
  waitFor,
  waitForCommittedAtEnd,
  waitForEvents,
} from '../../support/service-harness.ts';
import { startRestGateway, stopRestGateway } from '../../support/stack-control.ts';

void test('REST outage: not ready after the deadline, no commits past written data, full recovery', async (t) => {
  const h = await createHarness(t, { prefix: 'outage' });
  const events = makeEvents(5000);
  const before = events.slice(0, 2000);
  const during = events.slice(2000);
  const group = uniqueName('it-outage-g');
  const svc = await startInProcess(h, [`kafka.groupId=${group}`, 'http.port=0']);

  await produceEvents(h, before);
  await waitForEvents(svc, before.length);
  await waitForCommittedAtEnd(h, group);
  assert.equal(await readyzStatus(svc.httpPort), 200);
  const committedBefore = (await offsets(h, group)).committed;

  // Registered after the table drops, so it runs before them (LIFO): the gateway is back for cleanup.
  let restDown = false;
  h.defer(async () => {
    if (restDown) await startRestGateway();
  });
  stopRestGateway();
  restDown = true;

  await produceEvents(h, during);
  await waitFor(
    '/readyz to answer 503 after the outage deadline',
    60_000,
    async () => {
      assert.deepEqual((await offsets(h, group)).committed, committedBefore, 'nothing committed while HBase is unreachable');
      return (await readyzStatus(svc.httpPort)) === 503;
    },
    250,
  );
  // Still down a little longer: still nothing committed past what was written.
  await new Promise((r) => setTimeout(r, 3000));
  assert.deepEqual((await offsets(h, group)).committed, committedBefore, 'nothing committed while HBase is unreachable');

  await startRestGateway();
  restDown = false;
  await waitForCommittedAtEnd(h, group, 180_000);
  await waitFor('/readyz to answer 200 again', 60_000, async () => (await readyzStatus(svc.httpPort)) === 200);

  assert.equal(await countDataCells(h), events.length, 'every event exactly once');
  assert.equal(await countRows(h, h.names.index), countIndexed(events));
  const o = await offsets(h, group);
  assert.deepEqual(o.committed, o.end);
});
