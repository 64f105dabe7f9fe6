// The composition root: builds every part from one validated Config (parts.ts), wires health
// (health.ts) and failure, starts consuming, and on stop drains, then closes everything in reverse
// order (shutdown.ts). Nothing here is a global; tests start several services at once.
import type { Logger } from 'pino';
import { checkTables } from '../admin/apply-tables.ts';
import { errorMessage } from '../errors.ts';
import type { IngestConsumer } from '../ingest/consumer.ts';
import { createGatewayMetrics } from '../metrics/gateway-metrics.ts';
import { createMetrics, initKnownSeries, type Metrics } from '../metrics/ingest-metrics.ts';
import type { Config } from '../runtime/config.ts';
import { startHttpServer, type RouteHandler } from '../runtime/http.ts';
import { Lifecycle } from '../runtime/lifecycle.ts';
import { brokerHealth, consumerHealth, wireHBaseHealth } from './health.ts';
import { requireTopics, watchConsumer } from './kafka-parts.ts';
import { HotIds } from '../load/hot-ids.ts';
import { registerHotIdMetrics } from '../metrics/hot-id-metrics.ts';
import { createHBaseClient, kafkaClient } from './clients.ts';
import { frontDoor } from './front-door-side.ts';
import { explainHBaseTlsFailure } from './hbase-credentials.ts';
import { explainKafkaFailure } from './kafka-security.ts';
import { keyspaceOf, tablesOf } from './keyspace.ts';
import { consumeSide, dlqProducer, outage, regionWrites, writeSide } from './parts.ts';
import { startPromoter, startRegistry } from './spread-side.ts';
import { startReadSide } from './read-side.ts';
import { registerEventLoopDelay } from '../metrics/event-loop-metrics.ts';
import { StartupError } from './settings.ts';
import { Closers, withGrace } from './shutdown.ts';

export { StartupError, planSettings } from './settings.ts';

export interface Service {
  readonly lifecycle: Lifecycle;
  readonly metrics: Metrics;
  readonly httpPort: number;
  /** graceful: stop fetching, let in-flight units finish and commit, close everything; rejects when the drain could not commit what it wrote */
  stop(reason: string): Promise<void>;
  /** resolves when the service stopped; rejects with the cause if it failed */
  readonly finished: Promise<void>;
}

export interface StartOptions {
  /** aborting it during start-up stops the start cleanly (a signal arrived before the service ran) */
  readonly signal?: AbortSignal | undefined;
}

interface Deferred {
  readonly promise: Promise<void>;
  resolve(): void;
  reject(err: unknown): void;
}

function deferred(): Deferred {
  let resolve: () => void = () => undefined;
  let reject: (err: unknown) => void = () => undefined;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = (err) => {
      rej(err instanceof Error ? err : new Error(errorMessage(err)));
    };
  });
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

export async function startService(cfg: Config, log: Logger, options: StartOptions = {}): Promise<Service> {
  const metrics = createMetrics();
  const lifecycle = new Lifecycle({ log, metrics });
  const closers = new Closers(log);
  closers.add('event loop delay', registerEventLoopDelay(metrics.registry));
  // Extra HTTP routes and what must stop before the drain: the read side (read API, rollup
  // scheduler, hot-ids page; src/service/read-side.ts) plugs in here.
  const extra: { routes?: RouteHandler; stopFirst: (() => Promise<void>)[] } = { stopFirst: [] };
  const door = frontDoor(cfg, log);
  const http = await startHttpServer({
    host: cfg.http.host,
    port: cfg.http.port,
    registry: metrics.registry,
    lifecycle,
    log,
    guard: door.guard,
    ...(door.tls === undefined ? {} : { tls: door.tls }),
    routes: (req, res, url, ctx) => extra.routes?.(req, res, url, ctx) ?? Promise.resolve(false),
  });
  closers.add('http server', () => http.close());
  const abort = new AbortController(); // abandons in-flight writes (drain deadline, failure)
  const checkStart = (): void => {
    if (options.signal?.aborted === true) throw new StartupError('start-up aborted by a signal', options.signal.reason);
  };
  const finished = deferred();
  let ingest: IngestConsumer | undefined;
  try {
    checkStart();
    const tables = tablesOf(cfg);
    const gatewayMetrics = createGatewayMetrics(metrics.registry);
    const hbase = createHBaseClient(cfg, 'write', gatewayMetrics);
    closers.add('HBase client', () => hbase.close());
    const problems = await checkTables(cfg, hbase).catch((err: unknown) => {
      const why = explainHBaseTlsFailure(cfg.hbase, err);
      throw why === undefined ? err : new StartupError(why, err);
    });
    if (problems.length > 0) throw new StartupError(`refusing to start:\n  ${problems.join('\n  ')}`);
    checkStart();
    const regions = await regionWrites(cfg, tables, hbase, metrics, log, closers);
    closers.add('known series', initKnownSeries(metrics, { tables: tables.mapped, regions: regions.regionMap }));
    // One outage policy for every HBase call the ingest path waits for: writes and registry alike.
    const out = outage(cfg, abort.signal, closers);
    const { registry, metrics: spreadMetrics } = await startRegistry(cfg, tables, hbase, metrics, log, closers, out.watch);
    checkStart();
    const keyspace = keyspaceOf(cfg, registry);
    // Hot ids: the write path feeds them, the page and the gauges show them.
    const hotIds = new HotIds({
      table: tables.data.name,
      keyspace,
      regions: regions.regionMap,
      windowMs: cfg.metrics.hotIdsWindowMs,
      capacity: cfg.metrics.hotIdsCapacity,
    });
    closers.add('hot ids', registerHotIdMetrics(metrics.registry, hotIds));
    startPromoter(cfg, tables, hbase, registry, hotIds, spreadMetrics, log, closers);
    // The read side (read API, hot-spots page, rollup job) runs beside ingest and stops before the drain.
    const kafka = kafkaClient(cfg, log);
    const read = startReadSide({ cfg, log, metrics, regionMap: regions.regionMap, keyspace, tables, registry, hotIds, gatewayMetrics, kafka });
    extra.routes = read.routes;
    extra.stopFirst.push(() => read.stop());
    closers.add('read side', () => read.close());
    await requireTopics(kafka, [cfg.kafka.topic, cfg.kafka.dlqTopic], (err) => explainKafkaFailure(cfg.kafka, err));
    checkStart();
    const producer = await dlqProducer(kafka, closers);
    const writer = writeSide(cfg, hbase, metrics, regions, keyspace, tables, out, hotIds);

    let fail: (err: unknown) => void = () => undefined;
    const side = consumeSide(
      cfg,
      kafka,
      producer,
      writer,
      out,
      keyspace,
      tables,
      registry,
      metrics,
      log,
      {
        signal: abort.signal,
        onFatal: (err) => {
          fail(err);
        },
        onPoll: brokerHealth(lifecycle, log),
      },
      closers,
    );
    ingest = side.ingest;
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
          fail: (err) => {
            fail(err);
          },
        }),
      ),
    );
    await side.ingest.start();
    side.lag.start();
    checkStart();

    let stopping: Promise<void> | undefined;
    /** the fatal error the service stops for (set before the stop begins): `finished` rejects with it */
    let failure: { readonly err: unknown } | undefined;
    const stop = (reason: string): Promise<void> => {
      stopping ??= (async () => {
        if (lifecycle.state !== 'draining' && lifecycle.live) lifecycle.transition('draining', reason);
        let drainErr: unknown;
        try {
          for (const s of extra.stopFirst) await s();
          // Give in-flight units until shortly before the drain deadline, then abandon them
          // uncommitted (they are replayed) rather than be killed mid-commit.
          await withGrace(Math.max(100, cfg.shutdown.drainTimeoutMs - 3000), abort, () => side.ingest.drain());
        } catch (err) {
          drainErr = err;
        }
        abort.abort(new Error('stopped'));
        await closers.closeAll();
        if (drainErr !== undefined) {
          log.error({ err: drainErr }, 'drain failed: written work was left uncommitted and will be replayed on restart');
          if (lifecycle.live) lifecycle.transition('failed', `drain failed: ${errorMessage(drainErr)}`);
          finished.reject(drainErr);
          throw drainErr instanceof Error ? drainErr : new Error(errorMessage(drainErr));
        }
        if (failure !== undefined) {
          // A fatal stop is a failure even when its drain committed everything: `finished` says so,
          // and `tsingest run` exits non-zero (src/runtime/exit-codes.ts).
          if (lifecycle.live) lifecycle.transition('failed', errorMessage(failure.err));
          finished.reject(failure.err);
          throw failure.err instanceof Error ? failure.err : new Error(errorMessage(failure.err));
        }
        if (lifecycle.state === 'draining') lifecycle.transition('stopped', reason);
        finished.resolve();
      })();
      return stopping;
    };
    fail = (err) => {
      if (failure !== undefined) return;
      failure = { err }; // also during a drain for a signal: the stop then fails with it
      log.fatal({ err }, 'ingest failed');
      void stop('failure').catch(() => undefined);
    };
    lifecycle.started('consuming');
    return { lifecycle, metrics, httpPort: http.port, stop, finished: finished.promise };
  } catch (err) {
    const started = ingest;
    if (started !== undefined) await withGrace(Math.max(100, cfg.shutdown.drainTimeoutMs - 3000), abort, () => started.drain()).catch(() => undefined);
    abort.abort(err);
    await closers.closeAll();
    const aborted = options.signal?.aborted === true;
    if (aborted && lifecycle.live) {
      lifecycle.transition('draining', 'signal during start-up');
      lifecycle.transition('stopped', 'start-up aborted');
    } else if (lifecycle.live) {
      lifecycle.transition('failed', errorMessage(err));
    }
    throw aborted && !(err instanceof StartupError) ? new StartupError('start-up aborted by a signal', err) : err;
  }
}
