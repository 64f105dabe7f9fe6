import { test } from 'node:test';
import assert from 'node:assert/strict';
import { digestLog } from '../../../scripts/lib/test-run/log-digest.ts';

const LOG = [
  '2026-11-29T03:45:52,857 ERROR [qtp473073770-20] rest.ScannerResource: Exception occurred while processing http://127.0.0.1:8080/t1/scanner : ',
  'com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException: Unrecognized field "ranges"',
  '\tat org.apache.hadoop.hbase.rest.ScannerResource.update(ScannerResource.java:111)',
  '2026-11-29T03:45:53,001 ERROR [qtp473073770-21] rest.ScannerResource: Exception occurred while processing http://127.0.0.1:8080/t2/scanner : ',
  '2026-11-29T03:45:53,101 INFO  [main] server.Server: Started @9021ms',
  '2026-11-29T03:45:54,000 WARN  [qtp1-9] server.HttpChannelState: unhandled due to prior sendError',
  '2026-11-29T03:45:55,000 ERROR [qtp473073770-22] rest.ScannerResource: Exception occurred while processing http://127.0.0.1:8081/t33/scanner : ',
].join('\n');

void test('digestLog counts ERROR and WARN lines by shape, most frequent first, with the first line of each', () => {
  const d = digestLog(LOG);
  assert.deepEqual(
    d.map((s) => s.count),
    [3, 1],
  );
  const [first, second] = d.map((s) => s.example);
  assert.match(first ?? '', /03:45:52,857 ERROR .*\/t1\/scanner/);
  assert.match(second ?? '', /HttpChannelState/);
});

void test('digestLog leaves out INFO, continuation lines and anything past the limit', () => {
  assert.deepEqual(digestLog('2026-11-29T03:45:53,101 INFO  [main] x: y\n\tat a.b(C.java:1)\nplain text'), []);
  assert.equal(digestLog(LOG, 1).length, 1);
});
