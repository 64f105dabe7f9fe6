/**
 * The hot ids (src/load/hot-ids.ts) as bounded top-K gauges (`tsingest_hot_id_*`), rebuilt from one
 * snapshot at every scrape.
 * Design notes: docs/DECISIONS.md#hot-id-metrics
 */
import { Gauge, type Registry } from 'prom-client';
import type { HotIdsSnapshot } from '../load/hot-ids.ts';

export const HOT_ID_METRICS = {
  events: 'tsingest_hot_id_events',
  buckets: 'tsingest_hot_id_buckets',
  info: 'tsingest_hot_id_info',
  windowEvents: 'tsingest_hot_ids_window_events',
} as const;

/** What the gauges read (HotIds implements it). */
export interface HotIdSource {
  readonly windowMs: number;
  readonly capacity: number;
  readonly top: number;
  snapshot(): HotIdsSnapshot;
}

/** Registers the hot-id gauges on `registry`; returns the function that removes them (a second service on the same `Registry` can then add its own). */
export function registerHotIdMetrics(registry: Registry, hotIds: HotIdSource): () => void {
  const scope = `over the last ${hotIds.windowMs / 1000}s (top ${hotIds.top} only; upper estimate, error ≤ window events / ${hotIds.capacity})`;
  const snapshotOf = (): HotIdsSnapshot => hotIds.snapshot();
  const registers = [registry];
  new Gauge({
    name: HOT_ID_METRICS.events,
    help: `Estimated events per hot id ${scope}`,
    labelNames: ['id'] as const,
    registers,
    collect() {
      this.reset();
      for (const h of snapshotOf().ids) this.set({ id: h.id }, h.events);
    },
  });
  new Gauge({
    name: HOT_ID_METRICS.info,
    help: 'Base salt bucket and its region (encoded name, server) of each current hot id; value 1',
    labelNames: ['id', 'bucket', 'region', 'server'] as const,
    registers,
    collect() {
      this.reset();
      for (const h of snapshotOf().ids) this.set({ id: h.id, bucket: String(h.bucket), region: h.region, server: h.server }, 1);
    },
  });
  new Gauge({
    name: HOT_ID_METRICS.buckets,
    help: 'Salt buckets each current hot id spreads its events over now (1: one bucket; docs/HOT-IDS.md)',
    labelNames: ['id'] as const,
    registers,
    collect() {
      this.reset();
      for (const h of snapshotOf().ids) this.set({ id: h.id }, h.k);
    },
  });
  new Gauge({
    name: HOT_ID_METRICS.windowEvents,
    help: 'Events counted by the hot-ids sketch over its window',
    registers,
    collect() {
      this.set(snapshotOf().total);
    },
  });
  return () => {
    for (const name of Object.values(HOT_ID_METRICS)) registry.removeSingleMetric(name);
  };
}
