import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeClusterStatus, decodeClusterVersion, decodeRegions, decodeTableList, decodeTableSchema, encodeTableSchema } from '../../../src/hbase/index.ts';

test('decodeRegions (captured 2.6.1 TableInfo) → Buffers for keys', () => {
  const regions = decodeRegions(
    '{"name":"t","Region":[{"id":1795317576828,"startKey":"","endKey":"AP8=","location":"localhost:16020","name":"t,,1795317576828.e4bc."},' +
      '{"id":1795317576829,"startKey":"AP8=","endKey":"","location":"localhost:16020","name":"t,\\u0000,1795317576829.ab."}]}',
  );
  assert.equal(regions.length, 2);
  assert.deepEqual(regions[0], {
    table: 't',
    name: 't,,1795317576828.e4bc.',
    id: 1795317576828,
    startKey: Buffer.alloc(0),
    endKey: Buffer.from([0x00, 0xff]),
    location: 'localhost:16020',
  });
  assert.deepEqual(regions[1]?.startKey, Buffer.from([0x00, 0xff]));
  assert.deepEqual(decodeRegions('{"name":"t"}'), []);
});

test('decodeTableSchema splits families and table attributes', () => {
  const s = decodeTableSchema(
    '{"name":"t","ColumnSchema":[{"name":"cf","VERSIONS":"3","BLOCKCACHE":"true"},{"name":"m","TTL":"2147483647"}],' +
      '"IS_META":"false","hbase.store.file-tracker.impl":"DEFAULT","custom":7}',
  );
  assert.deepEqual(s, {
    name: 't',
    families: [
      { name: 'cf', attributes: { VERSIONS: '3', BLOCKCACHE: 'true' } },
      { name: 'm', attributes: { TTL: '2147483647' } },
    ],
    attributes: { IS_META: 'false', 'hbase.store.file-tracker.impl': 'DEFAULT', custom: '7' },
  });
});

test('encodeTableSchema stringifies attributes and rejects bad input', () => {
  const json = JSON.parse(
    encodeTableSchema({ name: 't', families: [{ name: 'cf', attributes: { VERSIONS: 3, IN_MEMORY: true } }], attributes: { owner: 'ingest' } }),
  ) as unknown;
  assert.deepEqual(json, { owner: 'ingest', name: 't', ColumnSchema: [{ VERSIONS: '3', IN_MEMORY: 'true', name: 'cf' }] });
  assert.throws(() => encodeTableSchema({ name: 't', families: [] }), RangeError);
  assert.throws(() => encodeTableSchema({ name: 't', families: [{ name: 'a:b' }] }), RangeError);
  assert.throws(() => encodeTableSchema({ name: 't', families: [{ name: 'cf', attributes: { name: 'x' } }] }), RangeError);
  assert.throws(() => encodeTableSchema({ name: 't', families: [{ name: 'cf' }], attributes: { ColumnSchema: 'x' } }), RangeError);
});

test('table list, version and cluster status', () => {
  assert.deepEqual(decodeTableList('{"table":[{"name":"t1"},{"name":"ns:t2"}]}'), ['t1', 'ns:t2']);
  assert.deepEqual(decodeTableList('{}'), []);
  assert.equal(decodeClusterVersion('{"Version":"2.6.1-hadoop3"}'), '2.6.1-hadoop3');
  const status = decodeClusterStatus(
    '{"LiveNodes":[{"name":"localhost:16020","startCode":1795317307729,"requests":27,"heapSizeMB":104,"maxHeapSizeMB":1024,' +
      '"Region":[{"name":"aGJhc2U6bWV0YSwsMQ==","stores":3,"storefiles":0,"storefileSizeMB":0,"storefileIndexSizeKB":0,' +
      '"readRequestsCount":8,"writeRequestsCount":10,"memStoreSizeMB":1}]}],"DeadNodes":["dead:16020"],"regions":3,"requests":28,"averageLoad":3.0}',
  );
  assert.equal(status.liveNodes.length, 1);
  assert.equal(status.liveNodes[0]?.name, 'localhost:16020');
  assert.equal(status.liveNodes[0].regions[0]?.name.toString(), 'hbase:meta,,1');
  assert.equal(status.liveNodes[0].regions[0].writeRequestsCount, 10);
  assert.deepEqual(status.deadNodes, ['dead:16020']);
  assert.equal(status.regions, 3);
  assert.equal(status.averageLoad, 3);
});
