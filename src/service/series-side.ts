// The series API's parts on the read side (docs/SERIES-API.md): the series catalog in memory (read
// from the meta table, reread on a timer and on a miss), the series store over the read side's HBase
// client with the window cache in front of it, the rollup tier the planner may answer from, and the
// HTTP routes.
import { getHeapStatistics } from 'node:v8';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { LiveIndex } from '../catalog/live-index.ts';
import { registerSeriesCacheMetrics } from '../metrics/series-cache-metrics.ts';
import { SeriesIndex } from '../catalog/series-index.ts';
import { CatalogStore } from '../catalog/store.ts';
import type { HBaseRestClient } from '../hbase/index.ts';
import type { Keyspace, Tables } from '../keys/index.ts';
import { parseWindows } from '../rollup/windows.ts';
import { pointsTtlSeconds, windowRetention, type Config } from '../runtime/config.ts';
import type { RouteHandler } from '../runtime/http.ts';
import { createSeriesApi } from '../series-http/index.ts';
import { AnswerMemo, type RollupTier } from '../series-query/index.ts';
import { cachedReads, SeriesStore, TailCache, WindowCache, withTailCache, type SeriesScanPort, type SpreadSource } from '../series-store/index.ts';

/** Sub-query answers the answer memo keeps (each its results and its ids: a chart's worth). */
const MEMO_ANSWERS = 256;

export interface SeriesSide {
  readonly routes: RouteHandler;
  readonly catalog: LiveIndex;
  stop(): Promise<void>;
}

/** The rollup tier of the configuration: windows, grace, each size's summary TTL and the data table's (none when rollups are off). */
export function rollupTier(cfg: Config): RollupTier | undefined {
  if (!cfg.rollup.enabled) return undefined;
  const ms = (s: number | null): number | null => (s === null ? null : s * 1000);
  const windowsMs = parseWindows(cfg.rollup.windows).map((w) => w.ms);
  return {
    windowsMs,
    blockSizesMs: cfg.rollup.pointBlocks.everySize ? windowsMs : windowsMs.slice(0, 1),
    graceMs: cfg.rollup.graceMs,
    ttlMsByWindow: new Map(windowRetention(cfg).map((w) => [w.seconds * 1000, ms(w.ttlSeconds)])),
    rawTtlMs: ms(cfg.tables.data.ttlSeconds),
    blocksTtlMs: ms(pointsTtlSeconds(cfg)),
    blocks: cfg.rollup.pointBlocks.enabled,
  };
}

export interface SeriesStoreOptions {
  readonly cfg: Config;
  readonly hbase: SeriesScanPort;
  readonly keyspace: Keyspace;
  readonly tables: Tables;
  /** the spread registry (SpreadSource) */
  readonly spread: SpreadSource;
  /** default hbase.requestDeadlineMs */
  readonly deadlineMs?: number;
}

/** The series store of the configuration: the tables, the point blocks' family when rollups are on and the job writes blocks. */
export function seriesStoreOf(o: SeriesStoreOptions): SeriesStore {
  const { cfg, hbase, keyspace, tables, spread, deadlineMs = cfg.hbase.requestDeadlineMs } = o;
  return new SeriesStore(hbase, {
    keyspace,
    data: tables.data,
    rollup: tables.rollup,
    meta: tables.meta,
    spread,
    deadlineMs,
    idTagKey: cfg.catalog.idTagKey,
    blockFamily: cfg.rollup.enabled ? tables.rollup.pointsFamily : null,
  });
}

const MIB = 1024 * 1024;

/**
 * The window cache's bound when the configuration leaves it to the heap: a quarter of it, between 64
 * and 512 MiB. A day of hourly summaries is about 3 KB per id and metric, so 64 MiB holds a site-wide
 * 24 h panel of 10,000 ids only before noon UTC (the day's hours are read one by one until its pack
 * is written): past it the cache thrashed and the live dashboard's site panels read most windows
 * again at every refresh (BENCHMARKS.md, *The live dashboard*).
 */
export function windowCacheBytes(heapLimitBytes: number): number {
  return Math.min(512 * MIB, Math.max(64 * MIB, Math.floor(heapLimitBytes / 4 / MIB) * MIB));
}

/** The tail cache of the configuration: on with its bytes and horizon, and with rollups (it checks the rollup markers ingest writes). */
export function tailCacheOf(cfg: Config): TailCache | undefined {
  const { maxBytes, horizonMs, lateMs } = cfg.series.tailCache;
  const finest = parseWindows(cfg.rollup.windows)[0];
  if (maxBytes === 0 || horizonMs === 0 || !cfg.rollup.enabled || finest === undefined) return undefined;
  return new TailCache({
    maxBytes,
    maxAgeMs: cfg.series.windowCache.maxAgeMs,
    horizonMs,
    lateMs,
    clockToleranceMs: cfg.keys.spread.clockToleranceMs,
    markSizeMs: finest.ms,
    now: Date.now,
  });
}

export interface SeriesSideDeps {
  readonly cfg: Config;
  readonly hbase: HBaseRestClient;
  readonly keyspace: Keyspace;
  readonly tables: Tables;
  /** the spread registry (SpreadSource) */
  readonly spread: SpreadSource;
  /** the service's metrics registry: the caches' lookups and bytes */
  readonly registry: Registry;
  readonly log: Logger;
}

export function startSeriesSide(deps: SeriesSideDeps): SeriesSide {
  const { cfg, hbase, keyspace, tables, spread, log } = deps;
  const source = new CatalogStore(hbase, { table: tables.meta.name });
  const index = new SeriesIndex({ idTagKey: cfg.catalog.idTagKey, source });
  let warnedAt = Number.NEGATIVE_INFINITY;
  const catalog = new LiveIndex({
    index,
    generation: () => source.generation(),
    journal: (sinceMs, nowMs, seen) => source.journal(sinceMs, nowMs, seen),
    refreshMs: cfg.series.catalogRefreshMs,
    ...(cfg.series.catalogFreshMs === null ? {} : { freshMs: cfg.series.catalogFreshMs }),
    onError: (err) => {
      if (Date.now() - warnedAt < 30_000) return;
      warnedAt = Date.now();
      log.warn({ err }, 'series catalog reread failed; answering from the last one read');
    },
  });
  catalog.start();
  void catalog.refresh();
  const store = seriesStoreOf({ cfg, hbase, keyspace, tables, spread });
  const { maxAgeMs } = cfg.series.windowCache;
  const maxBytes = cfg.series.windowCache.maxBytes ?? windowCacheBytes(getHeapStatistics().heap_size_limit);
  const cache = maxBytes > 0 ? new WindowCache({ maxBytes, maxAgeMs, now: Date.now }) : undefined;
  const bucketOf = (id: string): number => keyspace.baseSalt(id);
  const windows = cache === undefined ? store : cachedReads(store, cache, bucketOf);
  const tail = tailCacheOf(cfg);
  const api = createSeriesApi({
    catalog: index,
    reads: tail === undefined ? windows : withTailCache(windows, { port: store, cache: tail, bucketOf }),
    // the answer memo needs the generations the window cache reads: on with it
    memo: cache === undefined ? undefined : { answers: new AnswerMemo(MEMO_ANSWERS, maxAgeMs), probe: store },
    tier: rollupTier(cfg),
    idTagKey: cfg.catalog.idTagKey,
    limits: {
      maxSeries: cfg.series.maxSeries,
      maxPoints: cfg.series.maxPoints,
      maxSubQueries: cfg.series.maxSubQueries,
      concurrency: cfg.series.concurrency,
    },
    now: Date.now,
    integerValues: cfg.series.integerValues,
    ready: (metric, arrivedAt, fresh) => catalog.ready(metric, arrivedAt, fresh),
    deadlineMs: cfg.series.deadlineMs,
    maxBodyBytes: cfg.series.maxBodyBytes,
    log,
  });
  const unregister = registerSeriesCacheMetrics(
    deps.registry,
    { ...(cache === undefined ? {} : { window: cache }), ...(tail === undefined ? {} : { tail }) },
    catalog,
  );
  return {
    routes: api,
    catalog,
    stop: () => {
      unregister();
      return catalog.stop();
    },
  };
}
