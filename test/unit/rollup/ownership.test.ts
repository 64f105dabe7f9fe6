import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RollupJob } from '../../../src/rollup/job.ts';
import { formatRunReport, mergeReports } from '../../../src/rollup/run-report.ts';
import { bucketsOfPartitions, ownAll, type BucketOwnership } from '../../../src/rollup/ownership.ts';
import { bruteSummaries, sorted, summariesOfRows } from './brute.ts';
import { FakeHBase } from '../../support/fake-hbase.ts';
import { B, DAY0, HOUR, markEvents, markerRows, randomEvents, readMetrics, settings, silentLog, writeEvents } from './job-fixture.ts';

const NOW = DAY0 + 5 * 24 * HOUR;
const owning = (...buckets: number[]): BucketOwnership => ({ owned: () => new Set(buckets) });

void test('bucketsOfPartitions: partition p is bucket p; with fewer partitions bucket b goes with b mod P; extra partitions own nothing', () => {
  assert.deepEqual([...bucketsOfPartitions([0, 3], 4, 4)], [0, 3]);
  assert.deepEqual([...bucketsOfPartitions([1], 2, 4)], [1, 3]);
  assert.deepEqual([...bucketsOfPartitions([4, 5], 8, 4)], []);
  assert.deepEqual([...bucketsOfPartitions([], 4, 4)], []);
  assert.deepEqual([...ownAll(3).owned()], [0, 1, 2]);
  assert.throws(() => bucketsOfPartitions([0], 0, 4), /no partitions/);
});

async function marked(): Promise<{ store: FakeHBase; s: ReturnType<typeof settings>; events: ReturnType<typeof randomEvents> }> {
  const s = settings();
  const store = new FakeHBase();
  const events = randomEvents({ seed: 7, n: 600, ids: 24, from: DAY0 + 2 * HOUR, hours: 6 });
  await writeEvents(store, s, events);
  await markEvents(store, s, events);
  return { store, s, events };
}

void test('two runners owning disjoint halves: each works only its buckets, together they write what one runner writes, nothing twice', async () => {
  const { store, s, events } = await marked();
  const buckets = (rows: Buffer[]): number[] => [...new Set(rows.map((k) => k[0] as number))].sort();
  assert.deepEqual(buckets(markerRows(store, s)), [0, 1, 2, 3], 'the events marked every bucket');
  const a = readMetrics(s);
  const ja = new RollupJob({ store, settings: s, metrics: a.metrics, log: silentLog, now: () => NOW, ownership: owning(0, 1) });
  const ra = await ja.run();
  assert.deepEqual(ra.buckets, [0, 1]);
  assert.match(formatRunReport(ra), /^rollup run: buckets worked 2 of 4 \(0-1\), /);
  assert.equal((await a.metrics.rollupBucketsWorked.get()).values[0]?.value, 2);
  assert.ok(ra.ok);
  assert.deepEqual(buckets(markerRows(store, s)), [2, 3], "the other half's markers are left to their owner");
  const owned = (await a.metrics.rollupBucketOwned.get()).values.map((v) => `${v.labels.bucket}=${v.value}`).sort();
  assert.deepEqual(owned, ['0=1', '1=1', '2=0', '3=0']);
  const lagBuckets = (await a.metrics.rollupBucketLag.get()).values.map((v) => v.labels.bucket).sort();
  assert.deepEqual([...new Set(lagBuckets)], ['0', '1'], 'per-bucket lag only for owned buckets');

  const b = readMetrics(s);
  const rb = await new RollupJob({ store, settings: s, metrics: b.metrics, log: silentLog, now: () => NOW, ownership: owning(2, 3) }).run();
  assert.ok(rb.ok);
  assert.deepEqual(markerRows(store, s), [], 'no marker left');
  assert.deepEqual(sorted(summariesOfRows(store.rows(s.rollupTable))), sorted(bruteSummaries(events, [60, 3600])), 'the union = the summaries of the events');

  // the same data, one runner over every bucket: the same windows written, split between the two above
  const one = await marked();
  const r1 = await new RollupJob({ store: one.store, settings: one.s, metrics: readMetrics(one.s).metrics, log: silentLog, now: () => NOW }).run();
  assert.equal(r1.buckets.length, B);
  assert.equal(ra.written + rb.written, r1.written, 'windows written: split, none twice');
  assert.ok(ra.written > 0 && rb.written > 0, `both did a share (${ra.written} + ${rb.written})`);
  assert.equal(ra.remarked + rb.remarked, 0);
});

void test('a bucket taken away mid-run is left at the next page (its new owner finishes it), without an error', async () => {
  const { store, s, events } = await marked();
  let asks = 0;
  // owns everything for the first few asks, then nothing (a rebalance moved every bucket away)
  const moving: BucketOwnership = { owned: () => (++asks <= 6 ? ownAll(B).owned() : new Set()) };
  const r = await new RollupJob({ store, settings: s, metrics: readMetrics(s).metrics, log: silentLog, now: () => NOW, ownership: moving }).run();
  assert.equal(r.errors, 0);
  const left = markerRows(store, s).length;
  assert.ok(left > 0, 'markers left for the new owner');
  const rest = await new RollupJob({ store, settings: s, metrics: readMetrics(s).metrics, log: silentLog, now: () => NOW, ownership: ownAll(B) }).run();
  assert.ok(rest.ok);
  assert.deepEqual(markerRows(store, s), []);
  assert.deepEqual(sorted(summariesOfRows(store.rows(s.rollupTable))), sorted(bruteSummaries(events, [60, 3600])));
});

void test('mergeReports: two runs of one runner as one: counts added per size, the buckets of both, the outcome of the last', async () => {
  const { store, s } = await marked();
  const j = (o: BucketOwnership): RollupJob =>
    new RollupJob({ store, settings: s, metrics: readMetrics(s).metrics, log: silentLog, now: () => NOW, ownership: o });
  const first = await j(owning(2)).run();
  const second = await j(owning(0, 3)).run();
  const m = mergeReports(first, second);
  assert.equal(m.written, first.written + second.written);
  assert.deepEqual(m.buckets, [0, 2, 3]);
  assert.match(formatRunReport(m), /^rollup run: buckets worked 3 of 4 \(0 2-3\), /);
  assert.ok(m.ok);
  assert.deepEqual(
    m.sizes.map((x) => x.written),
    second.sizes.map((x, i) => x.written + (first.sizes[i]?.written ?? 0)),
  );
  assert.ok(m.durationMs >= second.durationMs);
  assert.equal(mergeReports(first, { ...second, aborted: true, ok: false }).ok, false);
});
