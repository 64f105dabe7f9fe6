// Builders of the service's parts, each from the validated Config and the parts it depends on. No
// wiring of failure or health here (service.ts and health.ts do that).
import type { CatalogMarks } from '../catalog/marks.ts';
import { Partitioners, type Kafka, type Producer } from 'kafkajs';
import PQueue from 'p-queue';
import type { Logger } from 'pino';
import { classifyError } from '../errors.ts';
import { isAccessRefused, isHBaseError, isRetriable, type HBaseRestClient } from '../hbase/index.ts';
import type { Keyspace, Tables } from '../keys/index.ts';
import type { SpreadRegistry } from '../spread/registry.ts';
import { unitPlanner } from '../ingest/unit-planner.ts';
import type { Metrics } from '../metrics/ingest-metrics.ts';
import { RegionMap } from '../load/region-map.ts';
import type { RegionWrites } from '../load/region-writes.ts';
import { meteredRegionWrites, regionMapObserver } from '../metrics/region-writes-metrics.ts';
import { EventWriter } from '../ingest/event-writer.ts';
import { OutagePolicy } from '../ingest/outage-policy.ts';
import { OutageWatch } from '../ingest/outage-watch.ts';
import { KafkaDlq } from '../ingest/dlq.ts';
import { IngestConsumer } from '../ingest/consumer.ts';
import { WriteCoalescer } from '../ingest/write-coalescer.ts';
import { LagMonitor } from '../ingest/lag-monitor.ts';
import type { Config } from '../runtime/config.ts';
import { ingestObserver, lagSink, writeObserver, type HotIdFeed } from './observers.ts';
import { adminOffsetsSource } from './kafka-parts.ts';
import type { Closers } from './shutdown.ts';
import { LAG_POLL_MS, consumerConfig, planSettings, rollupMarks, touches } from './service-settings.ts';

/** What the parts of the service are built from. */
export interface ServiceBase {
  readonly cfg: Config;
  readonly tables: Tables;
  readonly hbase: HBaseRestClient;
  readonly metrics: Metrics;
  readonly log: Logger;
  readonly closers: Closers;
}

/** Region map (refreshed on a timer) and the region writes over it, with their metrics. */
export async function regionWrites(b: ServiceBase): Promise<{ regionMap: RegionMap; writes: RegionWrites }> {
  const { cfg, hbase, metrics, log, closers } = b;
  const { mapped } = b.tables;
  const source = {
    regions: async (t: string) => (await hbase.regions(t)).map((r) => ({ name: r.name, startKey: r.startKey, endKey: r.endKey, server: r.location })),
  };
  const regionMap = new RegionMap({ source, tables: mapped, log, observer: regionMapObserver(metrics) });
  await Promise.all(mapped.map((t) => regionMap.refresh(t)));
  regionMap.refreshEvery(cfg.metrics.regionRefreshMs);
  const { writes, close } = meteredRegionWrites(metrics, { regionMap, windowMs: cfg.metrics.skewWindowMs });
  closers.add('region map', () => {
    regionMap.stop();
    close();
  });
  return { regionMap, writes };
}

export async function dlqProducer(kafka: Kafka, closers: Closers): Promise<Producer> {
  // The default partitioner named explicitly: kafkajs otherwise warns about its v2 change at every start.
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  closers.add('DLQ producer', () => producer.disconnect());
  return producer;
}

/** The ingest path's one outage policy (src/ingest/outage-policy.ts) and the watch it reports to. */
export interface Outage {
  readonly watch: OutageWatch;
  readonly policy: OutagePolicy;
}

const isRowRejection = (err: unknown): boolean => isHBaseError(err, 'HBASE_BAD_REQUEST');

/**
 * Every HBase call the ingest path waits for retries what can heal: a transient HBase error (the
 * gateway's status decides, src/hbase/errors.ts), refused credentials (401/403: an outage of the
 * write path, not a bad row — retried until the gateway takes them again, a rotated secret or a
 * fixed proxy) and any ServiceError that says it is retriable (a lost registry race).
 */
export function ingestRetriable(err: unknown): boolean {
  return isRetriable(err) || isAccessRefused(err) || classifyError(err).retriable;
}

export function outage(cfg: Config, signal: AbortSignal, closers: Closers): Outage {
  const watch = new OutageWatch({ deadlineMs: cfg.hbase.outageDeadlineMs });
  watch.start();
  closers.add('outage watch', () => {
    watch.stop();
  });
  const policy = new OutagePolicy({
    retry: { baseMs: cfg.hbase.retryBaseMs, maxMs: cfg.hbase.retryMaxMs },
    isRetriable: ingestRetriable,
    // HBase answered: a refused row (bisected into the DLQ), a lost check-and-put race (read again).
    isAnswer: (err) => isRowRejection(err) || classifyError(err).code === 'REGISTRY_CONFLICT',
    watch,
    signal,
  });
  return { watch, policy };
}

export interface WriteSideOptions {
  readonly cfg: Config;
  readonly hbase: HBaseRestClient;
  readonly metrics: Metrics;
  readonly regions: { readonly regionMap: RegionMap; readonly writes: RegionWrites };
  readonly keyspace: Keyspace;
  readonly tables: Tables;
  readonly outage: Outage;
  readonly hotIds?: HotIdFeed | undefined;
  /** the series catalog's write planner (service-settings.ts catalogMarks; undefined: catalog off) */
  readonly catalog: CatalogMarks | undefined;
}

export function writeSide(o: WriteSideOptions): EventWriter {
  const { cfg, hbase, metrics, regions, keyspace, tables, outage, hotIds } = o;
  return new EventWriter({
    sink: hbase,
    queue: new PQueue({ concurrency: cfg.hbase.concurrency }),
    tables: { data: tables.data.name, index: tables.index.name },
    chunk: { maxRows: cfg.batch.maxRows, maxBytes: cfg.batch.maxBytes },
    policy: outage.policy,
    isRowRejection,
    observer: writeObserver(metrics, regions.writes, regions.regionMap, hotIds),
    marks: cfg.rollup.enabled ? { table: tables.rollup.name, planner: rollupMarks(cfg, keyspace, tables), touches: touches(cfg, keyspace, tables) } : undefined,
    catalog: o.catalog === undefined ? undefined : { table: tables.meta.name, planner: o.catalog },
  });
}

export interface ConsumeSide {
  readonly ingest: IngestConsumer;
  readonly consumer: ReturnType<Kafka['consumer']>;
  readonly lag: LagMonitor;
}

export interface ConsumeSideOptions {
  readonly cfg: Config;
  readonly kafka: Kafka;
  /** the DLQ's */
  readonly producer: Producer;
  readonly writer: EventWriter;
  readonly outage: Outage;
  readonly keyspace: Keyspace;
  readonly tables: Tables;
  readonly registry: SpreadRegistry;
  readonly metrics: Metrics;
  readonly log: Logger;
  readonly hooks: { readonly signal: AbortSignal; readonly onFatal: (err: unknown) => void; readonly onPoll: (ok: boolean, err?: unknown) => void };
  readonly closers: Closers;
}

export function consumeSide(o: ConsumeSideOptions): ConsumeSide {
  const { cfg, kafka, producer, writer, outage, keyspace, tables, registry, metrics, log, hooks, closers } = o;
  const consumer = kafka.consumer(consumerConfig(cfg));
  const ingest = new IngestConsumer({
    consumer,
    topic: cfg.kafka.topic,
    fromBeginning: cfg.kafka.fromBeginning,
    partitionsConsumedConcurrently: cfg.kafka.partitionsConsumedConcurrently,
    heartbeatIntervalMs: cfg.kafka.heartbeatIntervalMs,
    unit: { maxRows: cfg.batch.maxRows, maxBytes: cfg.batch.maxBytes },
    maxQueuedRows: cfg.batch.maxQueuedRows,
    plan: unitPlanner(planSettings(cfg, keyspace, tables), registry, outage.policy),
    writer:
      cfg.batch.lingerMs === null ? writer : new WriteCoalescer({ writer, lingerMs: cfg.batch.lingerMs, maxRows: cfg.batch.maxRows * cfg.hbase.concurrency }),
    dlq: new KafkaDlq(producer, cfg.kafka.dlqTopic),
    observer: ingestObserver(metrics),
    log,
    signal: hooks.signal,
    onFatal: hooks.onFatal,
  });
  const offsets = adminOffsetsSource(kafka.admin({ retry: { retries: 0 } }));
  const lag = new LagMonitor({
    source: offsets,
    sink: lagSink(metrics),
    topic: cfg.kafka.topic,
    groupId: cfg.kafka.groupId,
    intervalMs: LAG_POLL_MS,
    onPoll: hooks.onPoll,
  });
  closers.add('lag monitor', async () => {
    await lag.stop();
    await offsets.close();
  });
  return { ingest, consumer, lag };
}
