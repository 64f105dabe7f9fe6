// The front door of the service's port: every request is authenticated (authenticate.ts), checked
// against the scopes its path needs (scopes.ts), admitted under the concurrency caps (limits.ts) when
// it is a query, and logged once with the identity and scope it used and the status the client got
// (marked `cut` when the response did not end), never the credential nor the query string, with the request's id (X-Request-Id, src/runtime/http.ts). Rejections: 401 with WWW-Authenticate, 403 naming the missing scope, 429 with
// Retry-After, 400 for credentials in the query string. None of them names a valid credential.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import { ANONYMOUS, missingScopes, type Authenticator, type Identity } from './authenticate.ts';
import type { QueryLimits } from './limits.ts';
import { scopesFor } from './scopes.ts';

/** What a route learns about the caller. */
export interface RequestContext {
  readonly identity: Identity;
}

/** For a probe without a credential on a port that needs one: no scope, so the probe reveals only ready or not. */
export const NOBODY: Identity = { name: 'unauthenticated', via: 'anonymous', scopes: new Set() };

/** Query parameters that look like a credential: refused, so no client is taught to put secrets in URLs (and logs). */
const CREDENTIAL_PARAMS = new Set([
  'access_token',
  'token',
  'api_key',
  'apikey',
  'password',
  'passwd',
  'pwd',
  'auth',
  'authorization',
  'bearer',
  'key',
  'secret',
]);

export interface GuardDeps {
  readonly auth: () => Authenticator;
  readonly limits: QueryLimits;
  readonly log: Pick<Logger, 'info' | 'debug' | 'warn'>;
  readonly realm?: string;
}

export type Guard = (req: IncomingMessage, res: ServerResponse, url: URL, requestId?: string) => Promise<RequestContext | undefined>;

/** Answers `status` with `{ error, message }` (and `headers`). */
function reject(
  res: ServerResponse,
  status: number,
  why: { readonly error: string; readonly message: string },
  headers: Record<string, string | string[]> = {},
): void {
  const body = JSON.stringify({ error: why.error, message: why.message });
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(body);
}

function peerOf(req: IncomingMessage): { authorized: boolean; cn: string | undefined } | undefined {
  const socket = req.socket as Partial<TLSSocket>;
  if (typeof socket.getPeerCertificate !== 'function') return undefined;
  // An empty object when the client sent no certificate.
  const subject = (socket.getPeerCertificate() as { subject?: { CN?: string | string[] } }).subject;
  const cn = subject?.CN;
  return { authorized: socket.authorized === true, cn: Array.isArray(cn) ? cn[0] : cn };
}

/** Path of the request for the log: the path as sent, without its query string (which may hold anything). */
function logPath(req: IncomingMessage): string {
  const raw = req.url ?? '/';
  const q = raw.indexOf('?');
  return (q < 0 ? raw : raw.slice(0, q)).slice(0, 512);
}

/**
 * What the client got, for the request log: `status` is the status line it received (null when the
 * connection closed before one was sent: res.statusCode would still say 200), and `cut: true` when the
 * response did not end (a deadline or an error cut it after it started, or the client went away), so
 * a 200 whose body was cut off is not logged as a plain 200.
 */
export function answered(res: Pick<ServerResponse, 'headersSent' | 'statusCode' | 'writableFinished'>): { status: number | null; cut?: true } {
  const status = res.headersSent ? res.statusCode : null;
  return res.writableFinished ? { status } : { status, cut: true };
}

/**
 * Resolves the request's context, or undefined when the guard already answered it. Queries (any
 * path under /api/) hold a concurrency slot until the response closes.
 */
export function createGuard(deps: GuardDeps): Guard {
  const realm = deps.realm ?? 'tsingest';
  // One header per scheme, Basic first: browsers answer the first challenge they support.
  const challenge = [`Basic realm="${realm}", charset="UTF-8"`, `Bearer realm="${realm}"`];
  return async (req, res, url, requestId) => {
    const started = performance.now();
    const needed = scopesFor(url.pathname, req.url ?? '/');
    const scope = needed.length === 0 ? 'open' : needed.join('+');
    let who: Identity = NOBODY;
    res.once('close', () => {
      const entry = {
        caller: who.name,
        via: who.via,
        scope,
        method: req.method,
        path: logPath(req),
        ...answered(res),
        ms: Math.round(performance.now() - started),
        ...(requestId === undefined ? {} : { requestId }),
      };
      if (needed.length === 0) deps.log.debug(entry, 'http request');
      else deps.log.info(entry, 'http request');
    });
    for (const key of url.searchParams.keys()) {
      if (CREDENTIAL_PARAMS.has(key.toLowerCase())) {
        reject(res, 400, {
          error: 'credentials_in_url',
          message: 'credentials are not accepted in the query string: send them in the Authorization header',
        });
        return undefined;
      }
    }
    const authenticator = deps.auth();
    const outcome = await authenticator.authenticate({ authorization: req.headers.authorization, peer: peerOf(req) });
    if (needed.length === 0) {
      // Probes stay open; a caller without a valid credential learns only ready or not.
      who = outcome.ok ? outcome.identity : NOBODY;
      if (who === ANONYMOUS && authenticator.required) who = NOBODY;
      return { identity: who };
    }
    if (!outcome.ok) {
      reject(res, 401, { error: 'unauthorized', message: outcome.reason }, { 'www-authenticate': challenge });
      return undefined;
    }
    who = outcome.identity;
    const missing = missingScopes(who, needed);
    if (missing.length > 0) {
      reject(res, 403, {
        error: 'forbidden',
        message: `this credential lacks the scope ${missing.join(' and ')} that ${url.pathname.startsWith('/api/') ? 'the read APIs need' : 'this path needs'}`,
      });
      return undefined;
    }
    if (url.pathname.startsWith('/api/') || (req.url ?? '').startsWith('/api/')) {
      // over a cap a query waits for a slot (limits.ts); a caller that goes away meanwhile gives up its place
      const gone = new AbortController();
      const abort = (): void => {
        gone.abort();
      };
      res.once('close', abort);
      const slot = await deps.limits.acquire(who.name, gone.signal);
      res.off('close', abort);
      if (!slot.ok) {
        reject(res, 429, { error: 'too_many_requests', message: slot.reason }, { 'retry-after': '1' });
        return undefined;
      }
      res.once('close', slot.release);
    }
    return { identity: who };
  };
}
