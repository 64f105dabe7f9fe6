/**
 * The operational HTTP endpoints, on plain node:http (no framework):
 *   GET /healthz  200 {"status":"ok","state":…} while live, else 503 {"status":"down",…}
 *   GET /readyz   200 {"status":"ready","state":"running"} when ready, else 503 with state and reason
 *   GET /metrics  Prometheus text exposition of the injected registry (`?name=…`: only those metrics)
 * HEAD is accepted wherever GET is; other methods on these paths get 405, other paths 404.
 * An optional `routes` handler (e.g. the read API) is offered every other path before the 404.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Lifecycle } from './lifecycle.ts';

export type HealthSource = Pick<Lifecycle, 'state' | 'reason' | 'ready' | 'live'>;

/**
 * Extra routes: resolves true when it answered the request, false to fall through to the 404. `url` is
 * the WHATWG-parsed request URL, whose pathname has its dot segments removed (also `%2E`-encoded ones);
 * a handler that must see the path as sent reads `req.url` (the read API does).
 */
export type RouteHandler = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean>;

export interface HttpServerOptions {
  readonly host: string;
  /** 0 picks a free port (see the returned `port`). */
  readonly port: number;
  readonly registry: Pick<Registry, 'metrics' | 'contentType' | 'getSingleMetric' | 'getSingleMetricAsString'>;
  readonly lifecycle: HealthSource;
  readonly log: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** On close, connections still open after this long are cut. Default 2000 ms. */
  readonly closeTimeoutMs?: number;
  /** Tried for paths other than /healthz, /readyz and /metrics, before answering 404. */
  readonly routes?: RouteHandler;
}

export interface HttpServerHandle {
  readonly port: number;
  /** Stops listening and closes connections; idempotent (every call returns the same promise). */
  close(): Promise<void>;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const ROUTES = new Set(['/healthz', '/readyz', '/metrics']);

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, body: Record<string, unknown>): void {
  send(res, status, JSON_TYPE, JSON.stringify(body));
}

async function handle(options: HttpServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const { pathname } = url;
  if (!ROUTES.has(pathname) && options.routes !== undefined && (await options.routes(req, res, url))) return;
  if (!ROUTES.has(pathname)) {
    sendJson(res, 404, { status: 'not_found', path: pathname });
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    sendJson(res, 405, { status: 'method_not_allowed', method: req.method ?? '' });
    return;
  }
  const { lifecycle } = options;
  switch (pathname) {
    case '/healthz':
      if (lifecycle.live) sendJson(res, 200, { status: 'ok', state: lifecycle.state });
      else sendJson(res, 503, { status: 'down', state: lifecycle.state, reason: lifecycle.reason });
      return;
    case '/readyz':
      if (lifecycle.ready) sendJson(res, 200, { status: 'ready', state: lifecycle.state });
      else sendJson(res, 503, { status: 'not_ready', state: lifecycle.state, reason: lifecycle.reason });
      return;
    default:
      send(res, 200, options.registry.contentType, await metricsText(options.registry, url.searchParams.getAll('name')));
  }
}

/**
 * The exposition text: every metric, or only the named ones (`/metrics?name=a&name=b`, for pollers
 * that watch one counter: a full scrape runs every collect hook, e.g. the hot-ids sketch's top list).
 * An unknown name renders nothing.
 */
async function metricsText(registry: HttpServerOptions['registry'], names: readonly string[]): Promise<string> {
  if (names.length === 0) return registry.metrics();
  const parts = await Promise.all(names.filter((n) => registry.getSingleMetric(n) !== undefined).map((n) => registry.getSingleMetricAsString(n)));
  return parts.map((p) => `${p}\n`).join('');
}

export async function startHttpServer(options: HttpServerOptions): Promise<HttpServerHandle> {
  const { log } = options;
  const server = createServer((req, res) => {
    handle(options, req, res).catch((err: unknown) => {
      log.error({ err, url: req.url }, 'http handler failed');
      if (!res.headersSent) sendJson(res, 500, { status: 'error' });
      else res.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error): void => {
      reject(err);
    };
    server.once('error', onError);
    server.listen({ host: options.host, port: options.port }, () => {
      server.off('error', onError);
      resolve();
    });
  });
  server.on('error', (err) => {
    log.error({ err }, 'http server error');
  });

  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  log.info({ host: options.host, port }, 'http server listening');

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve, reject) => {
      const cut = setTimeout(() => {
        server.closeAllConnections();
      }, options.closeTimeoutMs ?? 2000);
      cut.unref();
      server.close((err) => {
        clearTimeout(cut);
        if (err === undefined) resolve();
        else reject(err);
      });
      server.closeIdleConnections();
    });
    return closing;
  };
  return { port, close };
}
