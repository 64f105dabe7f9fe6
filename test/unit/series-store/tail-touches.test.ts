// The tail cache's touches (src/ingest/touches.ts) on the in-memory HBase: an id with no write since
// its read is answered with no read of HBase; each way a write can escape a read (a later write, one
// within the touch interval, a future-dated one) still reaches the answer, and without the touch the
// answer would miss it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { T0, truth, world } from './tail-world.ts';

void test('an id with no touch since its read is answered with no read; a write touches it and it is read; without the touch it would be missed', async () => {
  for (const touch of [true, false]) {
    const w = world();
    const ids = ['a', 'b', 'c'];
    await w.live(ids, T0, 10_000);
    // a dashboard's scan: to the end of the open hour (2.4.1's scan range, aligned to the hour)
    const now = (): Promise<Map<string, number[]>> => w.read(ids);
    // (a read within TOUCH_EVERY_MS and the clock tolerance of an id's last touch reads it anyway)
    w.clock.t += 20_000;
    assert.deepEqual(await now(), truth(w, ids));
    // 10 s later, nothing written: every id answered from its entry, no scan of the data table
    w.clock.t += 10_000;
    const scansBefore = w.port.count('scan', 'd');
    assert.deepEqual(await now(), truth(w, ids));
    assert.equal(w.port.count('scan', 'd'), scansBefore, 'no data-table scan: no id was written since its read');
    assert.equal(w.cache.stats().untouched, 3);
    // b is written (its touch stamped now, after the data row): b alone is read
    w.clock.t += 10_000;
    await w.write('b', w.clock.t - 100, 7, { touch });
    w.clock.t += 10;
    const got = await now();
    if (touch) {
      assert.deepEqual(got, truth(w, ids), 'the new point is in the answer');
      assert.equal(w.cache.stats().untouched, 5, 'a and c still answered from their entries');
    } else
      assert.notDeepEqual(got.get('b'), truth(w, ids).get('b'), 'without its touch the cache would have answered without it: the touch is what keeps it exact');
  }
});

void test('a write within TOUCH_EVERY_MS of a touch is not touched again and still read; one after it is touched again', async () => {
  const w = world(1 << 24, 0); // no clock tolerance: the touch interval alone must cover it
  const ids = ['a'];
  await w.live(ids, T0, 10_000);
  w.clock.t += 20_000;
  await w.read(ids);
  const t = (w.clock.t += 10_000);
  await w.write('a', t - 50, 1, { mark: false }); // touched at t
  w.clock.t = t + 3000;
  await w.read(ids); // read after the touch
  const puts = w.port.count('put', 'r');
  w.clock.t = t + 4000;
  await w.write('a', t + 3900, 2, { mark: false }); // within TOUCH_EVERY_MS of the touch: none
  assert.equal(w.port.count('put', 'r'), puts, 'no touch put: covered by the one before');
  w.clock.t = t + 5000;
  assert.deepEqual(await w.read(ids), truth(w, ids), 'the second point is read');
  // a read more than TOUCH_EVERY_MS after the first touch, then a write: touched again, and read
  w.clock.t = t + 6000;
  await w.read(ids);
  w.clock.t = t + 7000;
  await w.write('a', t + 6900, 3, { mark: false });
  assert.equal(w.port.count('put', 'r'), puts + 1, 'touched again');
  w.clock.t = t + 8000;
  assert.deepEqual(await w.read(ids), truth(w, ids), 'the third point is read');
});

void test("a future-dated event is read once a range reaches past the end of the entry's read, whenever it was written", async () => {
  const w = world();
  const ids = ['a', 'b'];
  await w.live(ids, T0, 10_000);
  const upTo = async (to: number): Promise<number[]> => {
    const got = await w.reads.rawPointsOf({ ids, metrics: ['temp'], from: T0, to }, { take: () => undefined });
    return [...(got.get('temp')?.get('a')?.values() ?? [])].flatMap((p) => p.ts);
  };
  const t0 = w.clock.t;
  const future = t0 + 120_000;
  await w.write('a', future, 3); // a device clock two minutes ahead of ours: touched now, not at its ts
  w.clock.t = t0 + 60_000;
  assert.ok(!(await upTo(t0 + 60_000)).includes(future), 'not in a range ending now');
  // long after the write (its touch is old), a range reaching past the entries' end: read, not skipped
  w.clock.t = future + 60_000;
  const untouched = w.cache.stats().untouched;
  assert.ok((await upTo(future + 60_000)).includes(future), 'read once a range reaches it');
  assert.equal(w.cache.stats().untouched, untouched, 'no entry skipped its read: the range ends past theirs');
  assert.deepEqual(await upTo(future + 60_000), truth(w, ['a']).get('a'));
});
