// Work in slices (src/toolkit/slices.ts): a pause gives the event loop back and checks the request's
// signal; a stepped computation driven in slices gives the same answer as at once; the catalog's
// look-up with a regexp over every series of a metric pauses between slices and stops when aborted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SeriesIndex } from '../../../src/catalog/series-index.ts';
import { buildFilter } from '../../../src/series-language/filters.ts';
import { runAtOnce } from '../../../src/series-compute/steps.ts';
import { eachSliced, runSliced, slicedItems, Slices } from '../../../src/toolkit/slices.ts';

/** A clock that moves `stepMs` each time it is read: every due() after the first slice's worth says yes. */
function ticking(stepMs: number): () => number {
  let t = 0;
  return () => (t += stepMs);
}

void test('due() once the slice is spent; pause() gives the loop back, then starts a new slice', async () => {
  let turns = 0;
  const s = new Slices({ sliceMs: 10, now: ticking(6), yieldTurn: () => Promise.resolve(turns++) });
  assert.equal(s.due(), false);
  assert.equal(s.due(), true);
  await s.pause();
  assert.equal(turns, 1);
  assert.equal(s.pauses, 1);
  assert.equal(s.due(), false, 'a new slice');
  let n = 0;
  await eachSliced(10, s, () => {
    n++;
  });
  assert.equal(n, 10);
  assert.equal(s.pauses, 6, 'a pause every other step (the clock moves 6 per reading, the slice is 10)');
});

void test('a pause rejects with the signal reason once aborted, and lets a timer run in between', async () => {
  const ac = new AbortController();
  const s = new Slices({ signal: ac.signal });
  let fired = false;
  setTimeout(() => {
    fired = true;
    ac.abort(new Error('deadline'));
  }, 0);
  // pauses in a row (as a long compute takes them): the timer runs at one of them, the next one stops
  const run = (async () => {
    for (let i = 0; i < 100_000; i++) await s.pause();
    return 'never stopped';
  })();
  await assert.rejects(run, /deadline/);
  assert.ok(fired);
});

void test('a generator driven in slices gives what it gives at once', async () => {
  function* steps(): Generator<void, number> {
    let sum = 0;
    for (let i = 0; i < 1000; i++) {
      sum += i;
      yield;
    }
    return sum;
  }
  const s = new Slices({ sliceMs: 1, now: ticking(1), yieldTurn: () => Promise.resolve() });
  assert.equal(await runSliced(steps(), s), runAtOnce(steps()));
  assert.ok(s.pauses >= 999);
});

void test('catalog look-up with a regexp over 20k series: in slices, the same answer; aborted, it stops', async () => {
  const c = new SeriesIndex({ idTagKey: 'id' });
  for (let i = 0; i < 20_000; i++) c.add({ metric: 'temp', id: `d${i}`, tags: { host: `${'a'.repeat(20 + (i % 9))}${i % 2 === 0 ? '!' : ''}` } });
  const filters = [buildFilter('regexp', 'host', '(a+)+$')];
  const s = new Slices({ sliceMs: 1, now: ticking(1), yieldTurn: () => Promise.resolve() });
  const sliced = await c.lookupSliced('temp', filters, 25, s);
  const once = c.lookup('temp', filters, 25);
  assert.deepEqual(sliced, once);
  assert.equal(once.total, 10_000);
  assert.ok(s.pauses > 5, `paused between slices (${s.pauses})`);
  const ac = new AbortController();
  ac.abort(new Error('deadline'));
  await assert.rejects(c.lookupSliced('temp', filters, 25, new Slices({ signal: ac.signal, sliceMs: 0 })), /deadline/);
});

void test('catalog views after a change: rebuilt in slices by prepare(), the same as at once; a change meanwhile leaves them to be rebuilt', async () => {
  const c = new SeriesIndex({ idTagKey: 'id' });
  const twin = new SeriesIndex({ idTagKey: 'id' });
  for (let i = 0; i < 20_000; i++) {
    const s = { metric: ['temp', 'hum'][i % 2] ?? 'temp', id: `d${i}`, tags: { site: `s${i % 7}` } };
    c.add(s);
    twin.add(s);
  }
  const s = new Slices({ sliceMs: 1, now: ticking(1), yieldTurn: () => Promise.resolve() });
  await c.prepare(s);
  assert.ok(s.pauses > 5, `rebuilt in slices (${s.pauses} pauses)`);
  assert.deepEqual(c.tagValues('', 1_000_000), twin.tagValues('', 1_000_000));
  assert.deepEqual(c.lookup('hum', [], 10), twin.lookup('hum', [], 10));
  const before = s.pauses;
  await c.prepare(s);
  assert.equal(s.pauses, before, 'nothing to rebuild: no pause');
  // a series added while a rebuild pauses: that rebuild is not installed, the next read sees it
  c.add({ metric: 'temp', id: 'late0', tags: { site: 's0' } });
  const paused = c.prepare(new Slices({ sliceMs: 0, yieldTurn: () => Promise.resolve() }));
  c.add({ metric: 'temp', id: 'late', tags: { site: 's0' } });
  await c.prepare(new Slices());
  await paused;
  assert.equal(c.lookup('temp', [buildFilter('literal_or', 'id', 'late')]).total, 1);
  assert.equal(c.lookup('temp', [buildFilter('literal_or', 'id', 'late0')]).total, 1);
});

void test('lightest first: of the requests waiting at a pause, the one with the least work resumes first, one per turn of the event loop', async () => {
  const order: string[] = [];
  const run = async (name: string, weight: number, pauses: number): Promise<void> => {
    const slices = new Slices({ sliceMs: 0, weight });
    for (let i = 0; i < pauses; i++) {
      await slices.pause();
      order.push(name);
    }
  };
  await Promise.all([run('heavy', 10_000, 3), run('light', 1, 3), run('middle', 500, 2)]);
  assert.deepEqual(order, ['light', 'light', 'light', 'middle', 'middle', 'heavy', 'heavy', 'heavy']);
  // an equal weight waits its turn: the earliest first
  const fair: string[] = [];
  await Promise.all(
    ['a', 'b'].map(async (name) => {
      const slices = new Slices({ sliceMs: 0, weight: 5 });
      for (let i = 0; i < 2; i++) {
        await slices.pause();
        fair.push(name);
      }
    }),
  );
  assert.deepEqual(fair, ['a', 'b', 'a', 'b']);
});

void test('slicedItems: every item in order, the loop given back whenever a slice is spent; a timer runs inside a chain of resolved items', async () => {
  let turns = 0;
  const s = new Slices({ sliceMs: 10, now: ticking(6), yieldTurn: () => Promise.resolve(turns++) });
  async function* rows(): AsyncGenerator<number> {
    for (let i = 0; i < 9; i++) yield await Promise.resolve(i);
  }
  const seen: number[] = [];
  for await (const r of slicedItems(rows(), s)) seen.push(r);
  assert.deepEqual(seen, [0, 1, 2, 3, 4, 5, 6, 7, 8]);
  assert.equal(turns, s.pauses);
  assert.ok(s.pauses >= 4, `a pause every other item (${s.pauses})`);

  // with the real clock and a real turn: items that are all resolved at once (a buffered page) still
  // let a timer due meanwhile fire before the last of them
  let fired = false;
  setTimeout(() => {
    fired = true;
  }, 0);
  const real = new Slices({ sliceMs: 1, yieldTurn: () => new Promise((r) => setImmediate(r)) });
  let firedBeforeEnd = false;
  async function* busy(): AsyncGenerator<number> {
    for (let i = 0; i < 200; i++) {
      const until = performance.now() + 0.1;
      while (performance.now() < until);
      yield await Promise.resolve(i); // resolved at once: a microtask, never a turn of the loop
    }
  }
  let n = 0;
  for await (const i of slicedItems(busy(), real)) {
    n++;
    if (i === 199) firedBeforeEnd = fired;
  }
  assert.equal(n, 200);
  assert.equal(firedBeforeEnd, true, 'the timer ran between items');
});
