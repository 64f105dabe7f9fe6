// The composition root: builds every part from one validated Config, starts them in order and
// stops them in the reverse order. Nothing here is a global; tests start several services at once.
import { Kafka } from 'kafkajs';
import PQueue from 'p-queue';
import type { Logger } from 'pino';
import { HBaseRestClient, isRetriable, isHBaseError } from '../hbase/index.ts';
import { resolveEventLimits, resolveFieldMapping } from '../events/index.ts';
import { checkTables } from '../admin/apply-tables.ts';
import { createMetrics, type Metrics } from '../metrics/registry.ts';
import { RegionMap } from '../metrics/region-map.ts';
import { WriteSpread } from '../metrics/write-spread.ts';
import { DualWriter } from '../ingest/dual-writer.ts';
import { RollupMarks } from '../ingest/rollup-marks.ts';
import { parseWindows } from '../rollup/windows.ts';
import { KafkaDlq } from '../ingest/dlq.ts';
import { IngestConsumer } from '../ingest/consumer.ts';
import type { PlanSettings } from '../ingest/batch-plan.ts';
import { Lifecycle } from '../runtime/lifecycle.ts';
import { startHttpServer, type HttpServerHandle } from '../runtime/http.ts';
import type { Config } from '../runtime/config.ts';
import { kafkaLogCreator } from './kafka-logging.ts';
import { ingestObserver, writeObserver } from './observers.ts';

export class StartupError extends Error {
  override readonly name = 'StartupError';
}

export interface Service {
  readonly lifecycle: Lifecycle;
  readonly metrics: Metrics;
  readonly httpPort: number;
  /** graceful: stop fetching, finish or abandon in-flight writes, commit, close everything */
  stop(reason: string): Promise<void>;
  /** resolves when the service stopped; rejects with the cause if it failed */
  readonly finished: Promise<void>;
}

function planSettings(cfg: Config): () => PlanSettings {
  const base = {
    mapping: resolveFieldMapping(cfg.events.mapping),
    buckets: cfg.keys.saltBuckets,
    keyFormat: cfg.keys.format,
    dataFamily: cfg.tables.data.family,
    indexFamily: cfg.tables.index.family,
    indexTags: cfg.index.tags,
    indexSaltMode: cfg.index.saltMode,
  };
  const skew = cfg.events.maxFutureSkewMs;
  const staticLimits = resolveEventLimits({ maxCellBytes: cfg.events.maxCellBytes });
  if (skew === null) return () => ({ ...base, limits: staticLimits });
  return () => ({ ...base, limits: resolveEventLimits({ maxCellBytes: cfg.events.maxCellBytes, nowMs: Date.now(), maxFutureSkewMs: skew }) });
}

function rollupMarks(cfg: Config): RollupMarks {
  const finest = parseWindows(cfg.rollup.windows)[0];
  if (finest === undefined) throw new StartupError('rollup.windows is empty');
  return new RollupMarks({ window: finest, graceMs: cfg.rollup.graceMs, buckets: cfg.keys.saltBuckets, family: cfg.tables.rollup.family, cacheSize: cfg.rollup.markerCacheSize });
}

async function requireTopics(kafka: Kafka, topics: readonly string[]): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t));
    if (missing.length > 0) throw new StartupError(`Kafka topic(s) ${missing.join(', ')} do not exist; create them (kafka.topic and kafka.dlqTopic)`);
  } finally {
    await admin.disconnect();
  }
}

export async function startService(cfg: Config, log: Logger): Promise<Service> {
  const metrics = createMetrics();
  const lifecycle = new Lifecycle({ log, metrics });
  const http: HttpServerHandle = await startHttpServer({ host: cfg.http.host, port: cfg.http.port, registry: metrics.registry, lifecycle, log });
  const hbase = new HBaseRestClient({ baseUrl: cfg.hbase.restUrl, defaultDeadlineMs: cfg.hbase.requestDeadlineMs, connections: cfg.hbase.connections });
  const abort = new AbortController();
  const closers: (() => Promise<unknown> | undefined)[] = [() => http.close(), () => hbase.close()];
  const closeAll = async (): Promise<void> => {
    for (const close of closers.reverse()) await Promise.resolve(close()).catch((err: unknown) => { log.warn({ err }, 'error while closing'); });
  };
  try {
    const problems = await checkTables(cfg, hbase);
    if (problems.length > 0) throw new StartupError(`refusing to start:\n  ${problems.join('\n  ')}`);

    const tables = { data: cfg.tables.data.name, index: cfg.tables.index.name };
    const rollupTable = cfg.tables.rollup.name;
    const mapped = cfg.rollup.enabled ? [tables.data, tables.index, rollupTable] : [tables.data, tables.index];
    const regionMap = new RegionMap({ source: { regions: async (t) => (await hbase.regions(t)).map((r) => ({ name: r.name, startKey: r.startKey, endKey: r.endKey, server: r.location })) }, tables: mapped, log, metrics });
    await Promise.all(mapped.map((t) => regionMap.refresh(t)));
    regionMap.refreshEvery(cfg.metrics.regionRefreshMs);
    const spread = new WriteSpread({ metrics, regionMap, windowMs: cfg.metrics.skewWindowMs });
    closers.push(() => { regionMap.stop(); spread.close(); return undefined; });

    const kafka = new Kafka({ clientId: cfg.kafka.clientId, brokers: cfg.kafka.brokers, logCreator: kafkaLogCreator(log) });
    await requireTopics(kafka, [cfg.kafka.topic, cfg.kafka.dlqTopic]);
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    closers.push(() => producer.disconnect());

    const ingestRef: { current?: IngestConsumer } = {};
    const writer = new DualWriter({
      sink: hbase,
      queue: new PQueue({ concurrency: cfg.hbase.concurrency }),
      tables,
      chunk: { maxRows: cfg.batch.maxRows, maxBytes: cfg.batch.maxBytes },
      retry: { baseMs: cfg.hbase.retryBaseMs, maxMs: cfg.hbase.retryMaxMs, outageDeadlineMs: cfg.hbase.outageDeadlineMs },
      isRetriable,
      isRowRejection: (err) => isHBaseError(err, 'BAD_REQUEST'),
      observer: writeObserver(metrics, spread, regionMap, { [tables.data]: cfg.keys.format, [tables.index]: 'binary', [rollupTable]: 'binary' }),
      marks: cfg.rollup.enabled ? { table: rollupTable, planner: rollupMarks(cfg) } : undefined,
      hooks: {
        onOutage: (err, sinceMs) => {
          log.error({ err, sinceMs }, 'HBase unavailable past the outage deadline: pausing consumption until it returns');
          ingestRef.current?.pause();
          if (lifecycle.state === 'running') lifecycle.transition('degraded', `HBase unavailable for ${Math.round(sinceMs / 1000)}s`);
        },
        onRecovered: () => {
          log.info('HBase answers again: resuming consumption');
          ingestRef.current?.resume();
          if (lifecycle.state === 'degraded') lifecycle.transition('running', 'HBase recovered');
        },
      },
      signal: abort.signal,
    });

    let fail: (err: unknown) => void = () => undefined;
    const failed = new Promise<never>((_resolve, reject) => { fail = reject; });
    failed.catch(() => undefined);
    const ingest = new IngestConsumer({
      consumer: kafka.consumer({
        groupId: cfg.kafka.groupId,
        sessionTimeout: cfg.kafka.sessionTimeoutMs,
        heartbeatInterval: cfg.kafka.heartbeatIntervalMs,
        maxBytesPerPartition: cfg.kafka.maxBytesPerPartition,
        maxWaitTimeInMs: cfg.kafka.maxWaitTimeMs,
      }),
      topic: cfg.kafka.topic,
      fromBeginning: cfg.kafka.fromBeginning,
      partitionsConsumedConcurrently: cfg.kafka.partitionsConsumedConcurrently,
      heartbeatIntervalMs: cfg.kafka.heartbeatIntervalMs,
      unit: { maxRows: cfg.batch.maxRows, maxBytes: cfg.batch.maxBytes },
      settings: planSettings(cfg),
      writer,
      dlq: new KafkaDlq(producer, cfg.kafka.dlqTopic),
      observer: ingestObserver(metrics),
      log,
      signal: abort.signal,
      onFatal: (err) => { fail(err); },
    });
    ingestRef.current = ingest;
    await ingest.start();
    const consumerRef = ingest;
    lifecycle.transition('running', 'consuming');

    let stopping: Promise<void> | undefined;
    const stop = (reason: string): Promise<void> => {
      stopping ??= (async () => {
        if (lifecycle.state === 'running' || lifecycle.state === 'degraded') lifecycle.transition('draining', reason);
        // Give in-flight writes until shortly before the drain deadline, then abandon them
        // uncommitted (they will be replayed) rather than be killed mid-commit.
        const grace = setTimeout(() => { abort.abort(new Error('drain deadline')); }, Math.max(100, cfg.shutdown.drainTimeoutMs - 3000));
        grace.unref();
        try {
          await consumerRef.stop();
        } finally {
          clearTimeout(grace);
          abort.abort(new Error('stopped'));
          await closeAll();
        }
        if (lifecycle.state === 'draining') lifecycle.transition('stopped', reason);
      })();
      return stopping;
    };
    const finished = Promise.race([
      failed.catch(async (err: unknown) => {
        log.fatal({ err }, 'ingest failed');
        await stop('failure').catch(() => undefined);
        if (lifecycle.state !== 'failed') lifecycle.transition('failed', err instanceof Error ? err.message : String(err));
        throw err;
      }),
      new Promise<void>((resolve) => { lifecycle.onTransition((t) => { if (t.to === 'stopped') resolve(); }); }),
    ]);
    return { lifecycle, metrics, httpPort: http.port, stop, finished };
  } catch (err) {
    abort.abort();
    if (lifecycle.state !== 'failed') lifecycle.transition('failed', err instanceof Error ? err.message : String(err));
    await closeAll();
    throw err;
  }
}
