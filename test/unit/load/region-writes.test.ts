import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createMetrics } from '../../../src/metrics/ingest-metrics.ts';
import type { Metrics } from '../../../src/metrics/ingest-metrics.ts';
import { encodedRegionName } from '../../../src/hbase/region-name.ts';
import { RegionMap, UNKNOWN_REGION } from '../../../src/load/region-map.ts';
import { RegionWrites, computeSkew } from '../../../src/load/region-writes.ts';
import { meteredRegionWrites, regionWritesObserver } from '../../../src/metrics/region-writes-metrics.ts';
import type { RegionInfo } from '../../../src/load/region-source.ts';
import { FakeSource, region, saltedRegions, seriesValue, silentLog } from './fixtures.ts';

const TABLE = 'tsi_data';
const saltByte = (k: Buffer): number | undefined => k[0];
const rowKey = (salt: number, id = 'dev'): Buffer => Buffer.concat([Buffer.from([salt]), Buffer.from(id)]);

void describe('computeSkew', () => {
  void it('is 1.0 for a perfectly even spread', () => {
    assert.equal(computeSkew(Array.from({ length: 16 }, () => 100)), 1);
    assert.equal(computeSkew([7]), 1);
  });

  void it('is the region count when all writes hit one region', () => {
    assert.equal(computeSkew([0, 0, 0, 500, ...Array.from({ length: 12 }, () => 0)]), 16);
    assert.equal(computeSkew([1, 0]), 2);
  });

  void it('is max / mean in between', () => {
    assert.equal(computeSkew([3, 1]), 1.5);
    assert.equal(computeSkew([17, ...Array.from({ length: 15 }, () => 1)]), 8.5);
  });

  void it('is 0 with no regions or no writes', () => {
    assert.equal(computeSkew([]), 0);
    assert.equal(computeSkew([0, 0, 0]), 0);
  });
});

interface Setup {
  metrics: Metrics;
  map: RegionMap;
  source: FakeSource;
  writes: RegionWrites;
  close: () => void;
  clock: { t: number };
}

/** `regions` null: the map is never loaded. */
async function setup(regions: RegionInfo[] | null = saltedRegions(TABLE, 16)): Promise<Setup> {
  const metrics = createMetrics(undefined, { defaultMetrics: false });
  const source = new FakeSource();
  const map = new RegionMap({ source, log: silentLog, staleDelayMs: 60_000 });
  const clock = { t: 1_000_000 };
  const { writes, close } = meteredRegionWrites(metrics, { regionMap: map, now: () => clock.t });
  if (regions !== null) {
    source.answer = regions;
    await map.refresh(TABLE);
  }
  return { metrics, map, source, writes, close, clock };
}

void describe('RegionWrites', () => {
  void it('counts rows per region and per salt bucket; all-in-one-region gives skew = region count', async (t) => {
    const { metrics, map, writes } = await setup();
    t.after(() => {
      map.stop();
    });
    const regions = map.regions(TABLE) ?? [];
    const hot = regions[3];
    assert.ok(hot !== undefined);
    writes.record(
      TABLE,
      Array.from({ length: 50 }, (_, i) => rowKey(3, `dev${i}`)),
      saltByte,
    );
    assert.equal(await seriesValue(metrics.regionWrites, { table: TABLE, region: encodedRegionName(hot.name), server: hot.server }), 50);
    assert.equal(await seriesValue(metrics.saltBucketWrites, { table: TABLE, bucket: '3' }), 50);
    assert.equal(writes.skew(TABLE), 16);
    assert.equal(await seriesValue(metrics.regionWriteSkew, { table: TABLE }), 16);
    assert.equal(await seriesValue(metrics.regionCount, { table: TABLE }), 16);
  });

  void it('an even writes gives skew 1.0; no bucket counted when bucketOf returns undefined', async () => {
    const { metrics, writes } = await setup();
    writes.record(
      TABLE,
      Array.from({ length: 16 }, (_, salt) => rowKey(salt)),
      () => undefined,
    );
    writes.record(
      TABLE,
      Array.from({ length: 16 }, (_, salt) => rowKey(salt, 'other')),
      () => undefined,
    );
    assert.equal(writes.skew(TABLE), 1);
    assert.deepEqual((await metrics.saltBucketWrites.get()).values, []);
    writes.record(TABLE, [], saltByte); // no-op
    assert.equal(writes.skew(TABLE), 1);
  });

  void it('slides the window with the injected clock (60 s in 12 slots of 5 s); no writes → 0', async () => {
    const { metrics, writes, clock } = await setup();
    const start = clock.t - (clock.t % 5000); // start of a slot
    clock.t = start;
    writes.record(
      TABLE,
      Array.from({ length: 16 }, () => rowKey(0)),
      saltByte,
    ); // hot: 16 rows in region 0
    clock.t = start + 30_000;
    writes.record(
      TABLE,
      Array.from({ length: 16 }, (_, salt) => rowKey(salt)),
      saltByte,
    ); // one per region
    assert.equal(writes.skew(TABLE), 8.5); // 17 / (32 / 16)
    clock.t = start + 59_999;
    assert.equal(writes.skew(TABLE), 8.5);
    clock.t = start + 60_000; // the first slot leaves the window
    assert.equal(writes.skew(TABLE), 1);
    clock.t = start + 90_000; // everything left
    assert.equal(writes.skew(TABLE), 0);
    // The gauge follows at scrape time even though nothing was recorded since.
    const text = await metrics.registry.metrics();
    assert.match(text, /^tsingest_instance_region_write_skew\{table="tsi_data"\} 0$/m);
    assert.match(text, /^tsingest_region_count\{table="tsi_data"\} 16$/m);
    // Counters are cumulative, not windowed.
    assert.equal(await seriesValue(metrics.saltBucketWrites, { table: TABLE, bucket: '0' }), 17);
  });

  void it('honours a custom window and rejects a bad one', async () => {
    const { metrics, map, clock } = await setup();
    const { writes } = meteredRegionWrites(metrics, { regionMap: map, now: () => clock.t, windowMs: 10_000, slots: 2 });
    clock.t = 0;
    writes.record(TABLE, [rowKey(1)], saltByte);
    clock.t = 9_999;
    assert.equal(writes.skew(TABLE), 16);
    clock.t = 10_000;
    assert.equal(writes.skew(TABLE), 0);
    assert.throws(() => new RegionWrites({ observer: regionWritesObserver(metrics), regionMap: map, windowMs: 0 }), RangeError);
    assert.throws(() => new RegionWrites({ observer: regionWritesObserver(metrics), regionMap: map, slots: 1.5 }), RangeError);
  });

  void it('counts rows outside the known regions as "unknown", leaves them out of the skew and marks the map stale', async () => {
    const { metrics, writes, map } = await setup(null);
    let stale = 0;
    const markStale = map.markStale.bind(map);
    map.markStale = (table: string) => {
      stale += 1;
      markStale(table);
    };
    writes.record(TABLE, [rowKey(1), rowKey(2)], saltByte);
    assert.equal(await seriesValue(metrics.regionWrites, { table: TABLE, region: UNKNOWN_REGION, server: UNKNOWN_REGION }), 2);
    assert.equal(writes.skew(TABLE), 0);
    assert.equal(await seriesValue(metrics.regionCount, { table: TABLE }), 0);
    assert.equal(stale, 1);
    map.stop();
  });

  void it('removes the series of regions that vanish (split) or move, and forgets their window counts', async () => {
    const { metrics, map, source, writes } = await setup(saltedRegions(TABLE, 2));
    const [r0, r1] = map.regions(TABLE) ?? [];
    assert.ok(r0 !== undefined && r1 !== undefined);
    writes.record(TABLE, [rowKey(0), rowKey(1, 'a'), rowKey(1, 'z')], saltByte);
    let text = await metrics.registry.metrics();
    assert.ok(text.includes(encodedRegionName(r0.name)));
    assert.ok(text.includes(encodedRegionName(r1.name)));

    // r1 splits; r0 moves to another server
    const left = region(TABLE, [0x01], [0x01, 0x6d], { server: 'rs1:16020', id: 1700000000001 });
    const right = region(TABLE, [0x01, 0x6d], [], { server: 'rs1:16020', id: 1700000000001 });
    const r0moved = { ...r0, server: 'rs9:16020' };
    source.answer = [r0moved, left, right];
    await map.refresh(TABLE);

    text = await metrics.registry.metrics();
    assert.ok(!text.includes(encodedRegionName(r1.name)), 'vanished region series removed');
    assert.ok(!text.includes(`server="${r0.server}"`), 'series under the old server removed');
    assert.match(text, /^tsingest_region_count\{table="tsi_data"\} 3$/m);
    // r1's window counts are gone; r0 (same region, new server) keeps its 1 write: [1, 0, 0] → 3
    assert.equal(writes.skew(TABLE), 3);
  });

  void it('close detaches from the map and the scrape hook', async () => {
    const { metrics, map, source, writes, close, clock } = await setup(saltedRegions(TABLE, 2));
    writes.record(TABLE, [rowKey(0)], saltByte);
    close();
    close();
    clock.t += 120_000;
    const text = await metrics.registry.metrics();
    assert.match(text, /^tsingest_instance_region_write_skew\{table="tsi_data"\} 2$/m); // frozen: no longer updated
    source.answer = [];
    await map.refresh(TABLE);
    assert.match(await metrics.registry.metrics(), /^tsingest_region_count\{table="tsi_data"\} 2$/m);
  });
});
