import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createMetrics } from '../../../src/metrics/ingest-metrics.ts';
import { encodedRegionName } from '../../../src/hbase/region-name.ts';
import type { RegionInfo } from '../../../src/load/region-source.ts';
import { HeatmapSampler, RegionHeatmap, displayKey, regionCountersFromMetrics } from '../../../src/ui/heatmap-data.ts';
import { region, saltedRegions } from '../load/fixtures.ts';

const TABLE = 'tsi_data';
const regions = saltedRegions(TABLE, 3);
const names = regions.map((r) => encodedRegionName(r.name));
const [r0, r1, r2] = names as [string, string, string];

void describe('displayKey', () => {
  void it('prints keys as the HBase shell does', () => {
    assert.equal(displayKey(Buffer.from([0x03])), '\\x03');
    assert.equal(displayKey(Buffer.from('0a', 'latin1')), '0a');
    assert.equal(displayKey(Buffer.from([0x61, 0x5c, 0x00, 0xff])), 'a\\x5C\\x00\\xFF');
    assert.equal(displayKey(Buffer.alloc(0)), '');
  });
});

void describe('RegionHeatmap', () => {
  void it('turns cumulative counters into rows per sample, idle regions included', () => {
    const hm = new RegionHeatmap({ sampleMs: 1000, maxSamples: 10 });
    hm.push(1000, new Map([[r0, 10]]), regions);
    hm.push(
      2000,
      new Map([
        [r0, 15],
        [r1, 4],
      ]),
      regions,
    );
    const snap = hm.snapshot(regions);
    assert.deepEqual(snap.times, [1000, 2000]);
    assert.deepEqual(
      snap.rows.map((r) => [r.region, r.state, r.writes, r.total]),
      [
        [r0, 'live', [10, 5], 15],
        [r1, 'live', [0, 4], 4],
        [r2, 'live', [0, 0], 0],
      ],
    );
    assert.deepEqual(
      snap.rows.map((r) => [r.start, r.end, r.server]),
      [
        ['', '\\x01', 'rs1:16020'],
        ['\\x01', '\\x02', 'rs1:16020'],
        ['\\x02', '', 'rs1:16020'],
      ],
    );
  });

  void it('reads a counter that went down as a reset', () => {
    const hm = new RegionHeatmap();
    hm.push(1, new Map([[r0, 20]]));
    hm.push(2, new Map([[r0, 3]]));
    hm.push(3, new Map([[r0, 9]]));
    assert.deepEqual(hm.snapshot(regions).rows[0]?.writes, [20, 3, 6]);
  });

  void it('keeps only the last maxSamples samples', () => {
    const hm = new RegionHeatmap({ maxSamples: 3 });
    for (let i = 1; i <= 5; i++) hm.push(i * 100, new Map([[r1, i * i]]), regions);
    const snap = hm.snapshot(regions);
    assert.deepEqual(snap.times, [300, 400, 500]);
    assert.deepEqual(snap.rows[1]?.writes, [9 - 4, 16 - 9, 25 - 16]);
  });

  void it('shows a vanished region while it has samples in the ring, labelled from the map it was in', () => {
    const hm = new RegionHeatmap({ maxSamples: 2 });
    const before = saltedRegions(TABLE, 2);
    const gone = before[1] as RegionInfo;
    const goneName = encodedRegionName(gone.name);
    const split = [
      before[0] as RegionInfo,
      region(TABLE, [1], [1, 0x80], { server: 'rs2:16020', id: 2 }),
      region(TABLE, [1, 0x80], [], { server: 'rs2:16020', id: 2 }),
    ];
    hm.push(1, new Map([[goneName, 7]]), before);
    hm.push(2, new Map([[goneName, 7]]), split);
    const snap = hm.snapshot(split);
    assert.deepEqual(
      snap.rows.map((r) => r.state),
      ['live', 'live', 'live', 'gone'],
    );
    assert.deepEqual(snap.rows[3], { region: goneName, start: '\\x01', end: '', server: 'rs1:16020', state: 'gone', writes: [7, 0], total: 7 });
    hm.push(3, new Map([[goneName, 7]]), split);
    assert.equal(hm.snapshot(split).rows.length, 3, 'dropped once its samples left the ring');
  });

  void it('puts rows written outside the known regions under state unknown', () => {
    const hm = new RegionHeatmap();
    hm.push(1, new Map([['unknown', 4]]));
    assert.deepEqual(
      hm.snapshot(regions).rows.map((r) => r.state),
      ['live', 'live', 'live', 'unknown'],
    );
  });

  void it('rejects bad options, naming them', () => {
    assert.throws(() => new RegionHeatmap({ maxSamples: 0 }), /maxSamples must be an integer/);
    assert.throws(() => new RegionHeatmap({ sampleMs: -1 }), /sampleMs must be a positive number, got -1/);
  });
});

void describe('regionCountersFromMetrics + HeatmapSampler', () => {
  void it('sums the region counter of the table over servers and samples it', async () => {
    const metrics = createMetrics(undefined, { defaultMetrics: false });
    metrics.regionWrites.inc({ table: TABLE, region: r0, server: 'rs1:16020' }, 5);
    metrics.regionWrites.inc({ table: TABLE, region: r0, server: 'rs2:16020' }, 2);
    metrics.regionWrites.inc({ table: TABLE, region: r2, server: 'rs1:16020' }, 1);
    metrics.regionWrites.inc({ table: 'other', region: r1, server: 'rs1:16020' }, 100);
    const source = regionCountersFromMetrics(metrics.regionWrites, { regions: (t) => (t === TABLE ? regions : undefined) }, TABLE);
    assert.deepEqual(
      await source.cumulative(),
      new Map([
        [r0, 7],
        [r2, 1],
      ]),
    );

    let now = 50_000;
    const sampler = new HeatmapSampler({ source, sampleMs: 2000, clock: () => now });
    await sampler.sample();
    metrics.regionWrites.inc({ table: TABLE, region: r1, server: 'rs1:16020' }, 3);
    now += 2000;
    await Promise.all([sampler.sample(), sampler.sample()]); // concurrent calls share one sample
    const snap = sampler.snapshot();
    assert.equal(snap.sampleMs, 2000);
    assert.deepEqual(snap.times, [50_000, 52_000]);
    assert.deepEqual(
      snap.rows.map((r) => r.writes),
      [
        [7, 0],
        [0, 3],
        [1, 0],
      ],
    );
  });

  void it('samples on its timer until stopped', async () => {
    let reads = 0;
    const sampler = new HeatmapSampler({
      source: {
        regions: () => regions,
        cumulative: () => {
          reads += 1;
          return Promise.resolve(new Map([[r0, reads]]));
        },
      },
      sampleMs: 10,
    });
    sampler.start();
    sampler.start(); // idempotent: one timer
    while (reads < 3) await new Promise((r) => setTimeout(r, 5));
    sampler.stop();
    const after = reads;
    await new Promise((r) => setTimeout(r, 40));
    assert.equal(reads, after);
    assert.deepEqual(sampler.snapshot().rows[0]?.writes.slice(0, 3), [1, 1, 1]);
  });
});
