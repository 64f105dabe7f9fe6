// kill -9 of the service process while it writes loses nothing and duplicates nothing: the restarted
// process replays from the last committed offsets (idempotent writes) and commits to the end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CatalogStore } from '../../../src/catalog/store.ts';
import { uniqueName } from '../../support/env.ts';
import {
  committedAtEnd,
  countDataCells,
  countIndexed,
  countRows,
  createHarness,
  freePort,
  makeEvents,
  offsets,
  produceEvents,
  retryingRest,
  scrapeEvents,
  startChild,
  waitFor,
  waitForCommittedAtEnd,
} from '../../support/service-harness.ts';

void test('SIGKILL mid-stream, restart → every event exactly once, offsets at the end', async (t) => {
  const h = await createHarness(t, { prefix: 'crash' });
  const events = makeEvents(20_000);
  const group = uniqueName('it-crash-g');
  const extra = [`kafka.groupId=${group}`];

  const first = startChild(h, extra, await freePort());
  // Produce while the service runs, so it is still busy when it is killed.
  const producing = (async () => {
    for (let i = 0; i < events.length; i += 1000) await produceEvents(h, events.slice(i, i + 1000));
  })();
  producing.catch(() => undefined);
  await waitFor(
    'the first process to write 3000 events',
    120_000,
    async () => {
      if (first.child.exitCode !== null) throw new Error(`service exited early (${first.child.exitCode}):\n${first.output()}`);
      return ((await scrapeEvents(first.port)) ?? 0) >= 3000;
    },
    50,
  );
  first.child.kill('SIGKILL');
  const exit = await first.exited;
  assert.equal(exit.signal, 'SIGKILL');
  await producing;

  const atKill = await offsets(h, group);
  assert.ok(!committedAtEnd(atKill), 'work was left when the process died');

  const second = startChild(h, extra, await freePort());
  await waitForCommittedAtEnd(h, group, 180_000).catch((err: unknown) => {
    throw new Error(`${String(err)}\nservice output:\n${second.output()}`);
  });
  second.child.kill('SIGTERM');
  const exit2 = await second.exited;
  assert.equal(exit2.code, 0, `graceful exit after SIGTERM:\n${second.output()}`);

  assert.equal(await countDataCells(h), events.length, 'nothing lost, nothing duplicated');
  assert.equal(await countRows(h, h.names.index), countIndexed(events));
  const o = await offsets(h, group);
  assert.deepEqual(o.committed, o.end);
  assert.equal(
    Object.values(o.end).reduce((s, x) => s + x, 0n),
    BigInt(events.length),
  );
  // The series catalog is written before the offsets it covers are committed, as the index rows are:
  // after the kill and the replay it names exactly the series of the events.
  const key = (metric: string, id: string, tags: Readonly<Record<string, string>> | undefined): string =>
    JSON.stringify([metric, id, Object.entries(tags ?? {}).sort()]);
  const catalog = await retryingRest('read the catalog', () => new CatalogStore(h.rest, { table: h.names.meta }).read());
  assert.deepEqual(catalog.series.map((s) => key(s.metric, s.id, s.tags)).sort(), [...new Set(events.map((e) => key(e.metric, e.id, e.tags)))].sort());
});
