// The series API's parts on the read side (docs/SERIES-API.md): the series catalog in memory (read
// from the meta table, reread on a timer and on a miss), the series store over the read side's HBase
// client with the window cache in front of it, the rollup tier the planner may answer from, and the
// HTTP routes.
import type { Logger } from 'pino';
import { LiveIndex } from '../catalog/live-index.ts';
import { SeriesIndex } from '../catalog/series-index.ts';
import { CatalogStore } from '../catalog/store.ts';
import type { HBaseRestClient } from '../hbase/index.ts';
import type { Keyspace, SpreadEntry, Tables } from '../keys/index.ts';
import { parseWindows } from '../rollup/windows.ts';
import { windowRetention, type Config } from '../runtime/config.ts';
import type { RouteHandler } from '../runtime/http.ts';
import { createSeriesApi } from '../tsdb/http-api.ts';
import type { RollupTier } from '../tsdb/plan.ts';
import { SeriesStore, type SeriesScanPort } from '../tsdb/series-store.ts';
import { cachedReads, WindowCache } from '../tsdb/window-cache.ts';
import { AnswerMemo } from '../tsdb/answer-memo.ts';

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
  return {
    windowsMs: parseWindows(cfg.rollup.windows).map((w) => w.ms),
    graceMs: cfg.rollup.graceMs,
    ttlMsByWindow: new Map(windowRetention(cfg).map((w) => [w.seconds * 1000, ms(w.ttlSeconds)])),
    rawTtlMs: ms(cfg.tables.data.ttlSeconds),
    blocks: cfg.rollup.pointBlocks.enabled,
  };
}

/** The series store of the configuration: the tables, the point blocks' family when rollups are on and the job writes blocks. */
export function seriesStoreOf(
  cfg: Config,
  hbase: SeriesScanPort,
  keyspace: Keyspace,
  tables: Tables,
  entryFor: (id: string) => Promise<SpreadEntry | undefined>,
  deadlineMs = cfg.hbase.requestDeadlineMs,
): SeriesStore {
  return new SeriesStore(hbase, {
    keyspace,
    data: tables.data,
    rollup: tables.rollup,
    meta: tables.meta,
    entryFor,
    deadlineMs,
    idTagKey: cfg.catalog.idTagKey,
    blockFamily: cfg.rollup.enabled ? tables.rollup.pointsFamily : null,
  });
}

export function startSeriesSide(
  cfg: Config,
  hbase: HBaseRestClient,
  keyspace: Keyspace,
  tables: Tables,
  entryFor: (id: string) => Promise<SpreadEntry | undefined>,
  log: Logger,
): SeriesSide {
  const index = new SeriesIndex({ idTagKey: cfg.catalog.idTagKey, source: new CatalogStore(hbase, { table: tables.meta.name }) });
  let warnedAt = Number.NEGATIVE_INFINITY;
  const catalog = new LiveIndex({
    index,
    refreshMs: cfg.series.catalogRefreshMs,
    onError: (err) => {
      if (Date.now() - warnedAt < 30_000) return;
      warnedAt = Date.now();
      log.warn({ err }, 'series catalog reread failed; answering from the last one read');
    },
  });
  catalog.start();
  void catalog.refresh();
  const store = seriesStoreOf(cfg, hbase, keyspace, tables, entryFor);
  const { maxBytes, maxAgeMs } = cfg.series.windowCache;
  const cache = maxBytes > 0 ? new WindowCache({ maxBytes, maxAgeMs, now: Date.now }) : undefined;
  const api = createSeriesApi({
    catalog: index,
    reads: cache === undefined ? store : cachedReads(store, cache, (id) => keyspace.baseSalt(id)),
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
    ready: (metric) => catalog.ready(metric),
    deadlineMs: cfg.series.deadlineMs,
    maxBodyBytes: cfg.series.maxBodyBytes,
    log,
  });
  return { routes: api, catalog, stop: () => catalog.stop() };
}
