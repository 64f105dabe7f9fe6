import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HBaseError, classifyHttpStatus, classifyTransportError, isRetriable, isHBaseError } from '../../../src/hbase/index.ts';
import { withContext } from '../../../src/hbase/rest-caller.ts';

function netErr(code: string): Error {
  return Object.assign(new Error(`connect ${code}`), { code });
}

test('HTTP status classification', () => {
  const cases: [number, string, string, boolean][] = [
    [400, 'Bad request', 'HBASE_BAD_REQUEST', false],
    [401, '', 'HBASE_UNAUTHORIZED', false],
    [403, 'Forbidden', 'HBASE_FORBIDDEN', false],
    [404, 'Not found', 'HBASE_NOT_FOUND', false],
    [404, 'Not found\r\norg.apache.hadoop.hbase.TableNotFoundException: t', 'HBASE_TABLE_NOT_FOUND', false],
    [405, '', 'HBASE_HTTP_4XX', false],
    [409, '', 'HBASE_HTTP_4XX', false],
    [410, 'Gone', 'HBASE_SCANNER_GONE', false],
    [429, '', 'HBASE_UNAVAILABLE', true],
    [500, '{"message":"Request failed."}', 'HBASE_SERVER_ERROR', false],
    [500, 'org.apache.hadoop.hbase.RegionTooBusyException: busy', 'HBASE_UNAVAILABLE', true],
    [500, 'NotServingRegionException', 'HBASE_UNAVAILABLE', true],
    [500, 'RetriesExhaustedException ... DoNotRetryIOException', 'HBASE_SERVER_ERROR', false],
    [501, '', 'HBASE_SERVER_ERROR', false],
    [502, '', 'HBASE_UNAVAILABLE', true],
    [503, 'Unavailable\r\njava.io.IOException: x', 'HBASE_UNAVAILABLE', true],
    [503, 'Unavailable\r\norg.apache.hadoop.hbase.DoNotRetryIOException: x', 'HBASE_UNAVAILABLE', true],
    [504, '', 'HBASE_UNAVAILABLE', true],
  ];
  for (const [status, body, code, retriable] of cases) {
    assert.deepEqual(classifyHttpStatus(status, body), { code, retriable }, `${status} ${body}`);
  }
});

test('transport error classification', () => {
  for (const code of ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'EHOSTUNREACH', 'UND_ERR_SOCKET']) {
    assert.deepEqual(classifyTransportError(netErr(code)), { code: 'HBASE_NETWORK', retriable: true }, code);
  }
  for (const code of ['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']) {
    assert.deepEqual(classifyTransportError(netErr(code)), { code: 'HBASE_TIMEOUT', retriable: true }, code);
  }
  assert.deepEqual(classifyTransportError(new DOMException('timed out', 'TimeoutError')), { code: 'HBASE_TIMEOUT', retriable: true });
  assert.deepEqual(classifyTransportError(netErr('UND_ERR_CLOSED')), { code: 'HBASE_CLOSED', retriable: false });
  assert.deepEqual(classifyTransportError(netErr('UND_ERR_INVALID_ARG')), { code: 'HBASE_PROTOCOL', retriable: false });
  assert.deepEqual(classifyTransportError(new AggregateError([netErr('ECONNREFUSED')])), { code: 'HBASE_NETWORK', retriable: true });
  assert.deepEqual(classifyTransportError(new Error('boom')), { code: 'HBASE_NETWORK', retriable: false });
});

test('isRetriable walks the cause chain; the first HBaseError decides', () => {
  assert.equal(isRetriable(netErr('ECONNRESET')), true);
  assert.equal(isRetriable(new Error('wrapped', { cause: new Error('inner', { cause: netErr('EPIPE') }) })), true);
  assert.equal(isRetriable(new Error('wrapped', { cause: netErr('UND_ERR_HEADERS_TIMEOUT') })), true);
  assert.equal(isRetriable(new Error('plain')), false);
  assert.equal(isRetriable('string'), false);
  assert.equal(isRetriable(undefined), false);
  const permanent = new HBaseError({ code: 'HBASE_BAD_REQUEST', message: 'x', cause: netErr('ECONNRESET') });
  assert.equal(isRetriable(permanent), false);
  assert.equal(isRetriable(new Error('app', { cause: new HBaseError({ code: 'HBASE_UNAVAILABLE', message: 'x' }) })), true);
  const cyclic = new Error('a');
  cyclic.cause = cyclic;
  assert.equal(isRetriable(cyclic), false);
});

test('HBaseError defaults, truncation and type guard', () => {
  const e = new HBaseError({ code: 'HBASE_TIMEOUT', message: 'slow', status: 504, body: 'x'.repeat(5000), table: 't', op: 'get' });
  assert.equal(e.retriable, true);
  assert.equal(e.name, 'HBaseError');
  assert.ok(e instanceof Error);
  assert.ok((e.body ?? '').length < 2100);
  assert.match(e.body ?? '', /more chars/);
  assert.equal(new HBaseError({ code: 'HBASE_NOT_FOUND', message: 'x' }).retriable, false);
  assert.equal(new HBaseError({ code: 'HBASE_NOT_FOUND', message: 'x', retriable: true }).retriable, true);
  assert.ok(isHBaseError(e, 'HBASE_TIMEOUT'));
  assert.ok(!isHBaseError(e, 'HBASE_NOT_FOUND'));
  assert.ok(!isHBaseError(new Error('x')));
});

test('withContext names op and table and keeps code / retriable / cause', () => {
  const inner = new HBaseError({ code: 'HBASE_UNAVAILABLE', message: 'HTTP 503 UNAVAILABLE: Unavailable', status: 503, body: 'Unavailable' });
  const e = withContext(inner, 'put', 'it_t');
  assert.equal(e.code, 'HBASE_UNAVAILABLE');
  assert.equal(e.retriable, true);
  assert.equal(e.status, 503);
  assert.equal(e.table, 'it_t');
  assert.equal(e.op, 'put');
  assert.equal(e.cause, inner);
  assert.match(e.message, /put on table 'it_t'/);
  assert.equal(withContext(e, 'put', 'it_t'), e);
  const arg = withContext(new RangeError('bad'), 'get', 't');
  assert.equal(arg.code, 'HBASE_INVALID_ARGUMENT');
  assert.equal(arg.retriable, false);
  const net = withContext(netErr('ECONNREFUSED'), 'version', undefined);
  assert.equal(net.code, 'HBASE_NETWORK');
  assert.equal(net.retriable, true);
  assert.match(net.message, /^HBase version failed/);
});

interface GatewayAnswer {
  name: string;
  status: number;
  body: string;
  code: string;
  retriable: boolean;
}

test('recorded gateway answers: the status decides an outage (a 503 relaying DoNotRetryIOException is one), a missing table or family and a bad request are permanent', async () => {
  const { readFile } = await import('node:fs/promises');
  const answers = JSON.parse(await readFile(new URL('./fixtures/gateway-answers.json', import.meta.url), 'utf8')) as GatewayAnswer[];
  assert.ok(answers.length >= 6);
  for (const a of answers) assert.deepEqual(classifyHttpStatus(a.status, a.body), { code: a.code, retriable: a.retriable }, a.name);
  const outage = answers.find((a) => a.status === 503);
  assert.ok(outage?.body.includes('DoNotRetryIOException'), 'the 503 of issue 31 is among them');
});
