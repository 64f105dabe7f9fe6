/**
 * The operational HTTP endpoints on plain node:http (/healthz, /readyz, /metrics) and an optional
 * `routes` hook for every other path; every response carries X-Request-Id.
 * Design notes: docs/DECISIONS.md#operational-endpoints
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:https';
import type { SecureContextOptions } from 'node:tls';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Lifecycle } from './lifecycle.ts';
import { answerPlainHttp } from './plain-to-tls.ts';

export type HealthSource = Pick<Lifecycle, 'state' | 'reason' | 'ready' | 'live'>;

/**
 * Extra routes: resolves true when it answered the request, false to fall through to the 404. `url` is
 * the WHATWG-parsed request URL, whose pathname has its dot segments removed (also `%2E`-encoded ones);
 * a handler that must see the path as sent reads `req.url` (the read API does).
 */
export type RouteHandler = (req: IncomingMessage, res: ServerResponse, url: URL, ctx: RequestContext) => Promise<boolean>;

/** Who is calling, as the front door (src/front-door/guard.ts) established it, and the request's id. */
export interface RequestContext {
  readonly identity: { readonly name: string; readonly via: string; readonly scopes: ReadonlySet<string> };
  /** the X-Request-Id of the response (requestIdOf) */
  readonly requestId?: string;
}

export const REQUEST_ID_HEADER = 'x-request-id';

/** An incoming id we echo: 1–128 of letters, digits and `._:-` (anything else could forge log lines or headers). */
const WELL_FORMED_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's id: the caller's X-Request-Id when well-formed, else a new UUID. */
export function requestIdOf(req: Pick<IncomingMessage, 'headers'>): string {
  const given = req.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && WELL_FORMED_ID.test(given) ? given : randomUUID();
}

/** Without a front door: the anonymous caller of a loopback port (never admin). */
export const OPEN_CONTEXT: RequestContext = { identity: { name: 'anonymous', via: 'anonymous', scopes: new Set(['read', 'ui', 'metrics']) } };

/** HTTPS: the first certificate, key and CA, and a hook that hands over new ones when the files change. */
export interface HttpTls {
  readonly context: SecureContextOptions;
  /** ask for a client certificate (verified against context.ca); `rejectUnauthorized` refuses connections without one */
  readonly requestCert: boolean;
  readonly rejectUnauthorized: boolean;
  /** calls `apply` with each new context; returns the stop function */
  readonly watch?: (apply: (context: SecureContextOptions) => void) => () => void;
}

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
  /** Runs before every route: resolves the caller, or undefined when it answered (401, 403, 429). */
  readonly guard?: (req: IncomingMessage, res: ServerResponse, url: URL, requestId: string) => Promise<RequestContext | undefined>;
  /** Serve HTTPS instead of HTTP. */
  readonly tls?: HttpTls;
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

async function handle(options: HttpServerOptions, req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const { pathname } = url;
  const caller = options.guard === undefined ? OPEN_CONTEXT : await options.guard(req, res, url, requestId);
  if (caller === undefined) return;
  const ctx: RequestContext = { ...caller, requestId };
  if (!ROUTES.has(pathname) && options.routes !== undefined && (await options.routes(req, res, url, ctx))) return;
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
  // A probe without a credential on a port that needs one learns ready or not, and nothing else.
  const detail = ctx.identity.scopes.size > 0;
  const why = (body: Record<string, unknown>): Record<string, unknown> => (detail ? { ...body, state: lifecycle.state, reason: lifecycle.reason } : body);
  switch (pathname) {
    case '/healthz':
      if (lifecycle.live) sendJson(res, 200, detail ? { status: 'ok', state: lifecycle.state } : { status: 'ok' });
      else sendJson(res, 503, why({ status: 'down' }));
      return;
    case '/readyz':
      if (lifecycle.ready) sendJson(res, 200, detail ? { status: 'ready', state: lifecycle.state } : { status: 'ready' });
      else sendJson(res, 503, why({ status: 'not_ready' }));
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
  const listener: RequestListener = (req, res) => {
    const requestId = requestIdOf(req);
    res.setHeader(REQUEST_ID_HEADER, requestId);
    handle(options, req, res, requestId).catch((err: unknown) => {
      log.error({ err, path: (req.url ?? '/').split('?')[0], requestId }, 'http handler failed');
      if (!res.headersSent) sendJson(res, 500, { status: 'error', requestId });
      else res.destroy();
    });
  };
  const { tls } = options;
  const secure: TlsServer | undefined =
    tls === undefined ? undefined : createTlsServer({ ...tls.context, requestCert: tls.requestCert, rejectUnauthorized: tls.rejectUnauthorized }, listener);
  if (secure !== undefined) answerPlainHttp(secure); // plain HTTP to this port is told to use https
  const server: Server | TlsServer = secure ?? createServer(listener);
  const unwatch = tls?.watch?.((context) => {
    try {
      secure?.setSecureContext(context);
      log.info('http server: TLS certificate, key or CA reloaded');
    } catch (err) {
      log.error({ err }, 'http server: the new TLS files were not accepted; keeping the previous ones');
    }
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
  log.info({ host: options.host, port, tls: tls !== undefined }, 'http server listening');

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    unwatch?.();
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
