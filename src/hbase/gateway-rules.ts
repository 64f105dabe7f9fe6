// Pure: what a failed exchange with one gateway of a set means, and whether the request may be sent
// again to another gateway.
// Design notes: docs/DECISIONS.md#what-a-gateway-failure-means
import type { HttpRequest } from './transport.ts';

export type ConnectionFailure = 'unsent' | 'broken';

const UNSENT: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const BROKEN: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ETIMEDOUT', 'UND_ERR_SOCKET']);

function codeOf(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null || !('code' in err)) return undefined;
  return typeof err.code === 'string' ? err.code : undefined;
}

/** The connection-level failure in `err` or its cause chain (the transport wraps socket errors), or null. */
export function connectionFailure(err: unknown): ConnectionFailure | null {
  const seen = new Set<unknown>();
  let cur: unknown = err;
  while (typeof cur === 'object' && cur !== null && !seen.has(cur)) {
    seen.add(cur);
    const code = codeOf(cur);
    if (code !== undefined && UNSENT.has(code)) return 'unsent';
    if (code !== undefined && BROKEN.has(code)) return 'broken';
    // happy-eyeballs connects fail with an AggregateError of the per-address errors
    cur = cur instanceof AggregateError && cur.errors.length > 0 ? cur.errors[0] : (cur as { cause?: unknown }).cause;
  }
  return null;
}

/**
 * May `req`, which failed with `failure` on one gateway, be sent to another? Always when it was never
 * sent. After a broken connection only when repeating it cannot change its outcome:
 *   - GET (reads, multi-gets, scan pages of the stateless endpoint): yes;
 *   - PUT/POST of cells and scanner creation: yes (the same cells again: same key, column and
 *     timestamp; an orphan scanner on a dead gateway expires there);
 *   - check-and-put / check-and-delete (`?check=`): no (a second send after the first took effect
 *     answers "check failed");
 *   - schema changes (`…/schema`) and DELETE: no (deleting a table twice reports it missing; a
 *     delete repeated later also hides cells written in between).
 * A request of a session (a scanner's pages) never moves: the session's server state is on one gateway.
 */
export function mayResend(req: Pick<HttpRequest, 'method' | 'path'>, failure: ConnectionFailure): boolean {
  if (failure === 'unsent') return true;
  if (req.method === 'GET') return true;
  if (req.method === 'DELETE') return false;
  const q = req.path.indexOf('?');
  const path = q < 0 ? req.path : req.path.slice(0, q);
  const query = q < 0 ? '' : req.path.slice(q + 1);
  if (query.split('&').some((p) => p.startsWith('check='))) return false;
  return !path.endsWith('/schema');
}

/** The metric label of a gateway: its URL's origin (scheme, host, port; never credentials or path). */
export function gatewayLabel(url: string): string {
  return new URL(url).origin;
}
