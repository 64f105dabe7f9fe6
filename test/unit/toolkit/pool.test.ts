import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runLimited } from '../../../src/toolkit/pool.ts';

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

void test('runs every item with at most `limit` in flight', async () => {
  let inFlight = 0;
  let peak = 0;
  const seen: number[] = [];
  await runLimited([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    await tick();
    seen.push(n);
    inFlight--;
  });
  assert.equal(peak, 3);
  assert.deepEqual(seen.sort(), [1, 2, 3, 4, 5, 6, 7]);
});

void test('the first failure is rethrown and no new item starts after it; an abort stops starting items', async () => {
  const started: number[] = [];
  await assert.rejects(
    runLimited([1, 2, 3, 4], 1, async (n) => {
      started.push(n);
      await tick();
      if (n === 2) throw new Error('boom 2');
    }),
    /boom 2/,
  );
  assert.deepEqual(started, [1, 2]);
  const ac = new AbortController();
  const ran: number[] = [];
  await runLimited(
    [1, 2, 3],
    1,
    async (n) => {
      ran.push(n);
      ac.abort();
      await tick();
    },
    ac.signal,
  );
  assert.deepEqual(ran, [1]);
  await assert.rejects(
    runLimited([1], 0, () => Promise.resolve()),
    /concurrency must be a positive integer/,
  );
});

void test('items start in list order; an empty list runs nothing; a limit above the list size is fine', async () => {
  const started: number[] = [];
  await runLimited([5, 6, 7, 8], 2, async (n) => {
    started.push(n);
    await tick();
  });
  assert.deepEqual(started, [5, 6, 7, 8]);
  let calls = 0;
  await runLimited([], 4, () => {
    calls++;
    return Promise.resolve();
  });
  assert.equal(calls, 0);
  await runLimited([1], 100, () => {
    calls++;
    return Promise.resolve();
  });
  assert.equal(calls, 1);
});

void test('a failure is rethrown only after the calls already running have settled', async () => {
  const settled: number[] = [];
  await assert.rejects(
    runLimited([1, 2, 3], 3, async (n) => {
      if (n === 1) throw new Error('first fails at once');
      for (let i = 0; i < n; i++) await tick();
      settled.push(n);
    }),
    /first fails at once/,
  );
  assert.deepEqual(settled.sort(), [2, 3]);
});

void test('an already aborted signal starts nothing', async () => {
  const ac = new AbortController();
  ac.abort();
  let calls = 0;
  await runLimited(
    [1, 2],
    2,
    () => {
      calls++;
      return Promise.resolve();
    },
    ac.signal,
  );
  assert.equal(calls, 0);
});
