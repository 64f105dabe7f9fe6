// The series store reads a spread id's rows in every bucket its epochs use, taking the epochs from the
// spread lookup it is handed for the read's end (SpreadRegistry.lookupFor): one lookup per read, no
// registry row per id; with the snapshot as held, its scans do not wait for that lookup.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildEventCells } from '../../../src/events/index.ts';
import { fixedLookup, NO_SPREAD, type SpreadLookup } from '../../../src/keys/index.ts';
import { putRowOf } from '../../../src/rollup/fold.ts';
import { SeriesStore } from '../../../src/series-store/series-store.ts';
import { FakeHBase } from '../../support/fake-hbase.ts';
import { testKeyspace } from '../../support/keyspace.ts';

const B = 8;
const T0 = Date.UTC(2026, 10, 1);
const HOT = { epochs: [{ since: T0 + 50_000, k: 8 }], fence: null };

async function setup(): Promise<{ store: FakeHBase; ts: number[] }> {
  const store = new FakeHBase();
  const keyspace = testKeyspace(B, 'binary', 'entry', fixedLookup({ hot: HOT }));
  const ts: number[] = [];
  for (let i = 0; i < 100; i++) {
    const t = T0 + i * 1000;
    ts.push(t);
    const cells = buildEventCells({ id: 'hot', ts: t, metric: 'temp', value: i, tags: {} });
    await store.put('d', [putRowOf({ key: keyspace.dataKey('hot', t), cells })]);
  }
  return { store, ts };
}

/** A store whose registry holds `held` (by default the fresh lookup itself) and answers lookupFor with `spread`, noting each range end asked. */
function storeOf(port: FakeHBase, spread: SpreadLookup | (() => Promise<SpreadLookup>), asked: number[], held?: SpreadLookup): SeriesStore {
  const snapshot = held ?? (typeof spread === 'function' ? NO_SPREAD : spread);
  return new SeriesStore(port, {
    keyspace: testKeyspace(B),
    data: { name: 'd', family: 'd' },
    rollup: { name: 'r', family: 'r' },
    meta: { name: 'm', family: 'm' },
    spread: {
      entryOf: (id) => snapshot.entryOf(id),
      spreadIds: () => snapshot.spreadIds(),
      lookupFor: (to) => {
        asked.push(to);
        return typeof spread === 'function' ? spread() : Promise.resolve(spread);
      },
    },
    deadlineMs: 10_000,
    idTagKey: 'id',
    blockFamily: null,
  });
}

const budget = { take: () => undefined };

void test('a spread id: every point, from every bucket of its epoch, with one lookup for the read', async () => {
  const { store, ts } = await setup();
  const buckets = new Set<number | undefined>();
  for await (const r of store.scan('d', {})) buckets.add(r.row[0]);
  assert.ok(buckets.size > 2, `the id's rows spread over ${buckets.size} buckets`);
  const asked: number[] = [];
  const got = await storeOf(store, fixedLookup({ hot: HOT }), asked).rawPointsOf(
    { ids: ['hot', 'cold'], metrics: ['temp'], from: T0, to: T0 + 100_000 },
    budget,
  );
  const points = [...(got.get('temp')?.get('hot')?.values() ?? [])][0];
  assert.deepEqual(points?.ts, ts);
  assert.deepEqual(asked, [T0 + 100_000], 'one lookup, for the range end');
  // the same read without the epoch misses the rows written under it: the lookup is what finds them
  const blind = await storeOf(store, NO_SPREAD, []).rawPointsOf({ ids: ['hot'], metrics: ['temp'], from: T0, to: T0 + 100_000 }, budget);
  const seen = [...(blind.get('temp')?.get('hot')?.values() ?? [])][0]?.ts.length ?? 0;
  assert.ok(seen < ts.length && seen >= 50, `without the epoch only the rows before its since (${seen})`);
});

void test('fromOf: each id read from its own start in one read, an id past the end not at all, the others from `from`', async () => {
  const { store, ts } = await setup();
  const keyspace = testKeyspace(B);
  for (let i = 0; i < 10; i++) {
    const cells = buildEventCells({ id: 'cold', ts: T0 + i * 1000, metric: 'temp', value: i, tags: {} });
    await store.put('d', [putRowOf({ key: keyspace.dataKey('cold', T0 + i * 1000), cells })]);
  }
  const got = await storeOf(store, fixedLookup({ hot: HOT }), []).rawPointsOf(
    {
      ids: ['hot', 'cold', 'none'],
      metrics: ['temp'],
      from: T0,
      to: T0 + 100_000,
      fromOf: new Map([
        ['hot', T0 + 60_000],
        ['none', T0 + 200_000],
      ]),
    },
    budget,
  );
  const tsOf = (id: string): number[] | undefined => [...(got.get('temp')?.get(id)?.values() ?? [])][0]?.ts;
  assert.deepEqual(
    tsOf('hot'),
    ts.filter((t) => t >= T0 + 60_000),
    'hot from its own start, every bucket of its epoch',
  );
  assert.equal(tsOf('cold')?.length, 10, 'an id without a start of its own: from `from`');
  assert.equal(tsOf('none'), undefined);
});

/** The port, with a promise settled when the first scan of the data table starts. */
function watched(port: FakeHBase): { port: FakeHBase; scanned: Promise<void> } {
  let seen: () => void = () => undefined;
  const scanned = new Promise<void>((resolve) => {
    seen = resolve;
  });
  const scan = port.scan.bind(port);
  port.scan = (table, opts) => {
    if (table === 'd') seen();
    return scan(table, opts);
  };
  return { port, scanned };
}

void test('with the snapshot as held: the scans go out before the fresh lookup is back, and an id whose epochs it changed is read again under it', async () => {
  const { store, ts } = await setup();
  // held: no epoch for hot (promoted since the snapshot's read); the fresh lookup has it, and comes
  // back only once a scan has started, so a read that waited for it first would never finish
  const { port, scanned } = watched(store);
  const fresh = async (): Promise<SpreadLookup> => {
    await scanned;
    return fixedLookup({ hot: HOT });
  };
  const got = await storeOf(port, fresh, [], NO_SPREAD).rawPointsOf({ ids: ['hot', 'cold'], metrics: ['temp'], from: T0, to: T0 + 100_000 }, budget);
  assert.deepEqual([...(got.get('temp')?.get('hot')?.values() ?? [])][0]?.ts, ts, 'every point once, in order: the id read again under the epoch');
  assert.equal(got.get('temp')?.has('cold'), false);
});

void test('with the snapshot as held and the fresh lookup the same: one read of each id', async () => {
  const { store, ts } = await setup();
  let dataScans = 0;
  const scan = store.scan.bind(store);
  store.scan = (table, opts) => {
    if (table === 'd') dataScans++;
    return scan(table, opts);
  };
  const lookup = fixedLookup({ hot: HOT });
  const got = await storeOf(store, lookup, [], fixedLookup({ hot: HOT })).rawPointsOf({ ids: ['hot'], metrics: ['temp'], from: T0, to: T0 + 100_000 }, budget);
  assert.deepEqual([...(got.get('temp')?.get('hot')?.values() ?? [])][0]?.ts, ts);
  const once = dataScans;
  assert.ok(once > 0);
  // the same read with a held snapshot lacking the epoch scans again
  dataScans = 0;
  await storeOf(store, lookup, [], NO_SPREAD).rawPointsOf({ ids: ['hot'], metrics: ['temp'], from: T0, to: T0 + 100_000 }, budget);
  assert.ok(dataScans > once, `read again: ${dataScans} scans against ${once}`);
});
