// kill -9 of the instance that promotes a hot id, the moment its epoch is visible in the registry
// (units still in flight), against the real stack: a restarted instance replays what was not
// committed, finds the epoch (it adds none of its own), and every event is in the one row its epoch
// gives; latest of the spread id reads exactly its events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { createReadMetrics } from '../../../src/metrics/read-metrics.ts';
import { collectPage, createQueries } from '../../../src/reads-v1/queries.ts';
import type { EventItem } from '../../../src/reads-v1/types.ts';
import { tablesOf } from '../../../src/service/keyspace.ts';
import { uniqueName } from '../../support/env.ts';
import { createHarness, freePort, readyzStatus, startChild, waitFor, waitForCommittedAtEnd } from '../../support/service-harness.ts';
import { followPages } from '../reads-v1/fixture.ts';
import { HOT, SPREAD_SETS, expectedDataKeys, expectedIndexKeys, expectedRowsOf, produceLive, registryNow, tableRows } from './helpers.ts';

void test('kill -9 as a promotion becomes visible: after a restart every event is in its one row and the epoch is intact', async (t) => {
  const h = await createHarness(t, { prefix: 'spk', partitions: 2, sets: [...SPREAD_SETS] });
  const group = uniqueName('it-spk');
  const cfg = h.config([`kafka.groupId=${group}`]);
  const ready = async (port: number): Promise<void> => {
    await waitFor(`service on ${port} ready`, 60_000, async () => (await readyzStatus(port).catch(() => 0)) === 200);
  };

  const first = startChild(h, [`kafka.groupId=${group}`], await freePort());
  await ready(first.port);
  const phase1 = await produceLive(h, 300, async (out) => {
    if (out.length > 6000) throw new Error(`no promotion after 6,000 events; service output:\n${first.output()}`);
    if ((await registryNow(h, cfg)).registry.entryOf(HOT) === undefined) return false;
    first.child.kill('SIGKILL');
    return true;
  });
  const exit = await first.exited;
  assert.equal(exit.signal, 'SIGKILL');
  const since = (await registryNow(h, cfg)).registry.entryOf(HOT)?.epochs[0]?.since ?? Number.NaN;
  assert.ok(Number.isFinite(since));
  // While no instance runs, the stream goes on past since.
  const phase2 = await produceLive(h, 300, () => Date.now() > since + 2000, phase1.length);

  const second = startChild(h, [`kafka.groupId=${group}`], await freePort());
  await ready(second.port);
  await waitForCommittedAtEnd(h, group, 120_000);
  const all = [...phase1, ...phase2];

  const { keyspace: ks, registry } = await registryNow(h, cfg);
  assert.deepEqual(registry.entryOf(HOT)?.epochs, [{ since, k: 4 }], 'the restarted instance found the epoch and added none');
  assert.deepEqual((await tableRows(h, h.names.data)).keys, expectedDataKeys(ks, all), 'data: row for row, no copy in another bucket');
  assert.deepEqual((await tableRows(h, h.names.index)).keys, expectedIndexKeys(ks, all), 'index: row for row');
  assert.ok(
    all.some((e) => e.id === HOT && e.ts >= since),
    'the hot id wrote into its new epoch',
  );

  const q = createQueries({
    cfg,
    hbase: h.rest,
    keyspace: ks,
    tables: tablesOf(cfg),
    entryFor: (id) => registry.fetch(id),
    metrics: createReadMetrics(new Registry()),
  });
  const latest = await followPages(async (cursor) => {
    const page = await collectPage(q.run(q.parse('latest', cursor === null ? { id: HOT, limit: '50' } : { id: HOT, limit: '50', cursor })));
    return { items: page.items as EventItem[], next: page.end.next };
  });
  assert.deepEqual(
    latest.items.map((e) => ({ ts: e.ts, metrics: { ...e.metrics } })),
    expectedRowsOf(all, HOT),
  );
  second.child.kill('SIGTERM');
  assert.equal((await second.exited).code, 0, second.output());
});
