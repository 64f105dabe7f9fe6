// Stateful scanners against the live HBase REST gateway.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HBaseError, column } from '../../../src/hbase/index.ts';
import type { HBaseRestClient, Row, ScanOptions } from '../../../src/hbase/index.ts';
import { connect, tempTable, type SpyTransport } from './helpers.ts';

const A = column('cf', 'a');
const B = column('cf', 'b');
const key = (i: number): Buffer => Buffer.from([0x00, i, 0xff]);

async function seed(client: HBaseRestClient, table: string, n: number): Promise<void> {
  await client.put(
    table,
    Array.from({ length: n }, (_, i) => ({
      row: key(i),
      cells: [
        { column: A, value: Buffer.from([i % 2]), timestamp: 1000 },
        { column: A, value: Buffer.from([0xee]), timestamp: 3000 },
        { column: B, value: Buffer.from(`b${i}`), timestamp: 2000 + i },
      ],
    })),
  );
}

async function collect(client: HBaseRestClient, table: string, opts: ScanOptions = {}): Promise<Row[]> {
  const rows: Row[] = [];
  for await (const r of client.scan(table, opts)) rows.push(r);
  return rows;
}

function scannerCalls(spy: SpyTransport, table: string): { method: string; path: string; status: number | undefined }[] {
  return spy.log.filter((e) => e.req.path.startsWith(`/${table}/scanner`)).map((e) => ({ method: e.req.method, path: e.req.path, status: e.status }));
}

test('full scan returns every row in key order with binary keys; scanner is deleted', async (t) => {
  const { client, spy } = await connect(t);
  const table = await tempTable(t, client);
  await seed(client, table, 12);
  const rows = await collect(client, table);
  assert.deepEqual(
    rows.map((r) => r.row),
    Array.from({ length: 12 }, (_, i) => key(i)),
  );
  // maxVersions defaults to 1: newest cf:a only.
  assert.deepEqual(
    rows[0]?.cells.map((c) => `${c.qualifier.toString()}@${c.timestamp}`),
    ['a@3000', 'b@2000'],
  );
  const calls = scannerCalls(spy, table);
  assert.equal(calls[0]?.method, 'PUT');
  assert.equal(calls[0].status, 201);
  assert.deepEqual(calls.at(-1), { method: 'DELETE', path: calls.at(-1)?.path, status: 200 });
});

test('start/stop rows + filter + time range + columns', async (t) => {
  const { client } = await connect(t);
  const table = await tempTable(t, client);
  await seed(client, table, 10);
  const rows = await collect(client, table, {
    startRow: key(2),
    stopRow: key(8), // exclusive
    columns: [A],
    timeRange: { from: 500, to: 1500 }, // only the a@1000 versions
    filter: {
      type: 'SingleColumnValueFilter',
      family: Buffer.from('cf'),
      qualifier: Buffer.from('a'),
      op: 'EQUAL',
      comparator: { type: 'BinaryComparator', value: Buffer.from([1]) },
      ifMissing: true,
    },
  });
  assert.deepEqual(
    rows.map((r) => r.row[1]),
    [3, 5, 7],
  );
  for (const r of rows)
    assert.deepEqual(
      r.cells.map((c) => [c.column.toString(), c.timestamp, c.value[0]]),
      [['cf:a', 1000, 1]],
    );
});

test('FilterList, MultiRowRangeFilter, raw filter JSON and maxVersions', async (t) => {
  const { client } = await connect(t);
  const table = await tempTable(t, client);
  await seed(client, table, 10);
  const ranged = await collect(client, table, {
    filter: {
      type: 'FilterList',
      op: 'MUST_PASS_ALL',
      filters: [
        {
          type: 'MultiRowRangeFilter',
          ranges: [
            { startRow: key(1), stopRow: key(3) },
            { startRow: key(6), stopRow: key(6), stopRowInclusive: true },
          ],
        },
        { type: 'KeyOnlyFilter' },
      ],
    },
  });
  assert.deepEqual(
    ranged.map((r) => r.row[1]),
    [1, 2, 6],
  );
  assert.ok(ranged.every((r) => r.cells.every((c) => c.value.length === 0)));
  const raw = await collect(client, table, { filter: JSON.stringify({ type: 'PrefixFilter', value: key(4).subarray(0, 2).toString('base64') }) });
  assert.deepEqual(
    raw.map((r) => r.row[1]),
    [4],
  );
  const versions = await collect(client, table, { startRow: key(0), stopRow: key(1), columns: [A], maxVersions: 5 });
  assert.deepEqual(
    versions[0]?.cells.map((c) => c.timestamp),
    [3000, 1000],
  );
});

test('small batch: rows split across responses are merged; limit stops early', async (t) => {
  const { client, spy } = await connect(t);
  const table = await tempTable(t, client);
  await seed(client, table, 6);
  const rows = await collect(client, table, { batch: 1, maxVersions: 5 });
  assert.equal(rows.length, 6);
  for (const r of rows) assert.equal(r.cells.length, 3);
  assert.ok(scannerCalls(spy, table).filter((c) => c.method === 'GET').length >= 18);
  const limited = await collect(client, table, { limit: 4, batch: 2 });
  assert.deepEqual(
    limited.map((r) => r.row[1]),
    [0, 1, 2, 3],
  );
  assert.equal(scannerCalls(spy, table).at(-1)?.method, 'DELETE');
});

test('early break deletes the scanner (server no longer knows it) and a second scan is fine', async (t) => {
  const { client, spy } = await connect(t);
  const table = await tempTable(t, client);
  await seed(client, table, 20);
  let seen = 0;
  for await (const r of client.scan(table, { batch: 3 })) {
    assert.deepEqual(r.row, key(seen));
    if (++seen === 2) break;
  }
  const calls = scannerCalls(spy, table);
  const del = calls.at(-1);
  assert.equal(del?.method, 'DELETE');
  assert.equal(del.status, 200);
  // The scanner id is gone on the server: a GET of it now answers 404.
  const probe = await spy.request({ method: 'GET', path: del.path, headers: { accept: 'application/json' }, deadlineMs: 5000 });
  assert.equal(probe.status, 404);
  assert.equal((await collect(client, table)).length, 20);
  assert.equal(scannerCalls(spy, table).filter((c) => c.method === 'PUT').length, 2);
  assert.equal(scannerCalls(spy, table).filter((c) => c.method === 'DELETE').length, 2);
});

test('scan of a missing table fails (not retriable) and still deletes its scanner', async (t) => {
  const { client, spy } = await connect(t);
  const table = 'it_hbase_missing_scan_table';
  await assert.rejects(collect(client, table), (e: unknown) => {
    assert.ok(e instanceof HBaseError);
    assert.equal(e.code, 'HBASE_NOT_FOUND');
    assert.equal(e.retriable, false);
    assert.match(e.message, /scan on table 'it_hbase_missing_scan_table'/);
    return true;
  });
  assert.equal(scannerCalls(spy, table).at(-1)?.method, 'DELETE');
});
