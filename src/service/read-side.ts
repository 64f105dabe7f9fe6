// The read side of the service: the HTTP read API (/api/v1/…), the OpenTSDB-compatible series API
// (/api/query, /api/suggest, …: series-side.ts), the built-in hot-spots page (/ui), the periodic
// rollup job and the periodic schema doctor (its findings on /ui). It has its own HBase REST
// client (its own connection pool), so reads, the rollup job and the doctor never queue behind ingest
// writes, and it is stopped before the write side closes.
import type { Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import type { Keyspace, Tables } from '../keys/index.ts';
import type { SpreadRegistry } from '../spread/registry.ts';
import type { GatewayMetrics } from '../metrics/gateway-metrics.ts';
import type { HotIds } from '../load/hot-ids.ts';
import { createReadMetrics, type ReadMetrics } from '../metrics/read-metrics.ts';
import type { Metrics } from '../metrics/ingest-metrics.ts';
import type { RegionMap } from '../load/region-map.ts';
import { createReadApi } from '../query/http-api.ts';
import { createRollupScheduler, type RollupScheduler } from '../rollup/scheduler.ts';
import type { Config } from '../runtime/config.ts';
import type { RouteHandler } from '../runtime/http.ts';
import { startUi, uiRoutes } from '../ui/page.ts';
import { createHBaseClient } from './clients.ts';
import { startDoctor } from './doctor-side.ts';
import { registryStore } from './keyspace.ts';
import { KafkaBucketOwners, ownersOptions } from './rollup-owners.ts';
import { startSeriesSide } from './series-side.ts';

export interface ReadSideDeps {
  readonly cfg: Config;
  readonly log: Logger;
  readonly metrics: Metrics;
  readonly regionMap: RegionMap;
  readonly keyspace: Keyspace;
  readonly tables: Tables;
  /** the spread registry: the series API reads through its snapshot (lookupFor); the rollup job waits for a fresh snapshot */
  readonly registry: Pick<SpreadRegistry, 'ready' | 'lookupFor'>;
  /** the service's hot ids (the page shows them) */
  readonly hotIds: HotIds;
  /** per-gateway series of the read client */
  readonly gatewayMetrics?: GatewayMetrics;
  /** the service's Kafka client: the rollup job's bucket ownership (rollup.owners.mode = kafka) joins a group through it */
  readonly kafka: Kafka;
}

export interface ReadSide {
  /** /api/v1/… and /ui routes for the service's HTTP server */
  readonly routes: RouteHandler;
  readonly readMetrics: ReadMetrics;
  /** stops the doctor (abandoning a run in progress), the series API and the rollup job (waiting for a run in progress); the rollup ownership starts leaving its group */
  stop(): Promise<void>;
  /** stop(), then waits for the ownership to have left, and closes the page's sampler and the read client */
  close(): Promise<void>;
}

export function startReadSide(deps: ReadSideDeps): ReadSide {
  const { cfg, log, metrics, keyspace, tables } = deps;
  const hbase = createHBaseClient(cfg, 'read', deps.gatewayMetrics);
  const readMetrics = createReadMetrics(metrics.registry, cfg.rollup.windows);
  // Reads by id ask the registry row through the read side's own client (not the write path's pool).
  const store = registryStore(cfg, tables, hbase);
  const entryFor = async (id: string) => (await store.entry(id))?.entry;
  const api = createReadApi({ cfg, hbase, keyspace, tables, entryFor, metrics: readMetrics, log: log.child({ module: 'read-api' }) });
  const doctor = startDoctor(cfg, tables.names, hbase, metrics, log.child({ module: 'doctor' }));
  const ui = startUi({
    metrics,
    regionMap: deps.regionMap,
    table: tables.data.name,
    buckets: keyspace.buckets,
    hotIds: deps.hotIds,
    doctor: () => doctor.snapshot(),
    sampleMs: cfg.metrics.heatmapSampleMs,
    onError: (err) => {
      log.warn({ err }, 'hot-spots heatmap sample failed');
    },
  });
  const page = uiRoutes({ snapshot: () => ui.snapshot() });
  // The OpenTSDB-compatible series API answers its own /api/… paths before the read API claims /api/.
  const series = cfg.series.enabled
    ? startSeriesSide(cfg, hbase, keyspace, tables, (to) => deps.registry.lookupFor(to), log.child({ module: 'series-api' }))
    : undefined;
  let rollup: RollupScheduler | undefined;
  let owners: KafkaBucketOwners | undefined;
  if (cfg.rollup.enabled) {
    if (cfg.rollup.owners.mode === 'kafka') {
      owners = new KafkaBucketOwners(
        ownersOptions(cfg, deps.kafka, log, (owned) => {
          for (const b of keyspace.allBuckets()) readMetrics.rollupBucketOwned.set({ bucket: String(b) }, owned.has(b) ? 1 : 0);
        }),
      );
      owners.start();
    }
    rollup = createRollupScheduler({ cfg, hbase, keyspace, tables, spread: deps.registry, metrics: readMetrics, log, owners });
    rollup.start();
  }
  let stopping: Promise<void> | undefined;
  let leaving: Promise<void> | undefined;
  let closing: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      doctor.stop();
      // the ownership consumer leaves its group beside the drain, not before it (close() waits for it)
      leaving = owners?.stop();
      await series?.stop();
      await rollup?.stop();
    })();
    return stopping;
  };
  return {
    routes: async (req, res, url, ctx) =>
      (await page(req, res, url)) || (series !== undefined && (await series.routes(req, res, url, ctx))) || (await api(req, res, url, ctx)),
    readMetrics,
    stop,
    close: () => {
      closing ??= (async () => {
        try {
          await stop();
          await leaving;
        } finally {
          ui.close();
          await hbase.close();
        }
      })();
      return closing;
    },
  };
}
