// Window generations (src/rollup/generations.ts): every put of windows is followed by a new token for
// each bucket whose windows it wrote (after the put: a reader that read the old token before the
// put sees a new one after it), marker rows bump nothing, and the job, the backfill and delete bump.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bucketsOfWindowRows, generationsOf, GENERATIONS_ROW, putWindowRows } from '../../../src/rollup/generations.ts';
import { putRowOf, type PutRow } from '../../../src/rollup/fold.ts';
import { markerRow } from '../../../src/rollup/marker.ts';
import { RollupJob } from '../../../src/rollup/job.ts';
import { FakeHBase } from '../../support/fake-hbase.ts';
import { DAY0, HOUR, markEvents, readMetrics, settings, silentLog, writeEvents } from './job-fixture.ts';

const S = settings(['1m', '1h']);

function summaryRow(id: string, windowStart: number): PutRow {
  return { row: S.keyspace.rollupKey({ id, windowSec: 60, windowStart }), cells: [{ column: Buffer.from('r1m:temp'), value: Buffer.alloc(8) }] };
}

void test('putWindowRows: the put first, then one new token per bucket of the windows; markers bump nothing', async () => {
  const calls: { table: string; rows: readonly PutRow[] }[] = [];
  const port = {
    put: (table: string, rows: readonly PutRow[]): Promise<void> => {
      calls.push({ table, rows });
      return Promise.resolve();
    },
  };
  const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
  const rows = ids.map((id) => summaryRow(id, DAY0));
  const marker = putRowOf(markerRow({ id: 'a', windowSec: 3600, windowStart: DAY0 }, { keyspace: S.keyspace, family: 'r', stamp: 1 }));
  await putWindowRows(port, S, [...rows, marker]);
  assert.equal(calls.length, 2);
  const [put, bump] = calls as [(typeof calls)[number], (typeof calls)[number]];
  assert.equal(put.table, 'r', 'the windows first');
  assert.equal(bump.table, 'm', 'then the generations row');
  assert.ok(bump.rows[0]?.row.equals(GENERATIONS_ROW));
  const buckets = new Set(ids.map((id) => S.keyspace.baseSalt(id)));
  assert.deepEqual(new Set(bump.rows[0]?.cells.map((c) => Number(c.column.toString('latin1').split(':')[1]))), buckets);
  assert.deepEqual(bucketsOfWindowRows([marker], S.keyspace), new Set(), 'a marker row is not a window');
  calls.length = 0;
  await putWindowRows(port, S, [marker]);
  assert.equal(calls.length, 1, 'markers alone: no bump');
});

void test('the job bumps the buckets it summarised; a second bump of a bucket is a new token', async () => {
  const store = new FakeHBase();
  const evs = [
    { id: 'a', ts: DAY0 + 5, metric: 'temp', value: 1 },
    { id: 'q', ts: DAY0 + HOUR + 7, metric: 'temp', value: 2 },
  ];
  await writeEvents(store, S, evs);
  await markEvents(store, S, evs);
  const job = (): RollupJob => new RollupJob({ store, settings: S, metrics: readMetrics(S).metrics, log: silentLog, now: () => DAY0 + 3 * HOUR });
  assert.deepEqual(generationsOf(await store.get('m', GENERATIONS_ROW)), new Map(), 'none before any window');
  assert.equal((await job().run()).ok, true);
  const first = generationsOf(await store.get('m', GENERATIONS_ROW));
  assert.deepEqual(new Set(first.keys()), new Set(['a', 'q'].map((id) => S.keyspace.baseSalt(id))));
  // a late event into a's summarised minute: the job's rerun writes a's bucket again
  const late = [{ id: 'a', ts: DAY0 + 9, metric: 'temp', value: 5 }];
  await writeEvents(store, S, late);
  await markEvents(store, S, late);
  assert.equal((await job().run()).ok, true);
  const second = generationsOf(await store.get('m', GENERATIONS_ROW));
  const bucket = S.keyspace.baseSalt('a');
  assert.notEqual(second.get(bucket), first.get(bucket), "a's bucket has a new token");
  if (S.keyspace.baseSalt('q') !== bucket)
    assert.equal(second.get(S.keyspace.baseSalt('q')), first.get(S.keyspace.baseSalt('q')), "q's bucket, not written again, kept its token");
});
