import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TokenBucket, UNTHROTTLED, createThrottle } from '../../../src/toolkit/throttle.ts';

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

void test('the throttle sleeps exactly the time the bucket asks for', async () => {
  const slept: number[] = [];
  const throttle = createThrottle({
    ratePerSec: 10,
    now: () => 0,
    sleep: (ms) => {
      slept.push(ms);
      return Promise.resolve();
    },
  });
  await throttle.take(10);
  await throttle.take(5);
  await throttle.take(10);
  assert.deepEqual(slept, [500, 1500]);
});

void test('throttle: a burst, then the configured rate (one token per row, as the backfill takes)', async () => {
  let now = 0;
  const sleptMs: { total: number } = { total: 0 };
  const slept = (): number => sleptMs.total;
  const bucket = createThrottle({
    ratePerSec: 5,
    now: () => now,
    sleep: (ms) => {
      now += ms;
      sleptMs.total += ms;
      return Promise.resolve();
    },
  });
  for (let i = 0; i < 5; i++) await bucket.take(1);
  assert.equal(slept(), 0, 'one second of burst');
  for (let i = 0; i < 10; i++) await bucket.take(1);
  assert.ok(slept() >= 2000 && slept() <= 2010, `10 more tokens at 5/s ≈ 2 s (slept ${slept()})`);
  const ac = new AbortController();
  ac.abort();
  await bucket.take(1, ac.signal); // returns on abort without waiting forever
  assert.throws(() => createThrottle({ ratePerSec: 0 }), /rate must be a positive number/);
});

void test('the default burst is one second of tokens but at least one; the sleep gets the signal', async () => {
  assert.equal(new TokenBucket(0.5, 0).take(1, 0), 0, 'a rate below 1/s still lets one token through at once');
  assert.equal(new TokenBucket(0.5, 0).take(2, 0), 2000);
  const signals: (AbortSignal | undefined)[] = [];
  const ac = new AbortController();
  const throttle = createThrottle({
    ratePerSec: 1,
    now: () => 0,
    sleep: (_ms, signal) => {
      signals.push(signal);
      return Promise.resolve();
    },
  });
  await throttle.take(2, ac.signal);
  assert.deepEqual(signals, [ac.signal]);
});

void test('with the real timer an abort ends the wait early; UNTHROTTLED never waits', async () => {
  const throttle = createThrottle({ ratePerSec: 1 });
  const ac = new AbortController();
  const started = Date.now();
  setTimeout(() => {
    ac.abort();
  }, 20);
  await throttle.take(60, ac.signal); // a minute of debt
  assert.ok(Date.now() - started < 5000, 'the abort ended the wait');
  await UNTHROTTLED.take(1_000_000);
});
