/**
 * The series API's two caches on the service's prom-client `Registry`, read from their own counters
 * at each scrape: `tsingest_series_cache_lookups_total{cache="window"|"tail",outcome="hit"|"miss"|"untouched"}`
 * and `tsingest_series_cache_bytes{cache}` (estimated heap held). The window cache keeps summaries
 * and point blocks of closed windows; the tail cache the raw points of the open hour between
 * dashboard refreshes (docs/SERIES-API.md).
 */
import { Counter, Gauge, type Registry } from 'prom-client';

export const SERIES_CACHE_METRIC_NAMES = {
  lookups: 'tsingest_series_cache_lookups_total',
  bytes: 'tsingest_series_cache_bytes',
  catalogRereads: 'tsingest_series_catalog_rereads_total',
} as const;

/** What the read side's catalog counts (LiveIndex fits). */
export interface CatalogRereads {
  rereads(): { readonly scanned: number; readonly journal: number; readonly unchanged: number };
}

/** What a cache counts (WindowCache and TailCache stats() both fit). */
export interface CacheCounts {
  readonly hits: number;
  readonly misses: number;
  /** (the tail cache) hits answered with no read of HBase at all: no touch of their id since */
  readonly untouched?: number;
  readonly bytes: number;
}

export type SeriesCacheName = 'window' | 'tail';

/**
 * Registers both metrics for the caches given, and with `catalog` the catalog's rereads
 * (`tsingest_series_catalog_rereads_total{outcome="scanned"|"unchanged"}`); returns the function that removes them.
 */
export function registerSeriesCacheMetrics(
  registry: Registry,
  caches: Partial<Record<SeriesCacheName, { stats(): CacheCounts }>>,
  catalog?: CatalogRereads,
): () => void {
  const present = (Object.entries(caches) as [SeriesCacheName, { stats(): CacheCounts } | undefined][]).flatMap(([name, c]) =>
    c === undefined ? [] : [{ name, c }],
  );
  const seen = new Map<string, number>();
  new Counter({
    name: SERIES_CACHE_METRIC_NAMES.lookups,
    help: "Lookups in the series API's caches (window: closed windows' summaries and blocks; tail: the open hour's raw points), by outcome; tail's untouched: hits that needed no read at all (no write of the id since)",
    labelNames: ['cache', 'outcome'] as const,
    registers: [registry],
    collect() {
      for (const { name, c } of present) {
        const s = c.stats();
        for (const [outcome, n] of [
          ['hit', s.hits],
          ['miss', s.misses],
          ...(s.untouched === undefined ? [] : ([['untouched', s.untouched]] as const)),
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
  if (catalog !== undefined) {
    const counted = { scanned: 0, journal: 0, unchanged: 0 };
    new Counter({
      name: SERIES_CACHE_METRIC_NAMES.catalogRereads,
      help: "The series catalog's rereads of what is new: scanned, read from the catalog's journal (the generation changed), or spared because the generation had not changed since the last reread",
      labelNames: ['outcome'] as const,
      registers: [registry],
      collect() {
        const now = catalog.rereads();
        for (const outcome of ['scanned', 'journal', 'unchanged'] as const) {
          this.inc({ outcome }, Math.max(0, now[outcome] - counted[outcome]));
          counted[outcome] = now[outcome];
        }
      },
    });
  }
  return () => {
    registry.removeSingleMetric(SERIES_CACHE_METRIC_NAMES.lookups);
    registry.removeSingleMetric(SERIES_CACHE_METRIC_NAMES.bytes);
    if (catalog !== undefined) registry.removeSingleMetric(SERIES_CACHE_METRIC_NAMES.catalogRereads);
  };
}
