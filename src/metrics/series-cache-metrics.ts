/**
 * The series API's two caches on the service's prom-client `Registry`, read from their own counters
 * at each scrape: `tsingest_series_cache_lookups_total{cache="window"|"tail",outcome="hit"|"miss"}`
 * and `tsingest_series_cache_bytes{cache}` (estimated heap held). The window cache keeps summaries
 * and point blocks of closed windows; the tail cache the raw points of the open hour between
 * dashboard refreshes (docs/SERIES-API.md).
 */
import { Counter, Gauge, type Registry } from 'prom-client';

export const SERIES_CACHE_METRIC_NAMES = {
  lookups: 'tsingest_series_cache_lookups_total',
  bytes: 'tsingest_series_cache_bytes',
} as const;

/** What a cache counts (WindowCache and TailCache stats() both fit). */
export interface CacheCounts {
  readonly hits: number;
  readonly misses: number;
  readonly bytes: number;
}

export type SeriesCacheName = 'window' | 'tail';

/** Registers both metrics for the caches given; returns the function that removes them. */
export function registerSeriesCacheMetrics(registry: Registry, caches: Partial<Record<SeriesCacheName, { stats(): CacheCounts }>>): () => void {
  const present = (Object.entries(caches) as [SeriesCacheName, { stats(): CacheCounts } | undefined][]).flatMap(([name, c]) =>
    c === undefined ? [] : [{ name, c }],
  );
  const seen = new Map<string, number>();
  new Counter({
    name: SERIES_CACHE_METRIC_NAMES.lookups,
    help: "Lookups in the series API's caches (window: closed windows' summaries and blocks; tail: the open hour's raw points), by outcome",
    labelNames: ['cache', 'outcome'] as const,
    registers: [registry],
    collect() {
      for (const { name, c } of present) {
        const s = c.stats();
        for (const [outcome, n] of [
          ['hit', s.hits],
          ['miss', s.misses],
        ] as const) {
          const key = `${name}/${outcome}`;
          const delta = n - (seen.get(key) ?? 0);
          seen.set(key, n);
          this.inc({ cache: name, outcome }, Math.max(0, delta));
        }
      }
    },
  });
  new Gauge({
    name: SERIES_CACHE_METRIC_NAMES.bytes,
    help: "Heap the series API's caches hold (bytes, estimated), by cache",
    labelNames: ['cache'] as const,
    registers: [registry],
    collect() {
      for (const { name, c } of present) this.set({ cache: name }, c.stats().bytes);
    },
  });
  return () => {
    registry.removeSingleMetric(SERIES_CACHE_METRIC_NAMES.lookups);
    registry.removeSingleMetric(SERIES_CACHE_METRIC_NAMES.bytes);
  };
}
