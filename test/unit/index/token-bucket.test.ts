import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TokenBucket, throttleOf } from '../../../src/index/token-bucket.ts';

void test('takes within the burst pass at once; beyond it the wait pays off the debt at the rate', () => {
  const b = new TokenBucket(100, 0); // 100 rows/s, burst 100
  assert.equal(b.take(60, 0), 0);
  assert.equal(b.take(40, 0), 0);
  assert.equal(b.take(50, 0), 500, '50 rows of debt at 100/s = 500 ms');
  assert.equal(b.take(0, 500), 0, 'the debt is paid after 500 ms');
  assert.equal(b.take(100, 1500), 0, 'idle time refills, capped at the burst');
  assert.equal(b.take(1, 1500), 10);
});

void test('the long-run rate holds for chunks larger than the burst and for concurrent takers', () => {
  const b = new TokenBucket(50, 0, 10);
  let now = 0;
  let rows = 0;
  for (let i = 0; i < 20; i++) {
    const wait = Math.max(b.take(25, now), b.take(25, now)); // two takers at once wait in parallel
    rows += 50;
    now += wait;
  }
  // 1000 rows at 50/s with 10 saved up: at least (1000 − 10) / 50 s
  assert.ok(now >= ((rows - 10) / 50) * 1000 - 1, `took ${now} ms for ${rows} rows`);
  assert.ok(now <= (rows / 50) * 1000 + 1);
});

void test('a clock going backwards never adds tokens; bad arguments are refused', () => {
  const b = new TokenBucket(10, 1000);
  assert.equal(b.take(10, 1000), 0);
  assert.equal(b.take(1, 500), 100);
  assert.throws(() => new TokenBucket(0, 0), /rate must be a positive number/);
  assert.throws(() => new TokenBucket(Number.POSITIVE_INFINITY, 0), /rate/);
  assert.throws(() => new TokenBucket(1, 0, 0), /burst/);
  assert.throws(() => b.take(-1, 0), />= 0/);
});

void test('throttleOf sleeps exactly the time the bucket asks for', async () => {
  const slept: number[] = [];
  const throttle = throttleOf(new TokenBucket(10, 0), () => 0, (ms) => {
    slept.push(ms);
    return Promise.resolve();
  });
  await throttle(10);
  await throttle(5);
  await throttle(10);
  assert.deepEqual(slept, [500, 1500]);
});
