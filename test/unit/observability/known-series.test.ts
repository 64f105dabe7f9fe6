// Series that exist before their first event (so rate() and the alerts see the first increment), and
// tsingest_region_info, which orders per-region series by start key for the heatmap.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { REJECT_REASONS } from '../../../src/events/reject.ts';
import { FIRST_REGION_START_KEY, METRIC_NAMES, createMetrics, initKnownSeries, startKeyLabel } from '../../../src/metrics/ingest-metrics.ts';
import { encodedRegionName } from '../../../src/hbase/region-name.ts';

interface FakeRegion {
  readonly name: string;
  readonly startKey: Buffer;
}

/** A region map stand-in: settable regions per table, change listeners called by `change(table)`. */
function fakeRegions(initial: Record<string, FakeRegion[]>) {
  const regions = new Map(Object.entries(initial));
  const listeners = new Set<(c: { table: string }) => void>();
  return {
    regions: (table: string) => regions.get(table),
    onChange(listener: (c: { table: string }) => void) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    change(table: string, next: FakeRegion[]) {
      regions.set(table, next);
      for (const l of listeners) l({ table });
    },
    listeners,
  };
}

const region = (table: string, start: number[], id: string): FakeRegion => ({
  name: `${table},${Buffer.from(start).toString('latin1')},1700000000000.${id.padEnd(32, '0')}.`,
  startKey: Buffer.from(start),
});

async function lines(metrics: ReturnType<typeof createMetrics>, name: string): Promise<string[]> {
  return (await metrics.registry.metrics())
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`))
    .sort();
}

void describe('known label values start at 0', () => {
  void it('DLQ: every reason of the closed reject list (incl. key_invalid, hbase_rejected), from createMetrics', async () => {
    const metrics = createMetrics(undefined, { defaultMetrics: false });
    const expected = [...REJECT_REASONS].map((r) => `tsingest_dlq_records_total{reason="${r}"} 0`).sort();
    assert.deepEqual(await lines(metrics, 'tsingest_dlq_records_total'), expected);
  });

  void it('retries per table and op, region map refreshes per table and outcome, for the given tables', async () => {
    const metrics = createMetrics(undefined, { defaultMetrics: false });
    initKnownSeries(metrics, { tables: ['d', 'i'] });
    assert.deepEqual(await lines(metrics, 'tsingest_hbase_retries_total'), [
      'tsingest_hbase_retries_total{table="d",op="put"} 0',
      'tsingest_hbase_retries_total{table="i",op="put"} 0',
    ]);
    assert.deepEqual(await lines(metrics, 'tsingest_region_map_refresh_total'), [
      'tsingest_region_map_refresh_total{table="d",outcome="error"} 0',
      'tsingest_region_map_refresh_total{table="d",outcome="ok"} 0',
      'tsingest_region_map_refresh_total{table="i",outcome="error"} 0',
      'tsingest_region_map_refresh_total{table="i",outcome="ok"} 0',
    ]);
    // a later increment counts from 0, so the first retry is visible to rate()
    metrics.hbaseRetries.inc({ table: 'd', op: 'put' });
    assert.ok((await lines(metrics, 'tsingest_hbase_retries_total')).includes('tsingest_hbase_retries_total{table="d",op="put"} 1'));
  });

  void it('names the per-instance skew gauge as per-instance', async () => {
    const metrics = createMetrics(undefined, { defaultMetrics: false });
    metrics.regionWriteSkew.set({ table: 't' }, 3);
    const text = await metrics.registry.metrics();
    assert.equal(METRIC_NAMES.regionWriteSkew, 'tsingest_instance_region_write_skew');
    assert.match(text, /^# HELP tsingest_instance_region_write_skew Per-instance: /m);
    assert.doesNotMatch(text, /^tsingest_region_write_skew/m);
  });
});

void describe('tsingest_region_info', () => {
  void it('start key labels sort like the keys themselves', () => {
    const keys = [Buffer.alloc(0), Buffer.from([0]), Buffer.from([0, 0]), Buffer.from([0x0a]), Buffer.from([0xff]), Buffer.from('30', 'latin1')];
    for (let i = 0; i < 200; i++) keys.push(randomBytes(1 + (i % 4)));
    const byKey = [...keys].sort((x, y) => Buffer.compare(x, y)).map(startKeyLabel);
    const byLabel = keys.map(startKeyLabel).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    assert.deepEqual(byLabel, byKey);
    assert.equal(startKeyLabel(Buffer.alloc(0)), FIRST_REGION_START_KEY);
    assert.equal(startKeyLabel(Buffer.from([0x0a, 0xff])), '0aff');
  });

  void it('publishes the regions of the tracked tables now and follows their changes', async () => {
    const metrics = createMetrics(undefined, { defaultMetrics: false });
    const a = region('d', [], 'aa');
    const b = region('d', [0x02], 'bb');
    const source = fakeRegions({ d: [a, b], other: [region('other', [], 'cc')] });
    const stop = initKnownSeries(metrics, { tables: ['d', 'i'], regions: source });
    const info = (r: FakeRegion): string => `tsingest_region_info{table="d",region="${encodedRegionName(r.name)}",start_key="${startKeyLabel(r.startKey)}"} 1`;
    assert.deepEqual(await lines(metrics, 'tsingest_region_info'), [info(a), info(b)].sort());

    // b splits at 0x03: b vanishes, two daughters appear; an untracked table changes nothing
    const b1 = region('d', [0x02], 'b1');
    const b2 = region('d', [0x03], 'b2');
    source.change('d', [a, b1, b2]);
    source.change('other', []);
    assert.deepEqual(await lines(metrics, 'tsingest_region_info'), [info(a), info(b1), info(b2)].sort());

    stop();
    assert.equal(source.listeners.size, 0);
    source.change('d', [a]);
    assert.equal((await lines(metrics, 'tsingest_region_info')).length, 3);
  });
});
