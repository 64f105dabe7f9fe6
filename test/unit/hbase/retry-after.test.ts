// Retry-After from the gateway or a proxy in front of it (Knox, nginx) on a 429 or a 503: read in
// both forms (delta-seconds, HTTP-date), carried on the HBaseError, and honoured, capped, as the wait
// before the retry (issue 39).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HBaseError, HBaseRestClient, column, isRetriable } from '../../../src/hbase/index.ts';
import type { HttpResponse, HttpTransport } from '../../../src/hbase/index.ts';
import { parseRetryAfter, retryAfterOf } from '../../../src/hbase/retry-after.ts';
import { RETRY_AFTER_CAP_MS, retrying } from '../../../src/toolkit/retry.ts';

const NOW = Date.parse('2024-11-22T08:00:00Z');
const answer = (status: number, headers: HttpResponse['headers'] = {}): HttpResponse => ({ status, headers, body: Buffer.alloc(0) });

void test('Retry-After: delta-seconds and HTTP-dates (a past one is 0); anything else is not read', () => {
  assert.equal(parseRetryAfter('7', NOW), 7000);
  assert.equal(parseRetryAfter(' 0 ', NOW), 0);
  assert.equal(parseRetryAfter('Fri, 22 Nov 2024 08:00:30 GMT', NOW), 30_000);
  assert.equal(parseRetryAfter('Friday, 22-Nov-24 08:00:05 GMT', NOW), 5000, 'the obsolete RFC 850 form');
  assert.equal(parseRetryAfter('Fri, 22 Nov 2024 07:00:00 GMT', NOW), 0);
  for (const bad of ['', '-5', '1.5', 'soon', 'Fri, 99 Foo 2024']) assert.equal(parseRetryAfter(bad, NOW), undefined, bad);
  assert.equal(parseRetryAfter(undefined, NOW), undefined);
});

void test('only a 429 or a 503 is asked what it wants', () => {
  assert.equal(retryAfterOf(answer(429, { 'retry-after': '3' }), NOW), 3000);
  assert.equal(retryAfterOf(answer(503, { 'retry-after': ['2', '9'] }), NOW), 2000);
  assert.equal(retryAfterOf(answer(502, { 'retry-after': '3' }), NOW), undefined);
  assert.equal(retryAfterOf(answer(500, { 'retry-after': '3' }), NOW), undefined);
  assert.equal(retryAfterOf(answer(503), NOW), undefined);
});

/** A client whose transport answers `answers` in turn (the last one for good). */
function clientAnswering(...answers: HttpResponse[]): { client: HBaseRestClient; sent: () => number } {
  let n = 0;
  const transport: HttpTransport = {
    request: () => Promise.resolve(answers[Math.min(n++, answers.length - 1)] as HttpResponse),
    close: () => Promise.resolve(),
  };
  return { client: new HBaseRestClient({ baseUrl: 'http://gw:8080', transport, defaultDeadlineMs: 1000 }), sent: () => n };
}

/** A sleep that only notes what it was asked to wait. */
function recordingSleep(): { slept: number[]; sleep: (ms: number) => Promise<void> } {
  const slept: number[] = [];
  return {
    slept,
    sleep: (ms) => {
      slept.push(ms);
      return Promise.resolve();
    },
  };
}

const ROWS = [{ row: Buffer.from('r'), cells: [{ column: column('d', 'v'), value: Buffer.from('1'), timestamp: 1 }] }];

void test('a 429 with Retry-After is a retriable HBaseError that carries the wait, with the op and table', async () => {
  const { client } = clientAnswering(answer(429, { 'retry-after': '4' }));
  await assert.rejects(
    client.put('t', ROWS),
    (e: unknown) => e instanceof HBaseError && e.code === 'HBASE_UNAVAILABLE' && isRetriable(e) && e.retryAfterMs === 4000 && e.table === 't',
  );
});

void test('the retry waits what the gateway asked for (429 and 503), capped, and never less than the backoff', async () => {
  const policy = { baseMs: 10, maxMs: 50, isRetriable };
  for (const [first, wanted] of [
    [answer(429, { 'retry-after': '2' }), 2000],
    [answer(503, { 'retry-after': new Date(Date.now() + 60_000).toUTCString() }), RETRY_AFTER_CAP_MS],
    [answer(503, { 'retry-after': '86400' }), RETRY_AFTER_CAP_MS],
  ] as const) {
    const { client, sent } = clientAnswering(first, answer(200));
    const { slept, sleep } = recordingSleep();
    await retrying(() => client.put('t', ROWS), { ...policy, sleep });
    assert.equal(sent(), 2);
    assert.deepEqual(slept, [wanted]);
  }
  // Retry-After: 0, or none: the backoff (≤ maxMs) decides
  for (const first of [answer(429, { 'retry-after': '0' }), answer(503)]) {
    const { client } = clientAnswering(first, answer(200));
    const { slept, sleep } = recordingSleep();
    await retrying(() => client.put('t', ROWS), { ...policy, sleep });
    assert.equal(slept.length, 1);
    assert.ok((slept[0] as number) <= policy.maxMs, `slept ${slept[0]}`);
  }
});

void test('the abort signal still ends a long Retry-After wait at once', async () => {
  const { client, sent } = clientAnswering(answer(503, { 'retry-after': '25' }));
  const ac = new AbortController();
  const started = Date.now();
  setTimeout(() => {
    ac.abort();
  }, 20);
  await assert.rejects(
    retrying(() => client.put('t', ROWS), { baseMs: 10, maxMs: 50, isRetriable, signal: ac.signal }),
    { name: 'RetryAbortedError' },
  );
  assert.ok(Date.now() - started < 2000, 'not the 25 s asked for');
  assert.equal(sent(), 1);
});
