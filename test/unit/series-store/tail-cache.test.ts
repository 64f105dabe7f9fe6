// The tail cache over the real SeriesStore on the in-memory HBase, with ingest's real marking rules
// (RollupMarks, late re-marks on): a repeated read of the open hour reads only what is new, and is
// still every point HBase holds — after live events, after a late one (re-marked), after a
// generation bump; without the late re-mark it would have missed the late point (the check that the
// marker is what keeps it exact).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bumpGenerations } from '../../../src/rollup/generations.ts';
import type { PointBudget } from '../../../src/series-data/points.ts';
import type { SeriesStore } from '../../../src/series-store/series-store.ts';
import { withTailCache } from '../../../src/series-store/tail-reads.ts';
import { HOUR, META, T0, keyspace, storeOf, truth, world } from './tail-world.ts';

void test('a repeated read of the open hour reads only the last lateMs and what came since, and answers every point', async () => {
  const w = world();
  const ids = ['a', 'b', 'c'];
  await w.live(ids, T0, 10_000);
  assert.deepEqual(await w.read(ids), truth(w, ids));
  const first = w.scans.ranges;
  assert.equal(first, 3 * 60, 'the first read: the whole open hour');
  // 10 s later, live events keep coming
  const last = w.clock.t;
  w.clock.t += 10_000;
  await w.live(ids, last, 1000);
  assert.deepEqual(await w.read(ids), truth(w, ids));
  const second = w.scans.ranges - first;
  assert.ok(second <= 3 * (35 + 10 + 1), `the second read took ${second} points from HBase: the last lateMs + c and the new ones, not the hour`);
  assert.ok(w.cache.stats().hits >= 3);
});

void test('a late event (written after the read, its ts before completeTo) is re-marked and read; without the re-mark it would be missed', async () => {
  for (const remark of [true, false]) {
    const w = world();
    const ids = ['a', 'b'];
    await w.live(ids, T0, 10_000);
    await w.read(ids);
    w.clock.t += 10_000;
    // an event 5 minutes old arrives now (a device's buffer, a consumer catching up)
    await w.write('a', w.clock.t - 300_000 + 7, 9, { mark: remark });
    const got = await w.read(ids);
    const want = truth(w, ids);
    if (remark) assert.deepEqual(got, want, 'the late point is in the answer');
    else
      assert.notDeepEqual(got.get('a'), want.get('a'), 'without its marker the cache would have answered without it: the marker is what keeps the cache exact');
  }
});

void test('a generation bump (the job summarised a window, a delete) drops the entries of the bucket', async () => {
  const w = world();
  const ids = ['a', 'b', 'c', 'd'];
  await w.live(ids, T0, 10_000);
  await w.read(ids);
  const before = w.scans.ranges;
  // a writer that does not re-mark (a delete of rows) but bumps a's bucket
  await w.port.deleteRow('d', keyspace.dataKey('a', T0));
  await bumpGenerations(w.port, META, [keyspace.baseSalt('a')]);
  w.clock.t += 1000;
  assert.deepEqual(await w.read(ids), truth(w, ids));
  assert.ok(w.scans.ranges - before >= 59, "a's bucket read whole again");
});

void test('a job that bumps and then removes the marker of a late event between the generations read and the markers read does not leave the entry answering', async () => {
  const w = world();
  const ids = ['a', 'b'];
  await w.live(ids, T0, 10_000);
  await w.read(ids);
  w.clock.t += 10_000;
  // a late event of a (re-marked, touched), then the job: it summarises the window, bumps a's bucket,
  // and removes the window's markers, all just after the next read's first generations read
  await w.write('a', w.clock.t - 300_000 + 7, 9);
  w.between(async () => {
    await bumpGenerations(w.port, META, [keyspace.baseSalt('a')]);
    for (const row of w.port.rows('r')) if (row.row[1] === 0x00 && row.row.readUInt32BE(2) !== 0) await w.port.deleteRow('r', row.row);
  });
  assert.deepEqual(await w.read(ids), truth(w, ids), 'the late point is in the answer: a is read whole under the newer generation');
});

void test('reads from before the horizon pass through; the bound in bytes evicts the least recently used', async () => {
  const w = world(200 + 16 * 70);
  await w.live(['a', 'b'], T0, 10_000);
  await w.read(['a']);
  await w.read(['b']);
  assert.equal(w.cache.stats().entries, 1, 'one entry fits');
  assert.equal(w.cache.stats().evictions, 1);
  const before = w.cache.stats();
  await w.reads.rawPointsOf({ ids: ['a'], metrics: ['temp'], from: w.clock.t - 3 * HOUR, to: w.clock.t }, { take: () => undefined });
  assert.deepEqual(w.cache.stats(), before, 'a read from before the horizon: not looked up, not kept');
});

void test('asks that board together share one read; an ask made while it is under way waits for the next; a budget overflow fails its own query only', async () => {
  const w = world();
  const ids = ['a', 'b', 'c'];
  await w.live(ids, T0, 10_000);
  const calls = (): number => w.port.count('scan', 'd');
  const ask = (asked: readonly string[], budget: PointBudget = { take: () => undefined }): ReturnType<typeof w.reads.rawPointsOf> =>
    w.reads.rawPointsOf({ ids: asked, metrics: ['temp'], from: T0, to: T0 + HOUR }, budget);
  const before = calls();
  const [x, y] = await Promise.all([ask(ids), ask(['a', 'b', 'c'])]);
  assert.equal(calls() - before, 1, 'one scan for both');
  assert.deepEqual(x, y);
  // a second ask while the first read is under way: a read of its own, after the first
  const mid = calls();
  let second: Promise<unknown> | undefined;
  const first = ask(ids).then((v) => v);
  setImmediate(() => {
    second = ask(ids);
  });
  await first;
  await second;
  assert.equal(calls() - mid, 2, 'the ask made during the first read took a read of its own');
  // a query whose budget is exceeded fails; the other one sharing the read is answered
  const tight = {
    take: (n: number): void => {
      if (n > 0) throw new Error('over budget');
    },
  };
  w.clock.t += 60_000;
  await w.live(ids, w.clock.t - 60_000, 5000);
  const [bad, good] = await Promise.allSettled([ask(ids, tight), ask(ids)]);
  assert.equal(bad.status, 'rejected');
  if (good.status !== 'fulfilled') throw new Error('the query sharing the read failed');
  const got = good.value;
  const points = [...(got.get('temp')?.get('a')?.values() ?? [])].flatMap((p) => p.ts);
  assert.deepEqual(points, truth(w, ['a']).get('a'));
});

void test("the next window's first marker leaves the kept points alone; a late event into the kept window still drops them", async () => {
  const w = world();
  const ids = ['a', 'b'];
  w.clock.t = T0 + HOUR - 60_000; // the last minute of the hour
  await w.live(ids, T0, 10_000);
  await w.reads.rawPointsOf({ ids, metrics: ['temp'], from: T0, to: T0 + 2 * HOUR }, { take: () => undefined });
  const hits = w.cache.stats().hits;
  // the next hour starts: its first events mark it (stamped after the read)
  w.clock.t = T0 + HOUR + 5000;
  await w.live(ids, T0 + HOUR, 1000);
  const got = await w.reads.rawPointsOf({ ids, metrics: ['temp'], from: T0, to: T0 + 2 * HOUR }, { take: () => undefined });
  assert.equal(w.cache.stats().hits - hits, 2, 'both ids answered from their entries');
  const want = w.port
    .rows('d')
    .map((r) => keyspace.decodeDataKey(r.row))
    .filter((d) => d.id === 'a');
  assert.deepEqual(
    [...(got.get('temp')?.get('a')?.values() ?? [])].flatMap((p) => p.ts),
    want.map((d) => d.ts).sort((x, y) => x - y),
  );
  // a late event into the first hour, re-marked: a's entry is dropped
  w.clock.t += 10_000;
  await w.write('a', T0 + 1234, 5);
  const again = await w.reads.rawPointsOf({ ids, metrics: ['temp'], from: T0, to: T0 + 2 * HOUR }, { take: () => undefined });
  assert.ok(
    [...(again.get('temp')?.get('a')?.values() ?? [])].some((p) => p.ts.includes(T0 + 1234)),
    'the late point is read',
  );
});

void test('a second late event within LATE_REMARK_EVERY_MS of a re-mark is not re-marked, and a read between the two still sees it', async () => {
  const w = world(1 << 24, 0); // no clock tolerance: the re-mark interval alone must cover it
  const ids = ['a'];
  await w.live(ids, T0, 10_000);
  await w.read(ids);
  w.clock.t += 10_000;
  await w.write('a', w.clock.t - 200_000, 1); // late: re-marked
  w.clock.t += 300;
  await w.read(ids); // reads after the re-mark
  w.clock.t += 300;
  const markers = w.port.count('put', 'r');
  await w.write('a', w.clock.t - 100_000, 2); // late again, within a second of the re-mark
  assert.equal(w.port.count('put', 'r'), markers, 'not re-marked: covered by the one before');
  w.clock.t += 10_000;
  assert.deepEqual(await w.read(ids), truth(w, ids), 'the second late point is read');
});

void test('an ask over fewer ids than minIds reads on its own at once, not behind a shared read under way', async () => {
  const w = world();
  await w.live(['a', 'b', 'c'], T0, 10_000);
  const store = storeOf(w.port);
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const port = {
    windowsOf: store.windowsOf.bind(store),
    marksAndTouchesOf: store.marksAndTouchesOf.bind(store),
    generations: store.generations.bind(store),
    rawPointsOf: async (...args: Parameters<SeriesStore['rawPointsOf']>) => {
      if (args[0].ids.length > 1) await gate; // the big read hangs until released
      return store.rawPointsOf(...args);
    },
  };
  const reads = withTailCache(port, { port, cache: w.cache, bucketOf: (id) => keyspace.baseSalt(id) }, { lingerMs: 1, minIds: 2 });
  const none = { take: () => undefined };
  let bigDone = false;
  const big = reads.rawPointsOf({ ids: ['a', 'b', 'c'], metrics: ['temp'], from: T0, to: T0 + HOUR }, none).then((v) => {
    bigDone = true;
    return v;
  });
  await new Promise((r) => setTimeout(r, 20));
  const small = await reads.rawPointsOf({ ids: ['a'], metrics: ['temp'], from: T0, to: T0 + HOUR }, none);
  assert.equal(bigDone, false, 'the shared read is still under way');
  assert.deepEqual(
    [...(small.get('temp')?.get('a')?.values() ?? [])].flatMap((p) => p.ts),
    truth(w, ['a']).get('a'),
  );
  release();
  await big;
});
