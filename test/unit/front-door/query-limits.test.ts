// QueryLimits.acquire: a query over a cap waits for a slot, first come first served, within waitMs
// and maxWaiting; a caller that goes away gives up its place.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { QueryLimits, type Admission } from '../../../src/front-door/limits.ts';
import { QUERY_LIMIT_METRIC_NAMES, registerQueryLimitMetrics } from '../../../src/metrics/query-limit-metrics.ts';

function ok(a: Admission): () => void {
  assert.ok(a.ok, a.ok ? '' : a.reason);
  return a.release;
}

void test('over the per-identity cap a query waits, and takes the first slot its identity frees; others go in their order', async () => {
  const limits = new QueryLimits({ total: 3, perIdentity: 2, waitMs: 10_000, maxWaiting: 8 });
  const a1 = ok(await limits.acquire('a'));
  ok(await limits.acquire('a'));
  ok(await limits.acquire('b'));
  const order: string[] = [];
  const a3 = limits.acquire('a').then((x) => (order.push('a3'), x));
  const c1 = limits.acquire('c').then((x) => (order.push('c1'), x)); // over the total cap
  await new Promise((r) => setImmediate(r));
  assert.equal(limits.waiting, 2);
  assert.deepEqual(order, []);
  a1(); // frees a slot of a and one in total: a3 (first in line) takes it
  const got = await a3;
  assert.ok(got.ok);
  assert.deepEqual(order, ['a3']);
  assert.equal(limits.waiting, 1, 'c1 still waits (the total is full again)');
  got.release();
  ok(await c1);
  assert.deepEqual(order, ['a3', 'c1']);
  assert.equal(limits.inFlight, 3);
});

void test('a waiting query whose identity is still at its cap lets the next in line take a free slot', async () => {
  const limits = new QueryLimits({ total: 4, perIdentity: 1, waitMs: 10_000, maxWaiting: 8 });
  ok(await limits.acquire('a'));
  const b1 = ok(await limits.acquire('b'));
  const a2 = limits.acquire('a'); // waits for a's slot
  const b2 = limits.acquire('b'); // waits for b's slot
  b1();
  ok(await b2);
  assert.equal(limits.waiting, 1, 'a2 still waits for its own identity');
  assert.equal(
    await Promise.race([
      a2.then(() => 'a2'),
      new Promise((r) => {
        setTimeout(() => {
          r('waiting');
        }, 20);
      }),
    ]),
    'waiting',
  );
});

void test('turned away: after waitMs, when maxWaiting wait already, at once when waitMs is 0; a caller that goes away leaves the line', async () => {
  const limits = new QueryLimits({ total: 10, perIdentity: 1, waitMs: 50, maxWaiting: 1 });
  ok(await limits.acquire('a'));
  const late = limits.acquire('a');
  const full = await limits.acquire('a');
  assert.ok(!full.ok);
  assert.match(full.reason, /for this identity \(at most 1\); 1 queries wait for a slot already/);
  const timedOut = await late;
  assert.ok(!timedOut.ok);
  assert.match(timedOut.reason, /for this identity \(at most 1\); waited \d+ ms for a slot/);
  assert.equal(limits.waiting, 0);

  const gone = new AbortController();
  const leaving = limits.acquire('a', gone.signal);
  assert.equal(limits.waiting, 1);
  gone.abort();
  const left = await leaving;
  assert.ok(!left.ok);
  assert.match(left.reason, /went away/);
  assert.equal(limits.waiting, 0);
  assert.equal(limits.inFlight, 1, 'the one that left took no slot');

  const atOnce = new QueryLimits({ total: 10, perIdentity: 1, waitMs: 0, maxWaiting: 8 });
  ok(await atOnce.acquire('a'));
  const refused = await atOnce.acquire('a');
  assert.ok(!refused.ok);
  assert.equal(atOnce.waiting, 0);
});

void test('the caps as metrics: in flight and waiting at the scrape, admitted after a wait and turned away since start', async () => {
  const limits = new QueryLimits({ total: 10, perIdentity: 1, waitMs: 30, maxWaiting: 1 });
  const registry = new Registry();
  registerQueryLimitMetrics(registry, limits);
  const value = async (name: string): Promise<number | undefined> => (await registry.getSingleMetric(name)?.get())?.values[0]?.value;

  const first = ok(await limits.acquire('a'));
  const second = limits.acquire('a');
  assert.equal((await limits.acquire('a')).ok, false, 'one waits already: turned away');
  assert.equal(await value(QUERY_LIMIT_METRIC_NAMES.inFlight), 1);
  assert.equal(await value(QUERY_LIMIT_METRIC_NAMES.waiting), 1);
  first();
  ok(await second)();
  assert.equal((await limits.acquire('b')).ok, true, 'another identity: no wait, not counted as waited');
  ok(await limits.acquire('c'));
  const overTime = limits.acquire('c');
  assert.equal((await overTime).ok, false, 'past waitMs: turned away');

  assert.equal(await value(QUERY_LIMIT_METRIC_NAMES.waiting), 0);
  assert.equal(await value(QUERY_LIMIT_METRIC_NAMES.inFlight), 2);
  assert.equal(await value(QUERY_LIMIT_METRIC_NAMES.waited), 1);
  assert.equal(await value(QUERY_LIMIT_METRIC_NAMES.turnedAway), 2);
  const text = await registry.metrics();
  assert.match(text, /^tsingest_http_queries_turned_away_total 2$/m);
  assert.match(text, /^tsingest_http_queries_waited_total 1$/m);
});
