// Row operations against the live HBase REST gateway.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { column } from '../../../src/hbase/index.ts';
import type { Row } from '../../../src/hbase/index.ts';
import { connect, tempTable } from './helpers.ts';

const A = column('cf', 'a');
const B = column('cf', 'b');
const BIN_Q = column('cf', Buffer.from([0x00, 0xff, 0x3a]));
const KEYS = [
  Buffer.from([0x00]),
  Buffer.from([0xff]),
  Buffer.from([0x00, 0xff, 0x2f, 0x2b, 0x3f, 0xc3, 0xa9, 0x00]),
  Buffer.from('a/b+c?d=e&f%20g,h*i'),
  Buffer.from('zürich 😀'),
  Buffer.from('regions', 'base64url'), // base64url is exactly "regions"
  Buffer.from('multigetAA', 'base64url'), // base64url starts with "multiget"
];
const T1 = 1_700_000_000_001;
const T2 = 1_700_000_000_002;

function cellValues(row: Row | null): string[] {
  return (row?.cells ?? []).map((c) => `${c.column.toString('hex')}@${c.timestamp}=${c.value.toString('hex')}`);
}

test('put + get round-trip binary keys, binary qualifiers, empty values and explicit timestamps', async (t) => {
  const { client } = await connect(t);
  const table = await tempTable(t, client);
  await client.put(
    table,
    KEYS.map((row, i) => ({
      row,
      cells: [
        { column: A, value: Buffer.from([0x00, 0xff, i]), timestamp: T1 },
        { column: BIN_Q, value: Buffer.alloc(0), timestamp: T2 },
        { column: column('m', 'ü'), value: Buffer.from('grüße'), timestamp: T2 },
      ],
    })),
  );
  for (const [i, row] of KEYS.entries()) {
    const got = await client.get(table, row);
    assert.ok(got, `row ${row.toString('hex')}`);
    assert.deepEqual(got.row, row);
    const byCol = new Map(got.cells.map((c) => [c.column.toString('hex'), c]));
    assert.deepEqual(byCol.get(A.toString('hex'))?.value, Buffer.from([0x00, 0xff, i]));
    assert.equal(byCol.get(A.toString('hex'))?.timestamp, T1);
    assert.deepEqual(byCol.get(BIN_Q.toString('hex'))?.value, Buffer.alloc(0));
    assert.equal(byCol.get(BIN_Q.toString('hex'))?.timestamp, T2);
    assert.equal(byCol.get(column('m', 'ü').toString('hex'))?.value.toString(), 'grüße');
  }
});

test('get: 404 → null, columns, time range and maxVersions', async (t) => {
  const { client } = await connect(t);
  const table = await tempTable(t, client);
  const row = Buffer.from([0x00, 0xff]);
  assert.equal(await client.get(table, row), null);
  await client.put(table, [
    { row, cells: [1, 2, 3].map((n) => ({ column: A, value: Buffer.from(`v${n}`), timestamp: 1000 * n })) },
    { row, cells: [{ column: B, value: Buffer.from('b'), timestamp: 2000 }] },
  ]);
  assert.deepEqual(cellValues(await client.get(table, row, { columns: [A] })), [`${A.toString('hex')}@3000=${Buffer.from('v3').toString('hex')}`]);
  const versions = await client.get(table, row, { columns: [A], maxVersions: 3 });
  assert.deepEqual(
    versions?.cells.map((c) => c.timestamp),
    [3000, 2000, 1000],
  );
  const ranged = await client.get(table, row, { timeRange: { from: 1500, to: 2500 } });
  assert.deepEqual(
    ranged?.cells.map((c) => `${c.qualifier.toString()}@${c.timestamp}`),
    ['a@2000', 'b@2000'],
  );
  assert.equal(await client.get(table, row, { timeRange: { from: 5000, to: 6000 } }), null);
  assert.deepEqual(await client.get(table, row, { columns: [column('m')] }), null);
});

test('multiGet (e=b64) returns rows aligned with the request, null for missing ones', async (t) => {
  const { client, spy } = await connect(t);
  const table = await tempTable(t, client);
  await client.put(
    table,
    KEYS.map((row, i) => ({
      row,
      cells: [
        { column: A, value: Buffer.from([i]), timestamp: T1 },
        { column: B, value: Buffer.from('b'), timestamp: T1 },
      ],
    })),
  );
  const missing = Buffer.from([0x00, 0x00, 0x00]);
  const ask: Buffer[] = [KEYS[2] ?? missing, missing, ...KEYS];
  const res = await client.multiGet(table, ask);
  assert.equal(res.length, ask.length);
  assert.equal(res[1], null);
  for (const [i, k] of ask.entries()) {
    if (i === 1) continue;
    assert.deepEqual(res[i]?.row, k);
    assert.equal(res[i].cells.length, 2);
  }
  assert.ok(spy.log.some((e) => e.req.path.includes('/multiget?e=b64&row=')));
  // Per-row columns ride in each row spec.
  const onlyA = await client.multiGet(table, [KEYS[0] ?? missing], { columns: [A] });
  assert.deepEqual(
    onlyA[0]?.cells.map((c) => c.qualifier.toString()),
    ['a'],
  );
  // maxVersions (v=) and a per-row time range.
  await client.put(table, [{ row: KEYS[0] ?? missing, cells: [{ column: A, value: Buffer.from('newer'), timestamp: T2 }] }]);
  const both = await client.multiGet(table, [KEYS[0] ?? missing], { columns: [A], maxVersions: 2 });
  assert.deepEqual(
    both[0]?.cells.map((c) => c.timestamp),
    [T2, T1],
  );
  const older = await client.multiGet(table, [KEYS[0] ?? missing], { columns: [A], maxVersions: 2, timeRange: { from: T1, to: T2 } });
  assert.deepEqual(
    older[0]?.cells.map((c) => c.timestamp),
    [T1],
  );
  // Split into several requests by URL length.
  const before = spy.log.length;
  const chunked = await client.multiGet(table, KEYS, { maxUrlLength: 60 });
  assert.ok(spy.log.length - before > 1);
  assert.deepEqual(
    chunked.map((r) => r?.row),
    KEYS,
  );
  assert.deepEqual(await client.multiGet(table, [missing]), [null]);
});

test('deleteRow: whole row, selected columns, versions up to a timestamp', async (t) => {
  const { client } = await connect(t);
  const table = await tempTable(t, client);
  const [r1, r2, r3] = [Buffer.from([0x00, 0x01]), Buffer.from([0xff, 0x02]), Buffer.from('regions', 'base64url')];
  const cells = [
    { column: A, value: Buffer.from('a1'), timestamp: 1000 },
    { column: A, value: Buffer.from('a2'), timestamp: 2000 },
    { column: B, value: Buffer.from('b'), timestamp: 2000 },
  ];
  await client.put(
    table,
    [r1, r2, r3].map((row) => ({ row, cells })),
  );
  await client.deleteRow(table, r1);
  assert.equal(await client.get(table, r1), null);
  await client.deleteRow(table, r2, { columns: [A] });
  assert.deepEqual(
    (await client.get(table, r2))?.cells.map((c) => c.qualifier.toString()),
    ['b'],
  );
  await client.deleteRow(table, r3, { timestamp: 1000 });
  const left = await client.get(table, r3, { maxVersions: 5 });
  assert.deepEqual(
    left?.cells.map((c) => `${c.qualifier.toString()}@${c.timestamp}`),
    ['a@2000', 'b@2000'],
  );
  await client.deleteRow(table, Buffer.from('never-existed'));
});

test('checkAndPut: success, failure (304 → false), and "absent" check', async (t) => {
  const { client } = await connect(t);
  const table = await tempTable(t, client);
  const row = Buffer.from([0x00, 0xff, 0x00]);
  const v = (s: string): Buffer => Buffer.from(s);
  // Newer than the server-stamped 'first' so that it becomes the version the next check reads.
  const future = Date.now() + 3_600_000;
  assert.equal(await client.checkAndPut(table, { row, cells: [{ column: A, value: v('first') }], check: { column: A, value: null } }), true);
  assert.equal(await client.checkAndPut(table, { row, cells: [{ column: A, value: v('again') }], check: { column: A, value: null } }), false);
  assert.equal(
    await client.checkAndPut(table, {
      row,
      cells: [
        { column: A, value: v('second'), timestamp: future },
        { column: B, value: v('side') },
      ],
      check: { column: A, value: v('first') },
    }),
    true,
  );
  assert.equal(await client.checkAndPut(table, { row, cells: [{ column: A, value: v('third') }], check: { column: A, value: v('first') } }), false);
  const got = await client.get(table, row);
  assert.deepEqual(
    got?.cells.map((c) => `${c.qualifier.toString()}=${c.value.toString()}`),
    ['a=second', 'b=side'],
  );
  assert.equal(got.cells[0]?.timestamp, future);
});

test('checkAndDelete: success, failure (304 → false), default and explicit delete cells', async (t) => {
  const { client } = await connect(t);
  const table = await tempTable(t, client);
  const row = Buffer.from([0xff, 0x00, 0xff]);
  const v = (s: string): Buffer => Buffer.from(s);
  await client.put(table, [
    {
      row,
      cells: [
        { column: A, value: v('x') },
        { column: B, value: v('y') },
        { column: column('m', 'z'), value: v('z') },
      ],
    },
  ]);
  assert.equal(await client.checkAndDelete(table, { row, check: { column: A, value: v('nope') } }), false);
  assert.equal((await client.get(table, row))?.cells.length, 3);
  // Explicit cells: a family and a column; the check column itself stays.
  assert.equal(await client.checkAndDelete(table, { row, check: { column: A, value: v('x') }, deleteCells: [{ column: column('m') }, { column: B }] }), true);
  assert.deepEqual(
    (await client.get(table, row))?.cells.map((c) => c.column.toString()),
    ['cf:a'],
  );
  // Default: the check column is deleted.
  assert.equal(await client.checkAndDelete(table, { row, check: { column: A, value: v('x') } }), true);
  assert.equal(await client.get(table, row), null);
});

test('namespace option qualifies bare table names', async (t) => {
  const { client } = await connect(t);
  const table = await tempTable(t, client);
  const { client: nsClient, spy } = await connect(t, { namespace: 'default' });
  await nsClient.put(table, [{ row: Buffer.from([0x01]), cells: [{ column: A, value: Buffer.from('ns'), timestamp: T1 }] }]);
  assert.ok(spy.log.some((e) => e.req.path === `/default:${table}/fakerow`));
  assert.equal((await client.get(table, Buffer.from([0x01])))?.cells[0]?.value.toString(), 'ns');
});
