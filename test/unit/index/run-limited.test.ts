import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runLimited } from '../../../src/index/run-limited.ts';

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
  await assert.rejects(runLimited([1, 2, 3, 4], 1, async (n) => {
    started.push(n);
    await tick();
    if (n === 2) throw new Error('boom 2');
  }), /boom 2/);
  assert.deepEqual(started, [1, 2]);
  const ac = new AbortController();
  const ran: number[] = [];
  await runLimited([1, 2, 3], 1, async (n) => {
    ran.push(n);
    ac.abort();
    await tick();
  }, ac.signal);
  assert.deepEqual(ran, [1]);
  await assert.rejects(runLimited([1], 0, () => Promise.resolve()), /concurrency must be a positive integer/);
});
