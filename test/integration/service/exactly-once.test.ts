// The in-process service writes every valid event exactly once (one metric cell per event, one index
// row per event with the indexed tag), commits to the end of the topic, and a full replay of the
// topic by a fresh consumer group leaves the tables unchanged (idempotent writes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { uniqueName } from '../../support/env.ts';
import {
  countDataCells,
  countIndexed,
  countRows,
  createHarness,
  eventsProcessed,
  makeEvents,
  offsets,
  produceEvents,
  startInProcess,
  waitForCommittedAtEnd,
  waitForEvents,
} from '../../support/service-harness.ts';

void test('N events → exactly N cells and index rows, offsets at the end; a replay changes nothing', async (t) => {
  const h = await createHarness(t, { prefix: 'xo' });
  const events = makeEvents(3000);
  const expectedIndex = countIndexed(events);
  await produceEvents(h, events);

  const group1 = uniqueName('it-xo-g1');
  const svc = await startInProcess(h, [`kafka.groupId=${group1}`, 'http.port=0']);
  await waitForEvents(svc, events.length);
  await waitForCommittedAtEnd(h, group1);
  assert.deepEqual(await eventsProcessed(svc), { written: events.length, dlq: 0 });
  await svc.stop('first pass done');
  await svc.finished;

  assert.equal(await countDataCells(h), events.length, 'one metric cell per event');
  assert.equal(await countRows(h, h.names.index), expectedIndex, 'one index row per event with a site tag');
  const o1 = await offsets(h, group1);
  assert.deepEqual(o1.committed, o1.end, 'committed offsets = end offsets');
  assert.equal(
    Object.values(o1.end).reduce((s, x) => s + x, 0n),
    BigInt(events.length),
  );

  // Replay the whole topic with a new group: same data again → tables unchanged.
  const group2 = uniqueName('it-xo-g2');
  const svc2 = await startInProcess(h, [`kafka.groupId=${group2}`, 'http.port=0']);
  await waitForEvents(svc2, events.length);
  await waitForCommittedAtEnd(h, group2);
  assert.deepEqual(await eventsProcessed(svc2), { written: events.length, dlq: 0 });
  await svc2.stop('replay done');
  await svc2.finished;

  assert.equal(await countDataCells(h), events.length, 'replay added no cells');
  assert.equal(await countRows(h, h.names.index), expectedIndex, 'replay added no index rows');
});
