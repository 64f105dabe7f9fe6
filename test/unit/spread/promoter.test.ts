import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Promoter, type LoadSource } from '../../../src/spread/promoter.ts';
import { SpreadRegistry } from '../../../src/spread/registry.ts';
import { RegistryStore } from '../../../src/spread/store.ts';
import { spreadTiming } from '../../../src/spread/timing.ts';
import { FakeHBase } from '../../support/fake-hbase.ts';

const TIMING = spreadTiming({ leadMs: 60_000, refreshMs: 1000, clockToleranceMs: 1000 });
const POLICY = { minShare: 0.1, minEvents: 1000, kFactor: 64, buckets: 16, maxK: 16 };
const NOW = 5_000_000;

function instance(port: FakeHBase, name: string, load: { total: number; top: [string, number][] }): { promoter: Promoter; registry: SpreadRegistry } {
  const store = new RegistryStore(port, { table: 'm', family: 'd', buckets: 16 });
  const registry = new SpreadRegistry({ store, timing: TIMING, buckets: 16, maxK: 16, now: () => NOW });
  const hotIds: LoadSource = { load: () => ({ windowMs: 60_000, ...load }) };
  return { promoter: new Promoter({ instance: name, registry, store, hotIds, policy: POLICY, everyMs: 1000, staleMs: 4000, now: () => NOW }), registry };
}

void test('shares are judged over all instances: an id hot on one instance only is not promoted', async () => {
  // Instance a consumes the partition of "dev": 40 % of its writes. On its own view it would be spread.
  const alone = instance(new FakeHBase(), 'a', { total: 1000, top: [['dev', 400]] });
  assert.deepEqual(
    (await alone.promoter.round()).promoted.map((p) => p.id),
    ['dev'],
    "a's view alone",
  );
  // With b's report in the registry, "dev" is 4 % of all writes and "hot" 27 %.
  const port = new FakeHBase();
  const a = instance(port, 'a', { total: 1000, top: [['dev', 400]] });
  const b = instance(port, 'b', { total: 9000, top: [['hot', 2700]] });
  await b.promoter.round();
  const r = await a.promoter.round();
  assert.equal(r.instances, 2);
  assert.equal(a.registry.entryOf('dev'), undefined, '"dev" is not spread');
  const entries = await new RegistryStore(port, { table: 'm', family: 'd', buckets: 16 }).entries();
  assert.deepEqual(entries.get('hot')?.entry.epochs, [{ since: NOW + 60_000, k: 16 }]);
  assert.deepEqual([...entries.keys()], ['hot']);
});

void test('two instances deciding the same promotion: one epoch, applied once', async () => {
  const port = new FakeHBase();
  const a = instance(port, 'a', { total: 5000, top: [['hot', 2000]] });
  const b = instance(port, 'b', { total: 5000, top: [['hot', 2000]] });
  await a.promoter.round(); // publishes; cluster = a only (5,000 events, 40 %): promotes
  const [ra, rb] = await Promise.all([a.promoter.round(), b.promoter.round()]);
  const store = new RegistryStore(port, { table: 'm', family: 'd', buckets: 16 });
  assert.deepEqual(
    (await store.entry('hot'))?.entry.epochs.map((e) => e.k),
    [16],
    'one epoch, K sized to 40 % (capped at B)',
  );
  assert.equal(ra.promoted.length + rb.promoted.length, 0, 'the second round found it done');
});

void test("too few events: the round is skipped; a stopped instance's report ages out and stop() deletes its own", async () => {
  const port = new FakeHBase();
  const store = new RegistryStore(port, { table: 'm', family: 'd', buckets: 16 });
  const a = instance(port, 'a', { total: 500, top: [['hot', 400]] });
  assert.equal((await a.promoter.round()).outcome, 'skipped');
  await store.putLoad({ instance: 'gone', at: NOW - 5000, windowMs: 60_000, total: 100_000, top: [['x', 90_000]] });
  const r = await a.promoter.round();
  assert.deepEqual([r.outcome, r.instances], ['skipped', 1], 'the stale report does not count');
  await a.promoter.stop();
  assert.deepEqual(
    (await store.loads()).map((l) => l.instance),
    ['gone'],
  );
  port.fail({ error: new Error('gateway down') });
  assert.equal((await instance(port, 'c', { total: 1, top: [] }).promoter.round()).outcome, 'error');
});
