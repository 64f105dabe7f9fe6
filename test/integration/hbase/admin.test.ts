// Schema, regions, table listing, version and cluster status against the live gateway.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HBaseError } from '../../../src/hbase/index.ts';
import { connect, onCleanup, tempTable, uniqueTableName } from './helpers.ts';

const isCode =
  (code: string) =>
  (e: unknown): boolean =>
    e instanceof HBaseError && e.code === code && !e.retriable;

test('createTable / getSchema / updateSchema / deleteTable lifecycle', async (t) => {
  const { client, spy } = await connect(t);
  const table = uniqueTableName();
  onCleanup(t, () => client.deleteTable(table, { ignoreMissing: true }));
  assert.equal(await client.tableExists(table), false);
  assert.equal(
    await client.createTable({
      name: table,
      families: [{ name: 'cf', attributes: { VERSIONS: 3, BLOOMFILTER: 'ROWCOL' } }],
      attributes: { 'it.owner': 'tsi' },
    }),
    true,
  );
  assert.ok(spy.log.some((e) => e.req.method === 'PUT' && e.req.path === `/${table}/schema` && e.status === 201));
  assert.equal(await client.tableExists(table), true);
  assert.ok((await client.listTables()).includes(table));

  const schema = await client.getSchema(table);
  assert.equal(schema.name, table);
  assert.deepEqual(
    schema.families.map((f) => f.name),
    ['cf'],
  );
  assert.equal(schema.families[0]?.attributes['VERSIONS'], '3');
  assert.equal(schema.families[0].attributes['BLOOMFILTER'], 'ROWCOL');
  assert.equal(schema.attributes['it.owner'], 'tsi');

  await assert.rejects(client.createTable({ name: table, families: [{ name: 'x' }] }), isCode('HBASE_TABLE_EXISTS'));
  assert.equal(await client.createTable({ name: table, families: [{ name: 'x' }] }, { ifExists: 'skip' }), false);

  // POST: add a family, modify another; unlisted families stay.
  await client.updateSchema(table, { families: [{ name: 'm', attributes: { VERSIONS: 7 } }] });
  await client.updateSchema(table, { families: [{ name: 'cf', attributes: { VERSIONS: 9 } }] });
  const updated = await client.getSchema(table);
  const fam = new Map(updated.families.map((f) => [f.name, f.attributes]));
  assert.deepEqual([...fam.keys()].sort(), ['cf', 'm']);
  assert.equal(fam.get('m')?.['VERSIONS'], '7');
  assert.equal(fam.get('cf')?.['VERSIONS'], '9');

  // PUT over an existing table replaces the family set.
  assert.equal(await client.createTable({ name: table, families: [{ name: 'm' }, { name: 'n' }] }, { ifExists: 'replace' }), true);
  assert.deepEqual((await client.getSchema(table)).families.map((f) => f.name).sort(), ['m', 'n']);

  assert.equal(await client.deleteTable(table), true);
  assert.equal(await client.tableExists(table), false);
  assert.ok(!(await client.listTables()).includes(table));
  assert.equal(await client.deleteTable(table, { ignoreMissing: true }), false);
  await assert.rejects(client.deleteTable(table), isCode('HBASE_TABLE_NOT_FOUND'));
  await assert.rejects(client.getSchema(table), isCode('HBASE_TABLE_NOT_FOUND'));
});

test('regions of a table: one region spanning the whole key space', async (t) => {
  const { client } = await connect(t);
  const table = await tempTable(t, client);
  const regions = await client.regions(table);
  assert.equal(regions.length, 1);
  const [r] = regions;
  assert.ok(r);
  assert.equal(r.table, table);
  assert.ok(r.name.startsWith(`${table},,`), r.name);
  assert.ok(Number.isSafeInteger(r.id) && r.id > 0);
  assert.deepEqual(r.startKey, Buffer.alloc(0));
  assert.deepEqual(r.endKey, Buffer.alloc(0));
  assert.match(r.location, /^.+:\d+$/);
  await assert.rejects(client.regions('it_hbase_no_such_table_regions'), isCode('HBASE_TABLE_NOT_FOUND'));
});

test('version and cluster status', async (t) => {
  const { client } = await connect(t);
  const version = await client.version();
  assert.match(version, /^\d+\.\d+\.\d+/);
  const status = await client.clusterStatus();
  assert.ok(status.liveNodes.length >= 1);
  assert.ok(Array.isArray(status.deadNodes));
  assert.ok(status.regions >= 1);
  const node = status.liveNodes[0];
  assert.ok(node);
  assert.match(node.name, /:\d+$/);
  assert.ok(node.maxHeapSizeMB > 0);
  const names = status.liveNodes.flatMap((n) => n.regions.map((r) => r.name.toString('latin1')));
  assert.ok(
    names.some((n) => n.startsWith('hbase:meta,')),
    names.join(' '),
  );
});
