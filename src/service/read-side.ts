// The read side of the service: the HTTP read API (/api/v1/…), the OpenTSDB-compatible series API
// (/api/query, /api/suggest, …: series-side.ts), the built-in hot-spots page (/ui), the periodic
// rollup job and the periodic schema doctor (its findings on /ui); the process's role picks which of
// them run (`parts`, src/service/roles.ts). It has its own HBase REST client (its own connection
// pool), so reads, the rollup job and the doctor never queue behind ingest writes, and it is stopped
// before the write side closes.
import type { Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import type { HBaseRestClient } from '../hbase/index.ts';
import type { Keyspace, Tables } from '../keys/index.ts';
import type { SpreadRegistry } from '../spread/registry.ts';
import type { GatewayMetrics } from '../metrics/gateway-metrics.ts';
import type { HotIds } from '../load/hot-ids.ts';
import { createReadMetrics, type ReadMetrics } from '../metrics/read-metrics.ts';
import type { Metrics } from '../metrics/ingest-metrics.ts';
import type { RegionMap } from '../load/region-map.ts';
import { createReadApi } from '../reads-v1/http-api.ts';
import { createRollupScheduler, type RollupScheduler } from '../rollup/scheduler.ts';
import type { Config } from '../runtime/config.ts';
import type { RouteHandler } from '../runtime/http.ts';
import { startUi, uiRoutes } from '../ui/page.ts';
import { createHBaseClient } from './clients.ts';
import { startDoctor } from './doctor-side.ts';
import { registryStore } from './keyspace.ts';
import type { RoleParts } from './roles.ts';
import { KafkaBucketOwners, ownersOptions } from './rollup-owners.ts';
import { RollupThread } from './rollup-thread.ts';
import { startSeriesSide } from './series-side.ts';

export interface ReadSideDeps {
  readonly cfg: Config;
  readonly log: Logger;
  readonly metrics: Metrics;
  /** what the role runs besides /ui: the data routes, the doctor, the rollup job */
  readonly parts: Pick<RoleParts, 'reads' | 'doctor' | 'rollup'>;
  readonly keyspace: Keyspace;
  readonly tables: Tables;
  /** the spread registry: the series API reads through its snapshot (lookupFor); the rollup job waits for a fresh snapshot */
  readonly registry: Pick<SpreadRegistry, 'ready' | 'lookupFor' | 'entryOf' | 'spreadIds'>;
  /** the service's region map and hot ids: given, the /ui page shows them (the ui part of the role) */
  readonly load?: { readonly regionMap: RegionMap; readonly hotIds: HotIds } | undefined;
  /** per-gateway series of the read client */
  readonly gatewayMetrics?: GatewayMetrics;
  /** the service's Kafka client: the rollup job's bucket ownership (rollup.owners.mode = kafka) joins a group through it */
  readonly kafka?: Kafka | undefined;
  /** a read client the service made already (closed by the service); default: one of its own, closed with it */
  readonly hbase?: HBaseRestClient | undefined;
}

export interface ReadSide {
  /** the routes of the parts the role runs (/api/v1/…, the series API, /ui) for the service's HTTP server */
  readonly routes: RouteHandler;
  readonly readMetrics: ReadMetrics;
  /**
   * stops the doctor (abandoning a run in progress), the series API and the rollup job (it takes no
   * next batch; its run in progress is waited for at most `rollupWaitMs`, default no limit); the
   * rollup ownership starts leaving its group
   */
  stop(rollupWaitMs?: number): Promise<void>;
  /** stop(), then waits for the ownership to have left, and closes the page's sampler and the read client */
  close(): Promise<void>;
}

export function startReadSide(deps: ReadSideDeps): ReadSide {
  const { cfg, log, metrics, keyspace, tables, parts } = deps;
  const hbase = deps.hbase ?? createHBaseClient(cfg, 'read', deps.gatewayMetrics);
  const readMetrics = createReadMetrics(metrics.registry, cfg.rollup.windows);
  // Reads by id ask the registry row through the read side's own client (not the write path's pool).
  const store = registryStore(cfg, tables, hbase);
  const entryFor = async (id: string) => (await store.entry(id))?.entry;
  const api = parts.reads ? createReadApi({ cfg, hbase, keyspace, tables, entryFor, metrics: readMetrics, log: log.child({ module: 'read-api' }) }) : undefined;
  const doctor = parts.doctor ? startDoctor({ cfg, tables: tables.names, hbase, metrics, log: log.child({ module: 'doctor' }) }) : undefined;
  const { load } = deps;
  const ui =
    load !== undefined
      ? startUi({
          metrics,
          regionMap: load.regionMap,
          table: tables.data.name,
          buckets: keyspace.buckets,
          hotIds: load.hotIds,
          ...(doctor === undefined ? {} : { doctor: () => doctor.snapshot() }),
          sampleMs: cfg.metrics.heatmapSampleMs,
          onError: (err) => {
            log.warn({ err }, 'hot-spots heatmap sample failed');
          },
        })
      : undefined;
  const page = ui === undefined ? undefined : uiRoutes({ snapshot: () => ui.snapshot() });
  // The OpenTSDB-compatible series API answers its own /api/… paths before the read API claims /api/.
  const series =
    parts.reads && cfg.series.enabled
      ? startSeriesSide({
          cfg,
          hbase,
          keyspace,
          tables,
          spread: deps.registry,
          registry: metrics.registry,
          log: log.child({ module: 'series-api' }),
        })
      : undefined;
  let rollup: RollupScheduler | undefined;
  let owners: KafkaBucketOwners | undefined;
  let thread: RollupThread | undefined;
  if (parts.rollup && cfg.rollup.enabled) {
    if (cfg.rollup.owners.mode === 'kafka') {
      if (deps.kafka === undefined) throw new Error('the rollup ownership (rollup.owners.mode = kafka) needs the Kafka client');
      owners = new KafkaBucketOwners(
        ownersOptions(cfg, deps.kafka, log, {
          onChange: (owned) => {
            for (const b of keyspace.allBuckets()) readMetrics.rollupBucketOwned.set({ bucket: String(b) }, owned.has(b) ? 1 : 0);
          },
          onJoin: () => {
            metrics.consumerGroupJoins.inc({ group: 'rollup-owners' });
          },
        }),
      );
      owners.start();
    }
    if (cfg.rollup.thread) {
      thread = new RollupThread({ cfg, meters: readMetrics, gatewayMetrics: deps.gatewayMetrics, ownership: owners, log: log.child({ module: 'rollup' }) });
    }
    rollup = createRollupScheduler({ cfg, hbase, keyspace, tables, spread: deps.registry, metrics: readMetrics, log, owners, job: thread });
    rollup.start();
  }
  let stopping: Promise<void> | undefined;
  let leaving: Promise<void> | undefined;
  let closing: Promise<void> | undefined;
  const stop = (rollupWaitMs?: number): Promise<void> => {
    stopping ??= (async () => {
      doctor?.stop();
      // the ownership consumer leaves its group beside the drain, not before it (close() waits for it)
      leaving = owners?.stop();
      await series?.stop();
      await rollup?.stop(rollupWaitMs);
    })();
    return stopping;
  };
  return {
    routes: async (req, res, url, ctx) =>
      (page !== undefined && (await page(req, res, url))) ||
      (series !== undefined && (await series.routes(req, res, url, ctx))) ||
      (api !== undefined && (await api(req, res, url, ctx))),
    readMetrics,
    stop,
    close: () => {
      closing ??= (async () => {
        try {
          await stop();
          await leaving;
        } finally {
          await thread?.close();
          ui?.close();
          if (deps.hbase === undefined) await hbase.close();
        }
      })();
      return closing;
    },
  };
}
