import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyError } from '../../../src/errors.ts';
import { classifyHttpStatus, HBaseError } from '../../../src/hbase/errors.ts';
import { OutagePolicy } from '../../../src/ingest/outage-policy.ts';
import { OutageWatch } from '../../../src/ingest/outage-watch.ts';
import { unitPlanner } from '../../../src/ingest/unit-planner.ts';
import { ingestRetriable } from '../../../src/service/parts.ts';
import { Keyspace, encodeEntry, saltOf, spreadOffset } from '../../../src/keys/index.ts';
import { SpreadRegistry } from '../../../src/spread/registry.ts';
import { ENTRY_QUALIFIER, entryRow } from '../../../src/spread/rows.ts';
import { RegistryConflictError, RegistryStore } from '../../../src/spread/store.ts';
import { spreadTiming } from '../../../src/spread/timing.ts';
import { FakeHBase } from '../../support/fake-hbase.ts';
import { SETTINGS, record } from './fixtures.ts';

const NOW = 1_732_262_400_000;
const TIMING = spreadTiming({ leadMs: 60_000, refreshMs: 1000, clockToleranceMs: 1000 });

function setup(
  port = new FakeHBase(),
  policy?: OutagePolicy,
): { store: RegistryStore; reg: SpreadRegistry; plan: ReturnType<typeof unitPlanner>; readies: { n: number } } {
  const store = new RegistryStore(port, { table: 'm', family: 'd', buckets: 4 });
  const reg = new SpreadRegistry({ store, timing: TIMING, buckets: 4, maxK: 4, now: () => NOW });
  const keyspace = new Keyspace(SETTINGS.keyspace.layout, reg);
  const readies = { n: 0 };
  const gate = {
    ready: async () => {
      readies.n++;
      await reg.ready();
    },
    fenceHorizon: () => reg.fenceHorizon(),
    raiseFences: (m: ReadonlyMap<string, number>) => reg.raiseFences(m),
  };
  return { store, reg, plan: unitPlanner(() => ({ ...SETTINGS, keyspace }), gate, policy), readies };
}

const ev = (id: string, ts: number): Record<string, unknown> => ({ id, ts, metric: 'temp', value: 1 });

void test('events within the fence horizon are planned from the snapshot, without touching the registry', async () => {
  const { plan, store, readies } = setup();
  const p = await plan([record(0, ev('a', NOW)), record(1, ev('a', NOW + TIMING.fenceAheadMs - 1))]);
  assert.equal(p.events.length, 2);
  assert.equal(p.fences.size, 0);
  assert.equal(readies.n, 1, 'the snapshot was made fresh first');
  assert.equal(await store.entry('a'), undefined, 'no fence written');
});

void test("a far-future event raises its id's fence before it is planned; the next one within the fence does not", async () => {
  const { plan, store } = setup();
  const far = NOW + 10 * 86_400_000;
  const p = await plan([record(0, ev('clocky', far))]);
  assert.equal(p.fences.size, 0, 'the returned plan needs no more fences');
  assert.equal(p.events[0]?.data.row.key[0], saltOf('clocky', 4), 'no epoch: the plain key');
  assert.equal((await store.entry('clocky'))?.entry.fence, far + TIMING.fenceAheadMs);
  const before = (await store.entry('clocky'))?.raw;
  await plan([record(1, ev('clocky', far + 1000))]);
  assert.deepEqual((await store.entry('clocky'))?.raw, before, 'covered by the fence: nothing written');
});

void test('visible before used: a far-future event of an id another instance just promoted lands in the new epoch, though this snapshot lacked it', async () => {
  const { plan, store, reg } = setup();
  await reg.refresh(); // this instance's snapshot: no entry for "hot"
  const since = NOW + TIMING.leadMs;
  await store.swap('hot', null, { epochs: [{ since, k: 4 }], fence: null }); // the other instance's promotion
  assert.equal(reg.entryOf('hot'), undefined, 'the snapshot does not know it yet');
  // ts ≥ since is beyond the fence horizon (since = now + L > now + A), so the planner must ask the registry.
  let ts = since + 7;
  while (spreadOffset(ts, 4) === 0) ts++;
  const p = await plan([record(0, ev('hot', ts))]);
  assert.equal(p.events[0]?.data.row.key[0], (saltOf('hot', 4) + spreadOffset(ts, 4)) % 4, "planned in its epoch's bucket, not the plain one");
  assert.deepEqual((await store.entry('hot'))?.entry, { epochs: [{ since, k: 4 }], fence: ts + TIMING.fenceAheadMs });
});

/** The gateway's 503 of issue 31, as the REST client raises it. */
function gateway503(): HBaseError {
  const body = 'Unavailable\r\norg.apache.hadoop.hbase.DoNotRetryIOException: Zookeeper LIST could not be completed in 10000 ms\r\n';
  return new HBaseError({
    ...classifyHttpStatus(503, body),
    status: 503,
    body,
    table: 'm',
    op: 'checkAndPut',
    message: "HBase checkAndPut on table 'm' failed: HTTP 503 HBASE_UNAVAILABLE",
  });
}

/** An outage policy over a watch with a hand-driven clock; `heard` lists what the watch declared. */
function watchedPolicy(deadlineMs: number): { policy: OutagePolicy; watch: OutageWatch; clock: { ms: number }; heard: string[] } {
  const clock = { ms: 0 };
  const watch = new OutageWatch({ deadlineMs, now: () => clock.ms });
  const heard: string[] = [];
  watch.listen({ onFailing: () => heard.push('failing'), onOutage: () => heard.push('outage'), onRecovered: () => heard.push('recovered') });
  const policy = new OutagePolicy({
    retry: { baseMs: 1, maxMs: 2 },
    isRetriable: ingestRetriable,
    isAnswer: (e) => e instanceof HBaseError && e.code === 'HBASE_BAD_REQUEST',
    watch,
  });
  return { policy, watch, clock, heard };
}

void test('a fence raise during an HBase outage (a 503 relaying DoNotRetryIOException) is retried through the outage policy: the watch declares the outage, the plan lands when HBase answers', async () => {
  const { policy, watch, clock, heard } = watchedPolicy(250);
  const port = new FakeHBase();
  let failures = 0;
  const checkAndPut = port.checkAndPut.bind(port);
  port.checkAndPut = (...args) => {
    if (failures < 4) {
      failures++;
      clock.ms += 100; // each refused try takes a while; the oldest pending call ages
      watch.check();
      return Promise.reject(gateway503());
    }
    return checkAndPut(...args);
  };
  const { plan, store } = setup(port, policy);
  const far = NOW + 10 * 86_400_000;
  const p = await plan([record(0, ev('clocky', far))]);
  assert.equal(failures, 4);
  assert.equal(p.events.length, 1, 'planned once HBase answered');
  assert.equal((await store.entry('clocky'))?.entry.fence, far + TIMING.fenceAheadMs, 'the fence was raised');
  assert.deepEqual(heard, ['failing', 'outage', 'recovered'], 'the watch saw the outage (consumption pauses, /readyz 503) and the recovery');
  assert.equal(watch.unacknowledgedMs(), 0, 'nothing left pending');
});

void test('a permanent error of a fence raise still leaves the planner (a missing meta table is not an outage)', async () => {
  const { policy } = watchedPolicy(250);
  const port = new FakeHBase();
  port.checkAndPut = () => Promise.reject(new HBaseError({ code: 'HBASE_TABLE_NOT_FOUND', status: 404, message: 'no such table' }));
  const { plan } = setup(port, policy);
  await assert.rejects(plan([record(0, ev('clocky', NOW + 10 * 86_400_000))]), (e: unknown) => e instanceof HBaseError && e.code === 'HBASE_TABLE_NOT_FOUND');
});

void test('a stale snapshot that cannot be refreshed keeps the unit waiting as a pending call: the watch declares the outage, the plan lands once the registry answers', async () => {
  const { policy, watch, clock, heard } = watchedPolicy(250);
  const port = new FakeHBase();
  const { plan, reg } = setup(port, policy);
  port.fail({ error: gateway503() });
  const pending = plan([record(0, ev('a', NOW))]); // its wait for the snapshot is pending from here
  clock.ms += 1000;
  watch.check();
  const p = await pending;
  assert.equal(p.events.length, 1);
  assert.ok(Number.isFinite(reg.ageMs), 'the snapshot was read');
  assert.deepEqual(
    heard.filter((h) => h !== 'failing'),
    ['outage', 'recovered'],
  );
});

void test('a lost check-and-put race on a fence (RegistryConflictError after every attempt) is retried by the ingest path, not fatal', async () => {
  const { policy, heard } = watchedPolicy(250);
  const port = new FakeHBase();
  const { plan, store } = setup(port, policy);
  const far = NOW + 10 * 86_400_000;
  // Another writer changes the entry between each read and check-and-put, for more than one update's attempts.
  let raced = 0;
  port.beforeCheck = () => {
    if (raced >= 12) return;
    raced++;
    port.seed('m', entryRow('clocky'), [{ family: 'd', qualifier: ENTRY_QUALIFIER, value: encodeEntry({ epochs: [], fence: NOW + raced }) }]);
  };
  const p = await plan([record(0, ev('clocky', far))]);
  assert.equal(raced, 12);
  assert.equal(p.events.length, 1, 'planned once the race was won');
  assert.equal((await store.entry('clocky'))?.entry.fence, far + TIMING.fenceAheadMs);
  assert.ok(!heard.includes('outage'), 'a lost race is HBase answering, not an outage');
  const c = classifyError(new RegistryConflictError('x'));
  assert.deepEqual({ retriable: c.retriable, fatal: c.fatal, code: c.code }, { retriable: true, fatal: false, code: 'REGISTRY_CONFLICT' });
});
