// UndiciTransport.close against a local HTTP server that never answers one request: the close waits
// its grace, then aborts what is still in flight, so a shutdown is not held by a call HBase never answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HBaseError } from '../../../src/hbase/index.ts';
import { UndiciTransport } from '../../../src/hbase/undici-transport.ts';

void test('close() aborts a request still in flight after its grace, and answered requests are unaffected', async () => {
  const parked: ServerResponse[] = [];
  const server = createServer((req, res) => {
    if (req.url === '/stuck') parked.push(res);
    else res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const t = new UndiciTransport({ origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    const answered = await t.request({ method: 'GET', path: '/fine', headers: {}, deadlineMs: 60_000 });
    assert.equal(answered.body.toString(), 'ok');
    const stuck = t.request({ method: 'GET', path: '/stuck', headers: {}, deadlineMs: 600_000 });
    const outcome = stuck.then(
      () => 'answered',
      (e: unknown) => e,
    );
    while (parked.length === 0) await new Promise((r) => setTimeout(r, 10));
    await t.close(50);
    const err = await outcome;
    assert.ok(err instanceof HBaseError, `the stuck request was aborted: ${String(err)}`);
    await assert.rejects(
      t.request({ method: 'GET', path: '/fine', headers: {}, deadlineMs: 1000 }),
      (e: unknown) => e instanceof HBaseError && e.code === 'HBASE_CLOSED',
    );
  } finally {
    for (const res of parked) res.destroy();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});
