import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RollupJob } from '../../../src/rollup/job.ts';
import { markerRow } from '../../../src/rollup/marker.ts';
import { putRowOf } from '../../../src/rollup/fold.ts';
import { summariesOfRows } from './brute.ts';
import { FakeHBase } from '../../support/fake-hbase.ts';
import { DAY0, HOUR, markerRows, readMetrics, settings, silentLog, writeEvents } from './job-fixture.ts';

const NOW = DAY0 + 5 * 24 * HOUR;
const SETTLE = 120_000;

void test('the job leaves ingest markers younger than markerSettleMs for a later run; the cascade is not delayed', async () => {
  const s = settings(['1m', '1h'], { markerSettleMs: SETTLE });
  const store = new FakeHBase();
  const t0 = DAY0 + 10 * HOUR; // long closed at NOW
  await writeEvents(store, s, [
    { id: 'old', ts: t0 + 5, metric: 'x', value: 1 },
    { id: 'fresh', ts: t0 + 7, metric: 'x', value: 2 },
  ]);
  // Both windows are closed; one marker was stamped 200 s ago, the other 30 s ago (ingest catching up).
  const mark = (id: string, stamp: number): Promise<void> =>
    store.put(s.rollupTable, [putRowOf(markerRow({ id, windowSec: 60, windowStart: t0 }, { keyspace: s.keyspace, family: s.rollupFamily, stamp }))]);
  await mark('old', NOW - 200_000);
  await mark('fresh', NOW - 30_000);
  let now = NOW;
  const { metrics } = readMetrics(s);
  const job = new RollupJob({ store, settings: s, metrics, log: silentLog, now: () => now });

  const first = await job.run();
  const [fine, hour] = first.sizes;
  assert.ok(fine !== undefined && hour !== undefined);
  assert.equal(fine.pending, 2);
  assert.equal(fine.settling, 1, 'the fresh marker settles');
  assert.equal(fine.written, 1);
  assert.equal(hour.written, 1, "the job's own 1h marker (stamped now) is taken in the same run");
  assert.equal(markerRows(store, s).length, 1, 'the fresh marker is still there');
  let got = summariesOfRows(store.rows(s.rollupTable));
  assert.equal(got.get(`old|60|${t0}|x`)?.sum, 1);
  assert.equal(got.has(`fresh|60|${t0}|x`), false);

  now = NOW + SETTLE - 30_000; // the fresh marker is now exactly markerSettleMs old
  const second = await job.run();
  const [fine2] = second.sizes;
  assert.ok(fine2 !== undefined);
  assert.equal(fine2.settling, 0);
  assert.equal(fine2.written, 1);
  assert.deepEqual(markerRows(store, s), []);
  got = summariesOfRows(store.rows(s.rollupTable));
  assert.equal(got.get(`fresh|60|${t0}|x`)?.sum, 2);
  assert.equal(got.get(`fresh|3600|${t0}|x`)?.sum, 2);
});
