import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeEntry } from '../../../src/keys/index.ts';
import { SpreadRegistry, type SpreadObserver } from '../../../src/spread/registry.ts';
import { ENTRY_QUALIFIER, entryRow } from '../../../src/spread/rows.ts';
import { RegistryStore } from '../../../src/spread/store.ts';
import { spreadTiming } from '../../../src/spread/timing.ts';
import { FakeHBase } from '../../support/fake-hbase.ts';

const TIMING = spreadTiming({ leadMs: 60_000, refreshMs: 1000, clockToleranceMs: 1000 });

function setup(
  now = { t: 1_000_000 },
  mono = { t: 0 },
): { port: FakeHBase; store: RegistryStore; reg: SpreadRegistry; seen: string[]; now: { t: number }; mono: { t: number } } {
  const port = new FakeHBase();
  const store = new RegistryStore(port, { table: 'm', family: 'd', buckets: 16 });
  const seen: string[] = [];
  const observer: SpreadObserver = {
    refreshed: (ok, n) => seen.push(`refresh ${ok} ${n}`),
    promoted: (id, e, origin) => seen.push(`promote ${id} ${e.k} ${e.since} ${origin}`),
    fenced: (id, f) => seen.push(`fence ${id} ${f}`),
  };
  const reg = new SpreadRegistry({ store, timing: TIMING, buckets: 16, maxK: 16, now: () => now.t, monotonic: () => mono.t, observer });
  return { port, store, reg, seen, now, mono };
}

void test('promote: an epoch L ahead, written by check-and-put; K never shrinks; the snapshot sees it at once', async () => {
  const { reg, store, seen } = setup();
  assert.deepEqual(await reg.promote('hot', 4, 'auto'), { since: 1_060_000, k: 4 });
  assert.deepEqual((await store.entry('hot'))?.entry, { epochs: [{ since: 1_060_000, k: 4 }], fence: null });
  assert.deepEqual(reg.entryOf('hot'), { epochs: [{ since: 1_060_000, k: 4 }], fence: null });
  assert.equal(await reg.promote('hot', 4, 'auto'), null, 'same K: no change');
  assert.equal(await reg.promote('hot', 2, 'manual'), null, 'smaller K: no change');
  assert.deepEqual(await reg.promote('hot', 16, 'manual'), { since: 1_060_001, k: 16 }, 'after the last epoch');
  assert.deepEqual(reg.spreadIds(), ['hot']);
  await assert.rejects(reg.promote('hot', 17, 'manual'), /K must be an integer in 2 … 16/);
  assert.deepEqual(seen, ['promote hot 4 1060000 auto', 'promote hot 16 1060001 manual']);
});

void test('two instances promoting one id at once: one check-and-put wins, the other re-reads and agrees', async () => {
  const a = setup();
  const b = new SpreadRegistry({ store: a.store, timing: TIMING, buckets: 16, maxK: 16, now: () => a.now.t + 5 });
  await Promise.all([a.reg.refresh(), b.refresh()]);
  // b's check-and-put runs after a's has changed the row: b's first attempt fails, it re-reads.
  let once = true;
  a.port.beforeCheck = () => {
    if (!once) return;
    once = false;
    a.port.beforeCheck = undefined;
    a.port.seed('m', entryRow('hot'), [{ family: 'd', qualifier: ENTRY_QUALIFIER, value: encodeEntry({ epochs: [{ since: 1_060_000, k: 8 }], fence: null }) }]);
  };
  assert.equal(await b.promote('hot', 8, 'auto'), null, 'b finds K 8 already there');
  assert.deepEqual(await a.store.entry('hot').then((s) => s?.entry), { epochs: [{ since: 1_060_000, k: 8 }], fence: null });
  assert.equal(await b.promote('hot', 16, 'auto').then((e) => e?.k), 16);
  assert.equal(a.port.count('checkAndPut'), 2, 'the lost race (then a re-read, no swap), then the promotion to 16');
});

void test('fences: raised once per far-future ts with slack, only upwards; a promotion starts after the fence', async () => {
  const { reg, store, seen } = setup();
  assert.equal(reg.fenceHorizon(), 1_000_000 + TIMING.fenceAheadMs);
  await reg.raiseFences(new Map([['far', 5_000_000]]));
  assert.equal(reg.entryOf('far')?.fence, 5_000_000 + TIMING.fenceAheadMs);
  await reg.raiseFences(new Map([['far', 5_000_100]]));
  assert.equal(seen.filter((s) => s.startsWith('fence')).length, 1, 'covered already: no second check-and-put');
  assert.deepEqual(reg.spreadIds(), [], 'a fence alone spreads nothing');
  assert.deepEqual(await reg.promote('far', 2, 'auto'), { since: 5_000_001 + TIMING.fenceAheadMs, k: 2 });
  assert.equal((await store.entry('far'))?.entry.fence, 5_000_000 + TIMING.fenceAheadMs);
});

void test('refresh takes what another instance wrote; a change of its own made during the read is kept', async () => {
  const { reg, port, store } = setup();
  await store.swap('x', null, { epochs: [{ since: 10, k: 2 }], fence: null });
  await reg.refresh();
  assert.deepEqual(reg.entryOf('x')?.epochs, [{ since: 10, k: 2 }]);
  // A promotion of this instance lands between the start and the end of a refresh that read the old row.
  const old = encodeEntry({ epochs: [{ since: 10, k: 2 }], fence: null });
  const scan = port.scan.bind(port);
  port.scan = async function* (table, opts) {
    const rows = [];
    for await (const r of scan(table, opts)) rows.push(r);
    await reg.promote('x', 4, 'auto');
    for (const r of rows) yield { ...r, cells: r.cells.map((c) => ({ ...c, value: old })) };
  };
  await reg.refresh();
  assert.deepEqual(
    reg.entryOf('x')?.epochs.map((e) => e.k),
    [2, 4],
    'the newer entry wins',
  );
});

void test('ready(): waits for a snapshot younger than 3 × refreshMs, retrying a failing read', async () => {
  const { reg, port, mono } = setup();
  port.fail({ error: new Error('gateway down') });
  await reg.ready();
  assert.ok(reg.ageMs < TIMING.validityMs);
  mono.t += TIMING.validityMs - 1;
  const scans = port.count('checkAndPut');
  await reg.ready();
  assert.equal(port.count('checkAndPut'), scans);
  mono.t += 2;
  port.fail({ error: new Error('again') });
  await reg.ready();
  assert.equal(reg.ageMs, 0);
  // Stale, the read fails and the wait is aborted (the service is stopping): it gives up.
  const ac = new AbortController();
  ac.abort(new Error('stopping'));
  port.fail({ error: new Error('x') });
  mono.t += TIMING.validityMs;
  await assert.rejects(reg.ready(ac.signal), /stopping/);
});

void test('fetch reads one id as it is now and the snapshot takes it in', async () => {
  const { reg, store } = setup();
  assert.equal(await reg.fetch('x'), undefined);
  await store.swap('x', null, { epochs: [{ since: 5, k: 8 }], fence: 3 });
  assert.deepEqual(await reg.fetch('x'), { epochs: [{ since: 5, k: 8 }], fence: 3 });
  assert.equal(reg.entryOf('x')?.fence, 3);
});

void test('lookupFor: the snapshot for a range its read covers (no registry read), one refresh first for a range it may not', async () => {
  const { reg, store, port, now, mono } = setup();
  await reg.refresh();
  const scans = (): number => port.count('scan');
  const before = scans();
  // read at now = 1,000,000 (mono 0): covers data before 1,000,000 + L − c = 1,059,000
  now.t += 30_000;
  mono.t += 30_000;
  assert.equal(await reg.lookupFor(now.t), reg);
  assert.equal(await reg.lookupFor(1_059_000), reg);
  assert.equal(scans(), before, 'a range ending now, with a snapshot 30 s old: no read');
  // an epoch promoted elsewhere after the snapshot starts at ≥ promotion + L: the snapshot covers ranges before it
  await store.swap('hot', null, { epochs: [{ since: now.t + TIMING.leadMs, k: 4 }], fence: null });
  assert.equal((await reg.lookupFor(now.t)).entryOf('hot'), undefined, 'not needed: no data before now is under it');
  assert.equal(scans(), before);
  // a range ending past what the snapshot covers: one refresh, and the epoch is there
  const lookup = await reg.lookupFor(1_059_001);
  assert.equal(scans(), before + 1, 'one scan of the registry rows, not a read per id');
  assert.deepEqual(lookup.entryOf('hot')?.epochs, [{ since: now.t + TIMING.leadMs, k: 4 }]);
  // the refreshed snapshot covers the same range again without a read
  await reg.lookupFor(1_059_001);
  assert.equal(scans(), before + 1);
});
