// The composition root: builds the parts of the process's role (roles.ts: ingest, query or all) from
// one validated Config (parts.ts, ingest-side.ts, read-side.ts), wires health (health.ts) and failure,
// starts consuming (ingest), and on stop drains, then closes everything in reverse order
// (shutdown.ts). Nothing here is a global; tests start several services at once.
import type { Logger } from 'pino';
import { checkTables } from '../admin/apply-tables.ts';
import { errorMessage } from '../errors.ts';
import type { IngestConsumer } from '../ingest/consumer.ts';
import { createGatewayMetrics } from '../metrics/gateway-metrics.ts';
import { createMetrics, type Metrics } from '../metrics/ingest-metrics.ts';
import type { Config } from '../runtime/config.ts';
import { startHttpServer, type RouteHandler } from '../runtime/http.ts';
import { Lifecycle } from '../runtime/lifecycle.ts';
import { registryHealth } from './health.ts';
import { createHBaseClient, kafkaClient } from './clients.ts';
import { frontDoor } from './front-door-side.ts';
import { explainHBaseTlsFailure } from './hbase-credentials.ts';
import { buildIngestSide, hotIdsOf, writeParts } from './ingest-side.ts';
import { keyspaceOf, tablesOf } from './keyspace.ts';
import { absentRoutes, partsOf, readConfig, usesKafka, type ServiceRole } from './roles.ts';
import { startPromoter, startRegistry } from './spread-side.ts';
import { startReadSide } from './read-side.ts';
import { registerEventLoopDelay } from '../metrics/event-loop-metrics.ts';
import { StartupError } from './settings.ts';
import { Closers, withGrace } from './shutdown.ts';

export { StartupError, planSettings } from './settings.ts';

export interface Service {
  /** what this process runs (service.role) */
  readonly role: ServiceRole;
  readonly lifecycle: Lifecycle;
  readonly metrics: Metrics;
  readonly httpPort: number;
  /** graceful: stop serving reads, stop fetching, let in-flight units finish and commit, close everything; rejects when the drain could not commit what it wrote */
  stop(reason: string): Promise<void>;
  /** resolves when the service stopped; rejects with the cause if it failed */
  readonly finished: Promise<void>;
}

export interface StartOptions {
  /** aborting it during start-up stops the start cleanly (a signal arrived before the service ran) */
  readonly signal?: AbortSignal | undefined;
}

/** The drain's time: shutdown.drainTimeoutMs less 3 s for closing (at least 100 ms). */
function drainGraceMs(cfg: Config): number {
  return Math.max(100, cfg.shutdown.drainTimeoutMs - 3000);
}

/** The part of the drain's time the read side may take to stop (its rollup run in flight). */
const READ_SIDE_SHARE = 1 / 3;

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
  const role = cfg.service.role;
  const parts = partsOf(role);
  const metrics = createMetrics();
  const lifecycle = new Lifecycle({ log, metrics });
  const closers = new Closers(log);
  closers.add('event loop delay', registerEventLoopDelay(metrics.registry));
  // Extra HTTP routes and what must stop before the drain: the read side (read API, series API,
  // rollup scheduler, hot-ids page; src/service/read-side.ts) plugs in here. The routes of the parts
  // the role does not run answer 404 saying which role serves them.
  const extra: { routes?: RouteHandler; stopFirst: ((waitMs: number) => Promise<void>)[] } = { stopFirst: [] };
  const absent = absentRoutes(role);
  const door = frontDoor(cfg, log);
  const http = await startHttpServer({
    host: cfg.http.host,
    port: cfg.http.port,
    registry: metrics.registry,
    lifecycle,
    log,
    guard: door.guard,
    ...(door.tls === undefined ? {} : { tls: door.tls }),
    routes: async (req, res, url, ctx) => (await absent(req, res, url, ctx)) || ((await extra.routes?.(req, res, url, ctx)) ?? false),
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
    // The write path's client; a query process reads through this one client (its read side's).
    const hbase = createHBaseClient(cfg, parts.ingest ? 'write' : 'read', gatewayMetrics);
    closers.add('HBase client', () => hbase.close());
    const problems = await checkTables(cfg, hbase).catch((err: unknown) => {
      const why = explainHBaseTlsFailure(cfg.hbase, err);
      throw why === undefined ? err : new StartupError(why, err);
    });
    if (problems.length > 0) throw new StartupError(`refusing to start:\n  ${problems.join('\n  ')}`);
    checkStart();
    const base = { cfg, tables, hbase, metrics, log, closers };
    const write = parts.ingest ? await writeParts(base, abort.signal) : undefined;
    // The spread registry: a query process only reads it (no promoter, no fence raises); with a write
    // path, its refresh failures feed that path's outage watch.
    const { registry, metrics: spreadMetrics } = await startRegistry(cfg, tables, hbase, metrics, log, closers, write?.out.watch);
    checkStart();
    const keyspace = keyspaceOf(cfg, registry);
    const hotIds = write === undefined ? undefined : hotIdsOf(base, keyspace, write.regions.regionMap);
    if (parts.promoter && hotIds !== undefined) startPromoter(cfg, tables, hbase, registry, hotIds, spreadMetrics, log, closers);
    // The read side (read API, series API, hot-spots page, rollup job) stops before the drain.
    const kafka = usesKafka(parts, cfg) ? kafkaClient(cfg, log) : undefined;
    const read = startReadSide({
      cfg: readConfig(cfg, parts),
      log,
      metrics,
      parts,
      keyspace,
      tables,
      registry,
      load: parts.ui && write !== undefined && hotIds !== undefined ? { regionMap: write.regions.regionMap, hotIds } : undefined,
      gatewayMetrics,
      kafka,
      hbase: parts.ingest ? undefined : hbase,
    });
    extra.routes = read.routes;
    extra.stopFirst.push((waitMs) => read.stop(waitMs));
    closers.add('read side', () => read.close());

    let fail: (err: unknown) => void = () => undefined;
    if (write !== undefined && hotIds !== undefined && kafka !== undefined) {
      const side = await buildIngestSide({
        ...base,
        kafka,
        write,
        keyspace,
        registry,
        hotIds,
        lifecycle,
        signal: abort.signal,
        checkStart,
        fail: (err) => {
          fail(err);
        },
      });
      ingest = side.ingest;
      await side.start();
    } else {
      // Nothing written, no consumer: HBase answering the registry's refresh is what ready means.
      closers.add('HBase health', registryHealth(registry, lifecycle, log, Math.max(cfg.hbase.outageDeadlineMs, registry.timing.validityMs)));
    }
    checkStart();

    let stopping: Promise<void> | undefined;
    /** the fatal error the service stops for (set before the stop begins): `finished` rejects with it */
    let failure: { readonly err: unknown } | undefined;
    const stop = (reason: string): Promise<void> => {
      stopping ??= (async () => {
        if (lifecycle.state !== 'draining' && lifecycle.live) lifecycle.transition('draining', reason);
        let drainErr: unknown;
        // Everything below ends shortly before the drain deadline (the signal handler's watchdog).
        const graceMs = drainGraceMs(cfg);
        const deadline = performance.now() + graceMs;
        try {
          // The read side first; its rollup run (left for the next run when stopped) is waited for
          // at most a third of the grace, so whatever it has in flight the drain keeps the rest.
          for (const s of extra.stopFirst) await s(Math.floor(graceMs * READ_SIDE_SHARE));
          // Give in-flight units until shortly before the drain deadline, then abandon them
          // uncommitted (they are replayed) rather than be killed mid-commit.
          const consumer = ingest;
          if (consumer !== undefined) await withGrace(Math.max(100, deadline - performance.now()), abort, () => consumer.drain());
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
    lifecycle.started(parts.ingest ? 'consuming' : 'serving reads');
    return { role, lifecycle, metrics, httpPort: http.port, stop, finished: finished.promise };
  } catch (err) {
    const started = ingest;
    if (started !== undefined) await withGrace(drainGraceMs(cfg), abort, () => started.drain()).catch(() => undefined);
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
