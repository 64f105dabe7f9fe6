// HBase itself killed (-9; master, region server and ZooKeeper in one JVM) with the REST gateway left
// running, twice, under one service process (issue 31):
//   1. while a spread id's epoch is long under way and far-future events arrive, so the planner must
//      raise fences (check-and-puts on the meta table) during the outage;
//   2. seconds after the promoter decided a promotion, before its epoch starts, with far-future events
//      of the promoted id during the outage and live ones crossing into the epoch after it.
// Each time the service must pause and turn not ready, survive (before the fix the fence raise ended
// it, and the process exited 0), turn ready again once HBase is back, and in the end hold every event
// in exactly the one row its epoch gives, data and index alike, with no extra cell; a SIGTERM then
// drains it with exit 0.
// The local stack's HBase runs on file:// without a durable WAL, so a kill -9 may lose writes HBase had
// acknowledged: before each kill the service has committed everything produced and the tables are
// flushed, so whatever is missing afterwards is the service's fault, not the stack's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { uniqueName } from '../../support/env.ts';
import {
  createHarness,
  freePort,
  produceEvents,
  readyzStatus,
  startChild,
  waitFor,
  waitForCommittedAtEnd,
  type ChildService,
  type Harness,
  type TestEvent,
} from '../../support/service-harness.ts';
import { killStackProcess } from '../../support/stack-control.ts';
import { HOT, SPREAD_SETS, expectedDataKeys, expectedIndexKeys, produceLive, registryNow, tableRows } from './helpers.ts';

const DAY = 86_400_000;
const SPREAD = 'spread-a';

/** `n` events of 20 cold ids and the spread id, evenly (none hot), ts just behind now. */
function evenEvents(n: number, from: number): TestEvent[] {
  const now = Date.now();
  return Array.from({ length: n }, (_, k) => {
    const i = from + k;
    return {
      id: i % 21 === 0 ? SPREAD : `cold-${i % 20}`,
      ts: now - (n - k) * 3,
      metric: i % 2 === 0 ? 'temp' : 'hum',
      value: i / 8,
      tags: { site: `s${i % 3}` },
    };
  });
}

/** Events a day or two ahead of the clock: each needs its id's fence raised before it is planned. */
function farFuture(ids: readonly string[], n: number, from: number): TestEvent[] {
  const base = Date.now() + DAY + from * 1000;
  return Array.from({ length: n }, (_, k) => ({ id: ids[k % ids.length] as string, ts: base + k * 7919, metric: 'temp', value: k, tags: { site: 'far' } }));
}

/** Every cell the events call for: one per (id, ts, metric), plus the tags cell of each (id, ts). */
function expectedCells(events: readonly TestEvent[]): number {
  return new Set(events.map((e) => `${e.id}\u0000${e.ts}\u0000${e.metric}`)).size + new Set(events.map((e) => `${e.id}\u0000${e.ts}`)).size;
}

async function flushTables(h: Harness): Promise<void> {
  for (const t of [h.names.data, h.names.index, h.names.rollup, h.names.meta]) await h.tableAdmin.compact(t);
}

/** Counts log lines of the child as they come (its output() keeps only the tail). */
function logCounter(svc: ChildService, patterns: Readonly<Record<string, RegExp>>): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(Object.keys(patterns).map((k) => [k, 0]));
  let partial = '';
  const scan = (b: Buffer): void => {
    const lines = (partial + b.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) for (const [k, re] of Object.entries(patterns)) if (re.test(line)) counts[k] = (counts[k] ?? 0) + 1;
  };
  svc.child.stdout?.on('data', scan);
  svc.child.stderr?.on('data', scan);
  return counts;
}

function alive(svc: ChildService): boolean {
  return svc.child.exitCode === null && svc.child.signalCode === null;
}

/** Kill HBase, let `during` arrive, see the service pause and stay up, bring HBase back, see it ready and caught up. */
async function outage(h: Harness, svc: ChildService, group: string, during: () => Promise<TestEvent[]>): Promise<TestEvent[]> {
  await waitForCommittedAtEnd(h, group, 120_000);
  await flushTables(h);
  const hbase = await killStackProcess(h.defer, 'hbase');
  const produced = await during();
  await waitFor('/readyz 503 while HBase is down', 90_000, async () => (await readyzStatus(svc.port).catch(() => 0)) === 503, 250);
  assert.ok(alive(svc), `the service is up during the outage:\n${svc.output()}`);
  await hbase.restore();
  await waitFor('/readyz 200 after HBase returned', 240_000, async () => (await readyzStatus(svc.port).catch(() => 0)) === 200, 500);
  await waitForCommittedAtEnd(h, group, 240_000);
  assert.ok(alive(svc), `the service survived the outage:\n${svc.output()}`);
  return produced;
}

void test('HBase killed twice under a running service (spread ids, far-future events, a fresh promotion): it survives, turns ready again, and every event is in its one row', async (t) => {
  const h = await createHarness(t, { prefix: 'spkh', partitions: 2, sets: [...SPREAD_SETS, 'keys.spread.leadMs=15000', 'hbase.outageDeadlineMs=4000'] });
  const group = uniqueName('it-spkh');
  const cfg = h.config([`kafka.groupId=${group}`]);
  const all: TestEvent[] = [];

  // A spread id by hand before the service starts (as `tsingest spread set` does); its epoch begins 15 s on.
  const sinceA = (await (await registryNow(h, cfg)).registry.promote(SPREAD, 4, 'manual'))?.since ?? Number.NaN;
  assert.ok(Number.isFinite(sinceA));
  const svc = startChild(h, [`kafka.groupId=${group}`], await freePort());
  const seen = logCounter(svc, {
    fatal: /"level":"fatal"/,
    paused: /pausing consumption until it returns/,
    resumed: /HBase answers again: resuming consumption/,
  });
  await waitFor('service ready', 90_000, async () => (await readyzStatus(svc.port).catch(() => 0)) === 200);
  await waitFor("the spread id's epoch under way", 30_000, () => Date.now() > sinceA + 1000);
  const before = evenEvents(840, 0);
  await produceEvents(h, before);
  all.push(...before);

  // 1. Fences raised during the outage, for the spread id, a cold id and an id never seen.
  all.push(
    ...(await outage(h, svc, group, async () => {
      const far = farFuture([SPREAD, 'cold-3', 'far-new'], 60, 0);
      const live = evenEvents(420, 1000);
      await produceEvents(h, [...far, ...live]);
      return [...far, ...live];
    })),
  );

  // 2. A promotion the promoter decides on the live stream, and HBase killed seconds later.
  const hotStream = await produceLive(
    h,
    300,
    async (out) => {
      if (out.length > 8000) throw new Error(`no promotion after 8,000 events; service output:\n${svc.output()}`);
      return (await registryNow(h, cfg)).registry.entryOf(HOT) !== undefined;
    },
    0,
  );
  all.push(...hotStream);
  all.push(
    ...(await outage(h, svc, group, async () => {
      const far = farFuture([HOT], 30, 100);
      await produceEvents(h, far);
      return far;
    })),
  );
  const sinceHot = (await registryNow(h, cfg)).registry.entryOf(HOT)?.epochs[0]?.since ?? Number.NaN;
  assert.ok(Number.isFinite(sinceHot), 'the promotion decided before the kill is in the registry');
  // The live stream goes on into the promoted id's epoch.
  all.push(...(await produceLive(h, 300, (out) => out.length >= 300 && Date.now() > sinceHot + 2000, 10_000)));
  await waitForCommittedAtEnd(h, group, 120_000);

  const { keyspace: ks, registry } = await registryNow(h, cfg);
  assert.equal(registry.entryOf(HOT)?.epochs.length, 1, 'one epoch for the hot id: the outage added none');
  assert.deepEqual(registry.entryOf(SPREAD)?.epochs, [{ since: sinceA, k: 4 }]);
  for (const id of [SPREAD, 'cold-3', 'far-new', HOT]) {
    const last = Math.max(...all.filter((e) => e.id === id).map((e) => e.ts));
    assert.ok((registry.entryOf(id)?.fence ?? -1) >= last, `${id}'s fence covers its farthest event`);
  }
  assert.ok(
    all.some((e) => e.id === HOT && e.ts >= sinceHot),
    'the hot id wrote into its new epoch',
  );
  const data = await tableRows(h, h.names.data);
  assert.deepEqual(data.keys, expectedDataKeys(ks, all), 'data: row for row, none missing, no copy in another bucket');
  assert.equal(data.cells, expectedCells(all), 'data: no extra cell');
  assert.deepEqual((await tableRows(h, h.names.index)).keys, expectedIndexKeys(ks, all), 'index: row for row');

  assert.equal(seen['fatal'], 0, 'nothing fatal was logged');
  assert.ok((seen['paused'] ?? 0) >= 2 && (seen['resumed'] ?? 0) >= 2, `paused and resumed once per outage: ${JSON.stringify(seen)}`);
  t.diagnostic(`log lines: ${JSON.stringify(seen)}; events ${all.length}`);
  svc.child.kill('SIGTERM');
  assert.equal((await svc.exited).code, 0, svc.output());
});
