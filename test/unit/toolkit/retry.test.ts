import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backoffDelay, RETRY_AFTER_CAP_MS, retryDelay, retrying, RetryAbortedError } from '../../../src/toolkit/retry.ts';

class Transient extends Error {}

test('backoff is capped and jittered', () => {
  const policy = { baseMs: 100, maxMs: 1000 };
  assert.equal(
    backoffDelay(policy, 1, () => 1),
    100,
  );
  assert.equal(
    backoffDelay(policy, 3, () => 1),
    400,
  );
  assert.equal(
    backoffDelay(policy, 10, () => 1),
    1000,
  );
  assert.equal(
    backoffDelay(policy, 60, () => 0.5),
    500,
  );
  assert.equal(
    backoffDelay(policy, 5, () => 0),
    0,
  );
});

test('a wait the gateway asked for (Retry-After) replaces a shorter backoff, capped; none or a shorter one leaves the backoff', () => {
  const policy = { baseMs: 100, maxMs: 1000 };
  const one = (): number => 1;
  assert.equal(retryDelay(policy, 1, undefined, one), 100);
  assert.equal(retryDelay(policy, 1, 2500, one), 2500);
  assert.equal(retryDelay(policy, 4, 0, one), 800);
  assert.equal(retryDelay(policy, 1, 3_600_000, one), RETRY_AFTER_CAP_MS);
});

test('retries retriable errors until success, reporting each retry', async () => {
  let calls = 0;
  const events: string[] = [];
  const slept: number[] = [];
  const result = await retrying(
    () => {
      calls++;
      if (calls < 5) return Promise.reject(new Transient(`fail ${calls}`));
      return Promise.resolve('ok');
    },
    {
      baseMs: 10,
      maxMs: 10,
      isRetriable: (e) => e instanceof Transient,
      sleep: (ms) => {
        slept.push(ms);
        return Promise.resolve();
      },
      hooks: {
        onRetry: (_e, attempt) => events.push(`retry${attempt}`),
      },
    },
  );
  assert.equal(result, 'ok');
  assert.equal(calls, 5);
  assert.deepEqual(events, ['retry1', 'retry2', 'retry3', 'retry4']);
  assert.equal(slept.length, 4, 'one backoff sleep per retriable failure');
  for (const ms of slept) assert.ok(ms >= 0 && ms <= 10, `delay ${ms} within the cap`);
});

test('non-retriable errors pass straight through', async () => {
  let calls = 0;
  await assert.rejects(
    retrying(
      () => {
        calls++;
        return Promise.reject(new Error('bad request'));
      },
      {
        baseMs: 1,
        maxMs: 1,
        isRetriable: (e) => e instanceof Transient,
      },
    ),
    /bad request/,
  );
  assert.equal(calls, 1);
});

test('an abort stops the retry loop', async () => {
  const ac = new AbortController();
  const p = retrying(() => Promise.reject(new Transient('down')), {
    baseMs: 1000,
    maxMs: 1000,
    isRetriable: () => true,
    signal: ac.signal,
  });
  setTimeout(() => {
    ac.abort();
  }, 20);
  await assert.rejects(p, RetryAbortedError);
});
