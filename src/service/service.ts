// The composition root: builds the parts of the process's role (roles.ts: ingest, query or all) from
// one validated Config (parts.ts, ingest-side.ts, read-side.ts), wires health (health.ts) and failure,
// starts consuming (ingest), and on stop drains, then closes everything in reverse order
// (shutdown.ts). Nothing here is a global; tests start several services at once.
import type { Logger } from 'pino';
import { checkTables } from '../admin/apply-tables.ts';
import { errorMessage } from '../errors.ts';
import type { IngestConsumer } from '../ingest/consumer.ts';
import { createGatewayMetrics, type GatewayMetrics } from '../metrics/gateway-metrics.ts';
import { createMetrics, type Metrics } from '../metrics/ingest-metrics.ts';
import type { Keyspace } from '../keys/index.ts';
import type { HotIds } from '../load/hot-ids.ts';
import type { Config } from '../runtime/config.ts';
import type { SpreadRegistry } from '../spread/registry.ts';
import { startHttpServer, type RouteHandler } from '../runtime/http.ts';
import { Lifecycle } from '../runtime/lifecycle.ts';
import { registryHealth } from './health.ts';
import { createHBaseClient, kafkaClient } from './clients.ts';
import { frontDoor } from './front-door-side.ts';
import { explainHBaseTlsFailure } from './hbase-credentials.ts';
import { buildIngestSide, hotIdsOf, writeParts, type ServiceBase, type WriteParts } from './ingest-side.ts';
import { keyspaceOf, tablesOf } from './keyspace.ts';
import { absentRoutes, partsOf, readConfig, usesKafka, type RoleParts, type ServiceRole } from './roles.ts';
import { startPromoter, startRegistry } from './spread-side.ts';
import { startReadSide, type ReadSide } from './read-side.ts';
import { registerEventLoopDelay } from '../metrics/event-loop-metrics.ts';
import { StartupError } from './service-settings.ts';
import { Closers, withGrace } from './shutdown.ts';

export { StartupError, planSettings } from './service-settings.ts';

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

/** The process's own parts, built before anything is connected: its metrics, its lifecycle and its closers. */
interface Core {
  readonly log: Logger;
  readonly metrics: Metrics;
  readonly lifecycle: Lifecycle;
  readonly closers: Closers;
}

function coreOf(log: Logger): Core {
  const metrics = createMetrics();
  const lifecycle = new Lifecycle({ log, metrics });
  const closers = new Closers(log);
  closers.add('event loop delay', registerEventLoopDelay(metrics.registry));
  return { log, metrics, lifecycle, closers };
}

/**
 * The routes the read side (read API, series API, hot-spots page; src/service/read-side.ts) answers,
 * mounted once it is built: the HTTP server answers health from the start, before the read side
 * exists. The routes of the parts the role does not run answer 404 saying which role serves them.
 */
class ReadRoutes {
  readonly #absent: RouteHandler;
  #mounted: RouteHandler | undefined;

  constructor(role: ServiceRole) {
    this.#absent = absentRoutes(role);
  }

  mount(routes: RouteHandler): void {
    if (this.#mounted !== undefined) throw new Error('the read routes are mounted once');
    this.#mounted = routes;
  }

  readonly handle: RouteHandler = async (req, res, url, ctx) =>
    (await this.#absent(req, res, url, ctx)) || ((await this.#mounted?.(req, res, url, ctx)) ?? false);
}

async function openHttp(cfg: Config, core: Core, routes: ReadRoutes): Promise<{ readonly port: number }> {
  const { log, metrics, lifecycle, closers } = core;
  const door = frontDoor(cfg, log, metrics.registry);
  const http = await startHttpServer({
    host: cfg.http.host,
    port: cfg.http.port,
    registry: metrics.registry,
    lifecycle,
    log,
    guard: door.guard,
    ...(door.tls === undefined ? {} : { tls: door.tls }),
    routes: routes.handle,
  });
  closers.add('http server', () => http.close());
  return http;
}

/** Throws when start-up was aborted (a signal arrived before the service ran). */
function startCheck(signal: AbortSignal | undefined): () => void {
  return () => {
    if (signal?.aborted === true) throw new StartupError('start-up aborted by a signal', signal.reason);
  };
}

/** The write path's client (a query process reads through this one client: its read side's), once the tables check out. */
async function connectHBase(cfg: Config, core: Core, parts: RoleParts): Promise<{ base: ServiceBase; gatewayMetrics: GatewayMetrics }> {
  const { log, metrics, closers } = core;
  const tables = tablesOf(cfg);
  const gatewayMetrics = createGatewayMetrics(metrics.registry);
  const hbase = createHBaseClient(cfg, parts.ingest ? 'write' : 'read', gatewayMetrics);
  closers.add('HBase client', () => hbase.close());
  const problems = await checkTables(cfg, hbase).catch((err: unknown) => {
    const why = explainHBaseTlsFailure(cfg.hbase, err);
    throw why === undefined ? err : new StartupError(why, err);
  });
  if (problems.length > 0) throw new StartupError(`refusing to start:\n  ${problems.join('\n  ')}`);
  return { base: { cfg, tables, hbase, metrics, log, closers }, gatewayMetrics };
}

/** The spread registry, the keyspace over it and, with a write path, the hot ids and the promoter. */
interface Spread {
  readonly registry: SpreadRegistry;
  readonly keyspace: Keyspace;
  readonly hotIds: HotIds | undefined;
}

/**
 * A query process only reads the registry (no promoter, no fence raises); with a write path, its
 * refresh failures feed that path's outage watch.
 */
async function spreadOf(base: ServiceBase, parts: RoleParts, write: WriteParts | undefined, checkStart: () => void): Promise<Spread> {
  const { registry, metrics } = await startRegistry(base, write?.out.watch);
  checkStart();
  const keyspace = keyspaceOf(base.cfg, registry);
  const hotIds = write === undefined ? undefined : hotIdsOf(base, keyspace, write.regions.regionMap);
  if (parts.promoter && hotIds !== undefined) startPromoter(base, { registry, hotIds, metrics });
  return { registry, keyspace, hotIds };
}

/**
 * The service's stop, made before the parts it stops: the read side and the consumer are handed to
 * it as they are built. A fatal error of the consumer stops the service once start-up completed
 * (`serving`); before that it is not acted on here (the start fails or completes on its own).
 */
class Stopping {
  readonly #cfg: Config;
  readonly #core: Core;
  /** abandons in-flight writes (drain deadline, failure) */
  readonly #abort = new AbortController();
  readonly #finished = deferred();
  #read: ReadSide | undefined;
  #ingest: IngestConsumer | undefined;
  #serving = false;
  #stopping: Promise<void> | undefined;
  /** the fatal error the service stops for (set before the stop begins): `finished` rejects with it */
  #failure: { readonly err: unknown } | undefined;

  constructor(cfg: Config, core: Core) {
    this.#cfg = cfg;
    this.#core = core;
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  get finished(): Promise<void> {
    return this.#finished.promise;
  }

  /** The read side stops before the drain. */
  readSide(read: ReadSide): void {
    this.#read = read;
  }

  /** The consumer drains. */
  consumer(ingest: IngestConsumer): void {
    this.#ingest = ingest;
  }

  /** Start-up completed: a fatal error stops the service from now on. */
  serving(): void {
    this.#serving = true;
  }

  readonly fail = (err: unknown): void => {
    if (!this.#serving || this.#failure !== undefined) return;
    this.#failure = { err }; // also during a drain for a signal: the stop then fails with it
    this.#core.log.fatal({ err }, 'ingest failed');
    void this.stop('failure').catch(() => undefined);
  };

  readonly stop = (reason: string): Promise<void> => {
    this.#stopping ??= this.#stop(reason);
    return this.#stopping;
  };

  async #stop(reason: string): Promise<void> {
    const { lifecycle, closers, log } = this.#core;
    if (lifecycle.state !== 'draining' && lifecycle.live) lifecycle.transition('draining', reason);
    let drainErr: unknown;
    // Everything below ends shortly before the drain deadline (the signal handler's watchdog).
    const graceMs = drainGraceMs(this.#cfg);
    const deadline = performance.now() + graceMs;
    try {
      // The read side first; its rollup run (left for the next run when stopped) is waited for
      // at most a third of the grace, so whatever it has in flight the drain keeps the rest.
      await this.#read?.stop(Math.floor(graceMs * READ_SIDE_SHARE));
      // Give in-flight units until shortly before the drain deadline, then abandon them
      // uncommitted (they are replayed) rather than be killed mid-commit.
      const consumer = this.#ingest;
      if (consumer !== undefined) await withGrace(Math.max(100, deadline - performance.now()), this.#abort, () => consumer.drain());
    } catch (err) {
      drainErr = err;
    }
    this.#abort.abort(new Error('stopped'));
    await closers.closeAll();
    if (drainErr !== undefined) {
      log.error({ err: drainErr }, 'drain failed: written work was left uncommitted and will be replayed on restart');
      if (lifecycle.live) lifecycle.transition('failed', `drain failed: ${errorMessage(drainErr)}`);
      this.#finished.reject(drainErr);
      throw drainErr instanceof Error ? drainErr : new Error(errorMessage(drainErr));
    }
    const failure = this.#failure;
    if (failure !== undefined) {
      // A fatal stop is a failure even when its drain committed everything: `finished` says so,
      // and `tsingest run` exits non-zero (src/runtime/exit-codes.ts).
      if (lifecycle.live) lifecycle.transition('failed', errorMessage(failure.err));
      this.#finished.reject(failure.err);
      throw failure.err instanceof Error ? failure.err : new Error(errorMessage(failure.err));
    }
    if (lifecycle.state === 'draining') lifecycle.transition('stopped', reason);
    this.#finished.resolve();
  }

  /** Start-up failed with `err`: drains a consumer that started, closes everything; returns what the start throws. */
  async startFailed(err: unknown, signal: AbortSignal | undefined): Promise<unknown> {
    const { lifecycle, closers } = this.#core;
    const started = this.#ingest;
    if (started !== undefined) await withGrace(drainGraceMs(this.#cfg), this.#abort, () => started.drain()).catch(() => undefined);
    this.#abort.abort(err);
    await closers.closeAll();
    const aborted = signal?.aborted === true;
    if (aborted && lifecycle.live) {
      lifecycle.transition('draining', 'signal during start-up');
      lifecycle.transition('stopped', 'start-up aborted');
    } else if (lifecycle.live) {
      lifecycle.transition('failed', errorMessage(err));
    }
    return aborted && !(err instanceof StartupError) ? new StartupError('start-up aborted by a signal', err) : err;
  }
}

export async function startService(cfg: Config, log: Logger, options: StartOptions = {}): Promise<Service> {
  const role = cfg.service.role;
  const parts = partsOf(role);
  const core = coreOf(log);
  const { metrics, lifecycle, closers } = core;
  const routes = new ReadRoutes(role);
  const http = await openHttp(cfg, core, routes);
  const stopping = new Stopping(cfg, core);
  const checkStart = startCheck(options.signal);
  try {
    checkStart();
    const { base, gatewayMetrics } = await connectHBase(cfg, core, parts);
    checkStart();
    const write = parts.ingest ? await writeParts(base, stopping.signal) : undefined;
    const { registry, keyspace, hotIds } = await spreadOf(base, parts, write, checkStart);
    // The read side (read API, series API, hot-spots page, rollup job) stops before the drain.
    const kafka = usesKafka(parts, cfg) ? kafkaClient(cfg, log) : undefined;
    const read = startReadSide({
      cfg: readConfig(cfg, parts),
      log,
      metrics,
      parts,
      keyspace,
      tables: base.tables,
      registry,
      load: parts.ui && write !== undefined && hotIds !== undefined ? { regionMap: write.regions.regionMap, hotIds } : undefined,
      gatewayMetrics,
      kafka,
      hbase: parts.ingest ? undefined : base.hbase,
    });
    routes.mount(read.routes);
    stopping.readSide(read);
    closers.add('read side', () => read.close());
    if (write !== undefined && hotIds !== undefined && kafka !== undefined) {
      const side = await buildIngestSide({
        ...base,
        kafka,
        write,
        keyspace,
        registry,
        hotIds,
        lifecycle,
        signal: stopping.signal,
        checkStart,
        fail: stopping.fail,
      });
      stopping.consumer(side.ingest);
      await side.start();
    } else {
      // Nothing written, no consumer: HBase answering the registry's refresh is what ready means.
      const limitMs = Math.max(cfg.hbase.outageDeadlineMs, registry.timing.validityMs);
      closers.add('HBase health', registryHealth({ registry, lifecycle, log, limitMs }));
    }
    checkStart();
    stopping.serving();
    lifecycle.started(parts.ingest ? 'consuming' : 'serving reads');
    return { role, lifecycle, metrics, httpPort: http.port, stop: stopping.stop, finished: stopping.finished };
  } catch (err) {
    throw await stopping.startFailed(err, options.signal);
  }
}
