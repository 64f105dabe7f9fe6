// The benchmark's OpenTSDB planning: event → point, the salt split points, the TSD's tables and
// configuration, query paths and answers, and the CPU arithmetic.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateEvents } from '../../../src/demo/generate.ts';
import {
  checkPutSummary,
  countPoints,
  timedOutOnly,
  cpuMsPer1000,
  queryPath,
  saltSplits,
  toOpenTsdbPoint,
  tsdConfig,
  tsdFamilies,
  tsdTables,
} from '../../../scripts/lib/opentsdb/plan.ts';

test('an event becomes a point: its metric, ms timestamp (shifted), value, and tags id + the event tags', () => {
  const e = { id: 'sensor-00003', ts: 1_700_000_000_123, metric: 'hum', value: 42.5, tags: { site: 'site-3', rack: 'rack-3' } };
  assert.deepEqual(toOpenTsdbPoint(e), {
    metric: 'hum',
    timestamp: 1_700_000_000_123,
    value: 42.5,
    tags: { id: 'sensor-00003', site: 'site-3', rack: 'rack-3' },
  });
  assert.equal(toOpenTsdbPoint(e, -86_400_000).timestamp, 1_699_913_600_123);
  const [g] = [...generateEvents({ count: 1, ids: 10, startTs: 5, stepMs: 1, seed: 42 })];
  assert.ok(g !== undefined);
  const p = toOpenTsdbPoint(g);
  assert.equal(p.tags['id'], g.id);
  assert.equal(p.tags['site'], g.tags['site']);
});

test('salt splits: one region per bucket, bucket numbers 1..B-1 in width bytes, big-endian', () => {
  assert.deepEqual(
    saltSplits(16).map((b) => b.toString('hex')),
    ['01', '02', '03', '04', '05', '06', '07', '08', '09', '0a', '0b', '0c', '0d', '0e', '0f'],
  );
  assert.deepEqual(saltSplits(1), []);
  assert.deepEqual(
    saltSplits(3, 2).map((b) => b.toString('hex')),
    ['0001', '0002'],
  );
  assert.throws(() => saltSplits(257), /1\.\.256/);
  assert.throws(() => saltSplits(4, 0), /width/);
  // every split is strictly increasing, as the admin tool requires
  const s = saltSplits(200);
  for (let i = 1; i < s.length; i++) assert.ok(Buffer.compare(s[i - 1] ?? Buffer.alloc(0), s[i] ?? Buffer.alloc(0)) < 0);
});

test('tables and families as create_table.sh makes them; the config names them and the salt', () => {
  const t = tsdTables('bench_x');
  assert.deepEqual(t, { data: 'bench_x_tsdb', uid: 'bench_x_tsdb_uid', tree: 'bench_x_tsdb_tree', meta: 'bench_x_tsdb_meta' });
  assert.deepEqual(
    tsdFamilies(t).map((f) => [f.table, f.families.join('+'), f.salted]),
    [
      ['bench_x_tsdb', 't', true],
      ['bench_x_tsdb_uid', 'id+name', false],
      ['bench_x_tsdb_tree', 't', false],
      ['bench_x_tsdb_meta', 'name', false],
    ],
  );
  const conf = tsdConfig({ port: 14242, zkQuorum: '127.0.0.1:2181', tables: t, buckets: 16, staticRoot: '/s', cacheDir: '/c', maxRequestBytes: 1 << 20 });
  for (const line of [
    'tsd.storage.salt.width = 1',
    'tsd.storage.salt.buckets = 16',
    'tsd.storage.hbase.data_table = bench_x_tsdb',
    'tsd.storage.hbase.uid_table = bench_x_tsdb_uid',
    'tsd.http.request.enable_chunked = true',
    'tsd.http.request.max_chunk = 1048576',
    'tsd.storage.enable_compaction = false',
    'tsd.network.port = 14242',
  ]) {
    assert.ok(conf.split('\n').includes(line), line);
  }
});

test('query paths: one m= per metric with the tag filter, encoded; answers counted by dps', () => {
  assert.equal(
    queryPath({ aggregator: 'sum', metrics: ['temp'], filter: { id: 'sensor-00020' }, start: 1, end: 2 }),
    '/api/query?start=1&end=2&ms=true&m=sum%3Atemp%7Bid%3Dsensor-00020%7D',
  );
  assert.equal(queryPath({ aggregator: 'none', metrics: ['a', 'b'], filter: { site: 's' }, start: 1, end: 2 }).split('&m=').length, 3);
  assert.equal(countPoints([{ dps: { 1: 1, 2: 2 } }, { dps: {} }, { dps: { 3: 0 } }]), 3);
  assert.throws(() => countPoints({ error: { code: 400 } }), /not an array/);
  assert.throws(() => countPoints([{}]), /without dps/);
});

test('a put summary must account for every point', () => {
  checkPutSummary(200, { success: 500, failed: 0, timeouts: 0 }, 500);
  checkPutSummary(204, null, 500);
  assert.throws(() => {
    checkPutSummary(200, { success: 499, failed: 1, timeouts: 0 }, 500);
  }, /stored 499 of 500/);
  assert.throws(() => {
    checkPutSummary(400, { error: 'x' }, 1);
  }, /answered 400/);
  // sent again: timeouts and nothing failed (a put is idempotent); not: a failure, an error, a success
  assert.equal(timedOutOnly(400, { success: 0, failed: 0, timeouts: 50 }), true);
  assert.equal(timedOutOnly(400, { success: 10, failed: 0, timeouts: 40 }), true);
  assert.equal(timedOutOnly(400, { success: 0, failed: 1, timeouts: 49 }), false);
  assert.equal(timedOutOnly(400, { error: 'x' }), false);
  assert.equal(timedOutOnly(200, { success: 50, failed: 0, timeouts: 0 }), false);
});

test('CPU ms per 1,000 units from two /proc readings', () => {
  assert.equal(cpuMsPer1000(1_000, 4_000, 200_000), 15);
  assert.ok(Number.isNaN(cpuMsPer1000(1, 2, 0)));
  assert.ok(Number.isNaN(cpuMsPer1000(5, 2, 10)), 'a counter that went backwards (another process) is no reading');
});
