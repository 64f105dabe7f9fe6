// The ingest part of the service (roles ingest and all; src/service/roles.ts): the write path's load
// view (region map, region writes, hot ids), its outage policy, and the consumer of the ingest group
// with its DLQ producer, writer, lag monitor and health wiring. A query process builds none of it.
import type { Kafka } from 'kafkajs';
import { catalogCacheKey, type CatalogMarks } from '../catalog/marks.ts';
import type { Series } from '../catalog/rows.ts';
import { CatalogStore } from '../catalog/store.ts';
import type { IngestConsumer } from '../ingest/consumer.ts';
import type { Keyspace, Tables } from '../keys/index.ts';
import { HotIds, type HotIdsOptions } from '../load/hot-ids.ts';
import type { RegionMap } from '../load/region-map.ts';
import type { RegionWrites } from '../load/region-writes.ts';
import { registerHotIdMetrics } from '../metrics/hot-id-metrics.ts';
import { initKnownSeries } from '../metrics/ingest-metrics.ts';
import type { Config } from '../runtime/config.ts';
import type { Lifecycle } from '../runtime/lifecycle.ts';
import type { Logger } from '../runtime/logger.ts';
import type { SpreadRegistry } from '../spread/registry.ts';
import { brokerHealth, consumerHealth, wireHBaseHealth } from './health.ts';
import { requireTopics, watchConsumer } from './kafka-parts.ts';
import { explainKafkaFailure } from './kafka-security.ts';
import { consumeSide, dlqProducer, outage, regionWrites, writeSide, type Outage, type ServiceBase } from './parts.ts';
import { catalogMarks } from './service-settings.ts';

export type { ServiceBase } from './parts.ts';

/** What the write path needs before the spread registry: the region map with its writes, and one outage policy. */
export interface WriteParts {
  readonly regions: { readonly regionMap: RegionMap; readonly writes: RegionWrites };
  /** one outage policy for every HBase call the ingest path waits for: writes and registry alike */
  readonly out: Outage;
}

/** `signal` abandons in-flight writes (the drain deadline, a failure). */
export async function writeParts(b: ServiceBase, signal: AbortSignal): Promise<WriteParts> {
  const regions = await regionWrites(b);
  b.closers.add('known series', initKnownSeries(b.metrics, { tables: b.tables.mapped, regions: regions.regionMap }));
  return { regions, out: outage(b.cfg, signal, b.closers) };
}

/** The service's hot-ids settings over its data table and region map. */
export function hotIdsOptions(cfg: Config, tables: Tables, keyspace: Keyspace, regionMap: RegionMap): HotIdsOptions {
  return { table: tables.data.name, keyspace, regions: regionMap, windowMs: cfg.metrics.hotIdsWindowMs, capacity: cfg.metrics.hotIdsCapacity };
}

/** Hot ids: the write path feeds them, the page, the gauges and the promoter read them. */
export function hotIdsOf(b: ServiceBase, keyspace: Keyspace, regionMap: RegionMap): HotIds {
  const hotIds = new HotIds(hotIdsOptions(b.cfg, b.tables, keyspace, regionMap));
  b.closers.add('hot ids', registerHotIdMetrics(b.metrics.registry, hotIds));
  return hotIds;
}

export interface IngestSideDeps extends ServiceBase {
  readonly kafka: Kafka;
  readonly write: WriteParts;
  readonly keyspace: Keyspace;
  readonly tables: Tables;
  readonly registry: SpreadRegistry;
  readonly hotIds: HotIds;
  readonly lifecycle: Lifecycle;
  /** abandons in-flight writes (the drain deadline, a failure) */
  readonly signal: AbortSignal;
  /** throws when start-up was aborted (a signal arrived) */
  readonly checkStart: () => void;
  /** a fatal error of the consumer: the service stops */
  readonly fail: (err: unknown) => void;
}

export interface IngestSide {
  readonly ingest: IngestConsumer;
  /** joins the ingest group and starts consuming, and the lag monitor */
  start(): Promise<void>;
}

/**
 * Remembers the series the catalog holds (up to `max`, in key order) as written: without it, every
 * start of an ingest process writes each series it meets again, and every write replaces the
 * catalog's generation and fills its journal, which each query process then reads (measured in the
 * live bench: 1 MB of journal per query reread for the hour after a restart). Taken page by page as
 * the scan reads them, keyed by the row's own cell (the canonical tags JSON the writer keyed it by).
 * A failed read keeps what was taken; the rest is written again when first met, as before.
 */
export async function primeCatalog(
  marks: CatalogMarks,
  store: { first(limit: number): AsyncIterable<{ readonly series: Series; readonly cell: Buffer }> },
  o: { readonly log: Logger; readonly max: number },
): Promise<number> {
  const started = performance.now();
  let n = 0;
  try {
    for await (const { series, cell } of store.first(o.max)) n += marks.remember([catalogCacheKey(series.metric, series.id, cell)]);
    o.log.info({ series: n, ms: Math.round(performance.now() - started) }, 'series catalog: known series remembered');
  } catch (err) {
    o.log.warn({ err, remembered: n }, 'series catalog: the known series could not all be read; the others are written again when first met');
  }
  return n;
}

/** Checks the topics, connects the DLQ producer and builds the consumer with its health wiring; `start` makes it consume. */
export async function buildIngestSide(d: IngestSideDeps): Promise<IngestSide> {
  const { cfg, log, kafka, metrics, keyspace, tables, lifecycle, closers } = d;
  const { regions, out } = d.write;
  await requireTopics(kafka, [cfg.kafka.topic, cfg.kafka.dlqTopic], (err) => explainKafkaFailure(cfg.kafka, err));
  d.checkStart();
  const producer = await dlqProducer(kafka, closers);
  const catalog = catalogMarks(cfg, tables);
  if (catalog !== undefined) await primeCatalog(catalog, new CatalogStore(d.hbase, { table: tables.meta.name }), { log, max: cfg.catalog.cacheSize });
  d.checkStart();
  const writer = writeSide({ cfg, hbase: d.hbase, metrics, regions, keyspace, tables, outage: out, hotIds: d.hotIds, catalog });
  const hooks = { signal: d.signal, onFatal: d.fail, onPoll: brokerHealth(lifecycle, log) };
  const side = consumeSide({ cfg, kafka, producer, writer, outage: out, keyspace, tables, registry: d.registry, metrics, log, hooks, closers });
  closers.add('HBase health', wireHBaseHealth(out.watch, side.ingest, lifecycle, log));
  closers.add(
    'consumer events',
    watchConsumer(
      side.consumer,
      cfg.kafka.topic,
      consumerHealth({
        lifecycle,
        log,
        ingest: side.ingest,
        lag: side.lag,
        fail: d.fail,
        onJoin: () => {
          metrics.consumerGroupJoins.inc({ group: 'ingest' });
        },
      }),
    ),
  );
  return {
    ingest: side.ingest,
    start: async () => {
      await side.ingest.start();
      side.lag.start();
    },
  };
}
