import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unitPlanner } from '../../../src/ingest/unit-planner.ts';
import { Keyspace, saltOf, spreadOffset } from '../../../src/keys/index.ts';
import { SpreadRegistry } from '../../../src/spread/registry.ts';
import { RegistryStore } from '../../../src/spread/store.ts';
import { spreadTiming } from '../../../src/spread/timing.ts';
import { FakePort } from '../spread/fake-port.ts';
import { SETTINGS, record } from './fixtures.ts';

const NOW = 1_732_262_400_000;
const TIMING = spreadTiming({ leadMs: 60_000, refreshMs: 1000, clockToleranceMs: 1000 });

function setup(): { store: RegistryStore; reg: SpreadRegistry; plan: ReturnType<typeof unitPlanner>; readies: { n: number } } {
  const port = new FakePort();
  const store = new RegistryStore(port, { table: 'm', family: 'd', buckets: 4 });
  const reg = new SpreadRegistry({ store, timing: TIMING, buckets: 4, maxK: 4, now: () => NOW });
  const keyspace = new Keyspace(SETTINGS.keyspace.layout, reg);
  const readies = { n: 0 };
  const gate = { ready: async () => { readies.n++; await reg.ready(); }, fenceHorizon: () => reg.fenceHorizon(), raiseFences: (m: ReadonlyMap<string, number>) => reg.raiseFences(m) };
  return { store, reg, plan: unitPlanner(() => ({ ...SETTINGS, keyspace }), gate), readies };
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

void test('a far-future event raises its id\'s fence before it is planned; the next one within the fence does not', async () => {
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
  assert.equal(p.events[0]?.data.row.key[0], (saltOf('hot', 4) + spreadOffset(ts, 4)) % 4, 'planned in its epoch\'s bucket, not the plain one');
  assert.deepEqual((await store.entry('hot'))?.entry, { epochs: [{ since, k: 4 }], fence: ts + TIMING.fenceAheadMs });
});
