// Error classification end to end: real gateway errors, a closed port and an expired deadline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HBaseError, HBaseRestClient, column, isRetriable } from '../../../src/hbase/index.ts';
import { connect, onCleanup, restUrl, tempTable } from './helpers.ts';

const CELLS = [{ row: Buffer.from([0x00, 0xff]), cells: [{ column: column('cf', 'a'), value: Buffer.from('v'), timestamp: 1 }] }];

test('put to a missing table → HBASE_TABLE_NOT_FOUND, not retriable, names op and table', async (t) => {
  const { client } = await connect(t);
  await assert.rejects(client.put('it_hbase_does_not_exist', CELLS), (e: unknown) => {
    assert.ok(e instanceof HBaseError);
    assert.equal(e.code, 'HBASE_TABLE_NOT_FOUND');
    assert.equal(e.status, 404);
    assert.equal(e.retriable, false);
    assert.equal(isRetriable(e), false);
    assert.equal(e.op, 'put');
    assert.equal(e.table, 'it_hbase_does_not_exist');
    assert.match(e.message, /put on table 'it_hbase_does_not_exist' failed: HTTP 404/);
    assert.match(e.body ?? '', /TableNotFoundException/);
    return true;
  });
});

test('unknown column family → HBASE_NOT_FOUND; malformed filter → HBASE_BAD_REQUEST; both permanent', async (t) => {
  const { client } = await connect(t);
  const table = await tempTable(t, client);
  await assert.rejects(
    client.put(table, [{ row: Buffer.from('r'), cells: [{ column: column('nofam', 'q'), value: Buffer.from('v') }] }]),
    (e: unknown) => e instanceof HBaseError && e.code === 'HBASE_NOT_FOUND' && !e.retriable && /NoSuchColumnFamilyException/.test(e.message),
  );
  await assert.rejects(
    (async () => {
      for await (const r of client.scan(table, { filter: '{"type":"NoSuchFilter"}' })) assert.fail(String(r.row));
    })(),
    (e: unknown) => e instanceof HBaseError && e.code === 'HBASE_BAD_REQUEST' && !e.retriable && e.op === 'scan',
  );
});

test('closed port → HBASE_NETWORK, retriable', async (t) => {
  const port = await new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port: p } = s.address() as AddressInfo;
      s.close(() => {
        resolve(p);
      });
    });
  });
  restUrl(); // the suite still requires the gateway to be configured
  const client = new HBaseRestClient({ baseUrl: `http://127.0.0.1:${port}`, defaultDeadlineMs: 5_000 });
  onCleanup(t, () => client.close());
  await assert.rejects(client.get('t', Buffer.from('r')), (e: unknown) => {
    assert.ok(e instanceof HBaseError);
    assert.equal(e.code, 'HBASE_NETWORK');
    assert.equal(e.retriable, true);
    assert.equal(isRetriable(e), true);
    assert.equal(e.op, 'get');
    assert.match(e.message, /ECONNREFUSED/);
    return true;
  });
  await assert.rejects(client.version(), (e: unknown) => isRetriable(e));
});

test('deadline expiry → HBASE_TIMEOUT, retriable (server that never answers)', async (t) => {
  const hanging: Server = createServer(() => {
    /* never respond */
  });
  await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
  onCleanup(
    t,
    () =>
      new Promise<void>((resolve) => {
        hanging.closeAllConnections();
        hanging.close(() => {
          resolve();
        });
      }),
  );
  const { port } = hanging.address() as AddressInfo;
  const client = new HBaseRestClient({ baseUrl: `http://127.0.0.1:${port}`, defaultDeadlineMs: 60_000 });
  onCleanup(t, () => client.close());
  const started = Date.now();
  await assert.rejects(client.get('t', Buffer.from('r'), { deadlineMs: 200 }), (e: unknown) => {
    assert.ok(e instanceof HBaseError);
    assert.equal(e.code, 'HBASE_TIMEOUT');
    assert.equal(e.retriable, true);
    assert.match(e.message, /deadline of 200 ms exceeded/);
    return true;
  });
  assert.ok(Date.now() - started < 5_000);
});

test('deadline also covers a response body that stalls after the headers', async (t) => {
  const stalling: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
    res.write('{"Row":[');
  });
  await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve));
  onCleanup(
    t,
    () =>
      new Promise<void>((resolve) => {
        stalling.closeAllConnections();
        stalling.close(() => {
          resolve();
        });
      }),
  );
  const { port } = stalling.address() as AddressInfo;
  const client = new HBaseRestClient({ baseUrl: `http://127.0.0.1:${port}`, defaultDeadlineMs: 300 });
  onCleanup(t, () => client.close());
  await assert.rejects(client.get('t', Buffer.from('r')), (e: unknown) => e instanceof HBaseError && e.code === 'HBASE_TIMEOUT' && isRetriable(e));
});
