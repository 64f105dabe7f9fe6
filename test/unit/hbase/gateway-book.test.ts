// Pure gateway selection and health (src/hbase/gateway-book.ts) and the failure rules
// (src/hbase/gateway-rules.ts), on plain values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GatewayBook } from '../../../src/hbase/gateway-book.ts';
import { connectionFailure, gatewayLabel, mayResend } from '../../../src/hbase/gateway-rules.ts';
import { HBaseError } from '../../../src/hbase/index.ts';

const backoff = { baseMs: 100, maxMs: 1000 };

test('idle gateways take turns; the one with fewest requests in flight wins', () => {
  const b = new GatewayBook(3, backoff);
  assert.deepEqual([b.pick(), b.pick(), b.pick(), b.pick()], [0, 1, 2, 0]);
  b.begin(0);
  b.begin(0);
  b.begin(1);
  assert.equal(b.pick(), 2);
  b.begin(2);
  assert.equal(b.pick(), 1, 'least in flight');
  b.end(0);
  b.end(0);
  assert.equal(b.pick(), 0);
});

test('a failed gateway leaves the rotation until it answers; probe delays double up to the cap', () => {
  const b = new GatewayBook(2, backoff);
  assert.equal(b.failed(1), 100, 'first probe after baseMs');
  assert.equal(b.failed(1), undefined, 'already out: no second probe loop');
  assert.equal(b.healthyCount(), 1);
  assert.deepEqual([b.pick(), b.pick(), b.pick()], [0, 0, 0]);
  assert.deepEqual([b.probeFailed(1), b.probeFailed(1), b.probeFailed(1), b.probeFailed(1), b.probeFailed(1)], [200, 400, 800, 1000, 1000]);
  assert.equal(b.answered(1), true, 'back in rotation');
  assert.equal(b.answered(1), false, 'no change');
  assert.equal(b.failed(1), 100, 'backoff starts over');
});

test('failover picks a healthy gateway not tried yet, and nothing when none is left', () => {
  const b = new GatewayBook(3, backoff);
  b.failed(0);
  assert.equal(b.pick(new Set([1])), 2);
  assert.equal(b.pick(new Set([1, 2])), undefined, 'gateway 0 is out: not a failover target');
});

test('with every gateway out, requests still go out (least loaded of all)', () => {
  const b = new GatewayBook(2, backoff);
  b.failed(0);
  b.failed(1);
  b.begin(0);
  assert.equal(b.pick(), 1);
  assert.equal(b.pick(new Set([1])), undefined, 'but no failover among gateways that are out');
});

test('rejects an empty set and a bad backoff', () => {
  assert.throws(() => new GatewayBook(0, backoff), RangeError);
  assert.throws(() => new GatewayBook(1, { baseMs: 10, maxMs: 5 }), RangeError);
});

const sockErr = (code: string): Error => Object.assign(new Error(code), { code });
const wrapped = (code: string): HBaseError => new HBaseError({ code: 'HBASE_NETWORK', message: 'wrapped', cause: sockErr(code) });

test('connection failures: never sent (refused, connect timeout, DNS) vs broken (reset, closed)', () => {
  assert.equal(connectionFailure(wrapped('ECONNREFUSED')), 'unsent');
  assert.equal(connectionFailure(wrapped('UND_ERR_CONNECT_TIMEOUT')), 'unsent');
  assert.equal(connectionFailure(new AggregateError([sockErr('ECONNREFUSED'), sockErr('ENETUNREACH')])), 'unsent');
  assert.equal(connectionFailure(wrapped('ECONNRESET')), 'broken');
  assert.equal(connectionFailure(wrapped('UND_ERR_SOCKET')), 'broken');
  assert.equal(
    connectionFailure(new HBaseError({ code: 'HBASE_TIMEOUT', message: 'deadline', cause: new DOMException('aborted', 'AbortError') })),
    null,
    'the request deadline is not a connection failure',
  );
  assert.equal(connectionFailure(new HBaseError({ code: 'HBASE_CLOSED', message: 'closed' })), null);
  assert.equal(connectionFailure(new Error('x')), null);
});

test('what may go to another gateway after a broken connection', () => {
  const broken = (method: 'GET' | 'PUT' | 'POST' | 'DELETE', path: string): boolean => mayResend({ method, path }, 'broken');
  assert.equal(broken('GET', '/t/row'), true);
  assert.equal(broken('PUT', '/t/fakerow'), true, 'a put of the same cells');
  assert.equal(broken('PUT', '/t/scanner'), true, 'scanner creation');
  assert.equal(broken('PUT', '/t/row?check=put'), false, 'check-and-put');
  assert.equal(broken('PUT', '/t/row?e=b64&check=delete'), false, 'check-and-delete');
  assert.equal(broken('PUT', '/t/schema'), false);
  assert.equal(broken('POST', '/t/schema'), false);
  assert.equal(broken('DELETE', '/t/row'), false);
  for (const m of ['GET', 'PUT', 'POST', 'DELETE'] as const)
    assert.equal(mayResend({ method: m, path: '/t/row?check=put' }, 'unsent'), true, 'never sent: anything');
});

test('the gateway label is the origin, without credentials or path', () => {
  assert.equal(gatewayLabel('https://user:secret@knox.example:8443/gateway/default/hbase'), 'https://knox.example:8443');
});
