/**
 * The region map and the region writes (src/load/) as Prometheus series, and the scrape hook that
 * lets the skew decay when no writes arrive.
 * Design notes: docs/DECISIONS.md#region-write-metrics
 */
import { encodedRegionName } from '../hbase/region-name.ts';
import type { RegionMapObserver } from '../load/region-map.ts';
import { UNKNOWN_REGION } from '../load/region-map.ts';
import type { RegionInfo } from '../load/region-source.ts';
import { RegionWrites, type RegionWritesObserver, type RegionWritesOptions } from '../load/region-writes.ts';
import type { Metrics } from './ingest-metrics.ts';

export type RegionWritesMetrics = Pick<Metrics, 'regionWrites' | 'saltBucketWrites' | 'regionWriteSkew' | 'regionCount'>;

function regionLabels(table: string, region: RegionInfo): { table: string; region: string; server: string } {
  return { table, region: encodedRegionName(region.name), server: region.server };
}

export function regionWritesObserver(m: RegionWritesMetrics): RegionWritesObserver {
  return {
    regionWritten(table, region, n) {
      m.regionWrites.inc(region === undefined ? { table, region: UNKNOWN_REGION, server: UNKNOWN_REGION } : regionLabels(table, region), n);
    },
    bucketWritten(table, bucket, n) {
      m.saltBucketWrites.inc({ table, bucket: String(bucket) }, n);
    },
    regionGone(table, region) {
      m.regionWrites.remove(regionLabels(table, region));
    },
    measured(table, skew, regions) {
      m.regionWriteSkew.set({ table }, skew);
      m.regionCount.set({ table }, regions);
    },
  };
}

/** Recomputes the region writes' skew and region counts right before each scrape; returns the unhook. */
export function measureAtScrape(m: Pick<Metrics, 'onScrape'>, writes: { updateGauges(): void }): () => void {
  return m.onScrape(() => {
    writes.updateGauges();
  });
}

export function regionMapObserver(m: Pick<Metrics, 'regionMapRefresh'>): RegionMapObserver {
  return {
    refreshed(table, outcome) {
      m.regionMapRefresh.inc({ table, outcome });
    },
  };
}

/** Region writes that report to `m` as the service runs it: its observer, and a recompute before each scrape. `close` detaches both. */
export function meteredRegionWrites(
  m: RegionWritesMetrics & Pick<Metrics, 'onScrape'>,
  options: Omit<RegionWritesOptions, 'observer'>,
): { readonly writes: RegionWrites; readonly close: () => void } {
  const writes = new RegionWrites({ ...options, observer: regionWritesObserver(m) });
  const unhook = measureAtScrape(m, writes);
  return {
    writes,
    close: () => {
      unhook();
      writes.close();
    },
  };
}
