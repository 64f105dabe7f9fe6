// Puts with protobuf CellSet bodies (the default) against the live gateway: what JSON reads back is
// byte for byte what was written (binary keys with 0x00/0xff, explicit timestamps past 2^32, empty
// values), and the JSON encoding still writes the same cells.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HBaseRestClient } from '../../../src/hbase/index.ts';
import { connect, onCleanup, restUrl, tempTable } from './helpers.ts';

const rows = Array.from({ length: 300 }, (_v, i) => ({
  row: Buffer.concat([Buffer.from([i % 16, 0x00, 0xff]), Buffer.from(`id-${i}`), Buffer.from([0x00, 0xff, 0x80])]),
  cells: [
    { column: Buffer.from('cf:v'), value: Buffer.from([0x00, 0xff, i % 256, 0x7f]), timestamp: 1_795_340_000_000 + i },
    { column: Buffer.from('m:empty'), value: Buffer.alloc(0), timestamp: 1_795_340_000_000 + i },
  ],
}));

test('protobuf puts read back byte for byte; JSON puts write the same cells', async (t) => {
  const { client, spy } = await connect(t);
  const proto = await tempTable(t, client);
  const json = await tempTable(t, client);
  await client.put(proto, rows);
  const put = spy.log.find((e) => e.req.method === 'PUT' && e.req.path === `/${proto}/fakerow`);
  assert.equal(put?.req.headers['content-type'], 'application/x-protobuf');

  const jsonClient = new HBaseRestClient({ baseUrl: restUrl(), defaultDeadlineMs: 30_000, putEncoding: 'json' });
  onCleanup(t, () => jsonClient.close());
  await jsonClient.put(json, rows);

  for (const table of [proto, json]) {
    const got = await client.multiGet(
      table,
      rows.map((r) => r.row),
    );
    for (const [i, r] of rows.entries()) {
      const row = got[i];
      assert.ok(row !== null && row !== undefined, `${table}: row ${i} missing`);
      assert.ok(row.row.equals(r.row));
      const byColumn = new Map(row.cells.map((c) => [c.column.toString('latin1'), c]));
      for (const c of r.cells) {
        const cell = byColumn.get(c.column.toString('latin1'));
        assert.ok(cell !== undefined, `${table}: row ${i} lacks ${c.column.toString()}`);
        assert.ok(cell.value.equals(c.value), `${table}: row ${i} ${c.column.toString()} value`);
        assert.equal(cell.timestamp, c.timestamp);
      }
    }
  }
});
