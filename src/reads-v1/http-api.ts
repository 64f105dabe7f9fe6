/**
 * The HTTP read API (GET, JSON, under /api/v1/), mounted on the service's HTTP server through its
 * `routes` hook. Routes, answers and errors: docs/QUERIES.md.
 * Design notes: docs/DECISIONS.md#the-http-read-api
 */
import { ServiceError } from '../errors.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { isAccessRefused, isHBaseError, isRetriable } from '../hbase/errors.ts';
import type { QueryKind } from './meters.ts';
import { createQueries, type QueryDeps } from './queries.ts';
import { QueryError } from './query-error.ts';
import { requestPath } from './request-path.ts';
import type { PageEnd, PageStream, QueryItem } from './types.ts';

export const API_PREFIX = '/api/v1/';
const JSON_TYPE = 'application/json; charset=utf-8';

export interface ReadApiDeps extends QueryDeps {
  readonly log: Pick<Logger, 'warn' | 'error'>;
}

export type ReadApiHandler = (req: IncomingMessage, res: ServerResponse, url: URL, ctx?: ReadContext) => Promise<boolean>;

/** The caller, as the front door established it: only the admin scope lets a read repair dangling index rows. */
export interface ReadContext {
  readonly identity: { readonly scopes: ReadonlySet<string> };
  /** the request's id (X-Request-Id): in the log lines and the body of a 500 */
  readonly requestId?: string | undefined;
}

interface Route {
  readonly kind: QueryKind;
  /** path parameters by segment position after /api/v1/; null = a literal segment */
  readonly pattern: readonly (string | { readonly param: string })[];
}

const p = (param: string): { param: string } => ({ param });
const ROUTES: readonly Route[] = [
  { kind: 'latest', pattern: ['ids', p('id'), 'latest'] },
  { kind: 'range', pattern: ['ids', p('id'), 'events'] },
  { kind: 'by_tag', pattern: ['index', p('tag'), p('value'), 'events'] },
  { kind: 'rollups', pattern: ['ids', p('id'), 'rollups', p('window')] },
  // The query-string forms: id, tag and value are query parameters.
  { kind: 'latest', pattern: ['latest'] },
  { kind: 'range', pattern: ['events'] },
  { kind: 'by_tag', pattern: ['tag-events'] },
  { kind: 'rollups', pattern: ['rollups', p('window')] },
];

function sendJson(res: ServerResponse, status: number, body: Record<string, unknown>, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store', ...headers });
  res.end(text);
}

/**
 * Matches a path split on `/` as sent (segments after /api/v1/, still percent-encoded) → the route
 * and its path params, each percent-decoded (UTF-8; `+` stays a plus). Literal segments compare as sent.
 */
export function matchRoute(segments: readonly string[]): { route: Route; params: Record<string, string> } | null {
  for (const route of ROUTES) {
    if (route.pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (const [i, part] of route.pattern.entries()) {
      const seg = segments[i] ?? '';
      if (typeof part === 'string') {
        if (seg !== part) ok = false;
      } else {
        try {
          params[part.param] = decodeURIComponent(seg);
        } catch {
          throw new QueryError('BAD_PARAMETER', part.param, `${part.param} is not valid percent-encoded UTF-8`);
        }
      }
      if (!ok) break;
    }
    if (ok) return { route, params };
  }
  return null;
}

function queryParams(url: URL, pathParams: Readonly<Record<string, string>>): Record<string, string> {
  const raw: Record<string, string> = { ...pathParams };
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    if (Object.hasOwn(pathParams, key)) throw new QueryError('UNKNOWN_PARAMETER', key, `${key} is part of the path, not a query parameter`);
    if (values.length > 1) throw new QueryError('BAD_PARAMETER', key, `${key} is given ${values.length} times`);
    raw[key] = values[0] ?? '';
  }
  return raw;
}

function sendError(
  res: ServerResponse,
  err: unknown,
  at: { readonly log: ReadApiDeps['log']; readonly path: string; readonly requestId: string | undefined },
): void {
  const { log, path, requestId } = at;
  if (err instanceof QueryError) {
    // The body spells the code in lower case, as it always has (docs/QUERIES.md: `{"error":"bad_parameter",…}`).
    sendJson(res, err.status, { error: err.code.toLowerCase(), parameter: err.parameter, message: err.message });
    return;
  }
  if (isHBaseError(err) && isRetriable(err)) {
    log.warn({ err, path, requestId }, 'read API: HBase unavailable');
    sendJson(res, 503, { error: 'unavailable', message: `HBase is unavailable, retry later: ${err.message}` }, { 'retry-after': '1' });
    return;
  }
  if (isAccessRefused(err)) {
    // The gateway refuses the service's own credentials: an outage for the caller, not its fault nor a bug.
    log.warn({ err, path, requestId }, "read API: HBase REST refused the service's credentials");
    sendJson(
      res,
      503,
      { error: 'unavailable', message: 'HBase is unavailable to the service (the gateway refused its credentials), retry later' },
      { 'retry-after': '30' },
    );
    return;
  }
  log.error({ err, path, requestId }, 'read API: query failed');
  sendJson(res, 500, { error: 'internal', message: isHBaseError(err) ? err.message : 'the query failed', ...(requestId === undefined ? {} : { requestId }) });
}

/** Waits until the response can take more (or is gone). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

function trailer(end: PageEnd, limit: number): string {
  const tail: Record<string, unknown> = { next: end.next, limit };
  if (end.dangling !== undefined) tail['dangling'] = end.dangling;
  return `],${JSON.stringify(tail).slice(1)}`;
}

/** The read API as a route handler: true when it answered (any /api/ path), false otherwise. */
export function createReadApi(deps: ReadApiDeps): ReadApiHandler {
  const queries = createQueries(deps);
  const { log } = deps;
  return async (req, res, url, ctx) => {
    const path = requestPath(req.url ?? '/');
    if (!path.startsWith('/api/') && !url.pathname.startsWith('/api/')) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendJson(res, 405, { error: 'method_not_allowed', message: `${req.method ?? ''} is not allowed; the read API is GET only` }, { allow: 'GET, HEAD' });
      return true;
    }
    let page: PageStream<QueryItem> | undefined;
    let first;
    let limit: number;
    const deadline = new Deadline(deps.cfg.query.deadlineMs);
    try {
      const matched = path.startsWith(API_PREFIX) ? matchRoute(path.slice(API_PREFIX.length).split('/')) : null;
      if (matched === null) {
        sendJson(res, 404, { error: 'not_found', message: `no read API route ${path} (see docs/QUERIES.md)` });
        return true;
      }
      const spec = queries.parse(matched.route.kind, queryParams(url, matched.params));
      limit = spec.limit;
      page = queries.run(spec, { repair: ctx?.identity.scopes.has('admin') === true });
      first = await deadline.race(page.next()); // errors before any byte is sent still get a proper status
    } catch (err) {
      deadline.clear();
      if (err instanceof DeadlinePassed) {
        void page?.return({ next: null }).catch(() => undefined);
        sendJson(res, 408, {
          error: 'deadline',
          message: `the read did not finish within ${deps.cfg.query.deadlineMs} ms (query.deadlineMs); its scans were cancelled. Ask for a smaller page or range`,
        });
      } else {
        sendError(res, err, { log, path, requestId: ctx?.requestId });
      }
      return true;
    }
    const conn = { closed: false };
    res.on('close', () => {
      conn.closed = true;
    });
    res.writeHead(200, { 'content-type': JSON_TYPE, 'cache-control': 'no-store' });
    const out = new ItemWriter(res);
    try {
      let r: IteratorResult<QueryItem, PageEnd> = first;
      while (r.done !== true) {
        if (conn.closed) {
          await page.return({ next: null });
          return true;
        }
        if (!out.add(JSON.stringify(r.value))) await deadline.race(drained(res));
        r = await deadline.race(page.next());
      }
      out.end(trailer(r.value, limit));
    } catch (err) {
      if (err instanceof DeadlinePassed) {
        log.warn(
          { path, deadlineMs: deps.cfg.query.deadlineMs, requestId: ctx?.requestId },
          'read API: deadline passed after the page started; connection cut',
        );
        void page.return({ next: null }).catch(() => undefined);
      } else {
        log.error({ err, path, requestId: ctx?.requestId }, 'read API: query failed after the response started');
      }
      out.discard();
      res.destroy();
    } finally {
      deadline.clear();
    }
    return true;
  };
}

/** A read API request ran past query.deadlineMs; the same request may finish another time. */
export class DeadlinePassed extends ServiceError<'DEADLINE_PASSED'> {
  override readonly name = 'DeadlinePassed';

  constructor() {
    super({ code: 'DEADLINE_PASSED', message: 'the request ran past query.deadlineMs', retriable: true });
  }
}

/** One request's deadline: `race` rejects with DeadlinePassed once it has passed. */
class Deadline {
  readonly #passed: Promise<never>;
  readonly #timer: NodeJS.Timeout;

  constructor(ms: number) {
    let fire: (err: Error) => void = () => undefined;
    this.#passed = new Promise<never>((_resolve, reject) => {
      fire = reject;
    });
    this.#passed.catch(() => undefined);
    this.#timer = setTimeout(() => {
      fire(new DeadlinePassed());
    }, ms);
  }

  race<T>(p: Promise<T>): Promise<T> {
    return Promise.race([p, this.#passed]);
  }

  clear(): void {
    clearTimeout(this.#timer);
  }
}

/** Bytes of items gathered before a write that does not wait for the event loop. */
const WRITE_CHUNK = 64 * 1024;

/**
 * The items of a page as a JSON array, gathered into one write per batch instead of one per item: the
 * items that are ready at once (the rows of one HBase response) go out together when the loop turns
 * (setImmediate), or as soon as WRITE_CHUNK is reached, so items still stream as they are read.
 */
class ItemWriter {
  readonly #res: ServerResponse;
  #text = '{"items":[';
  #sep = '';
  #flush: NodeJS.Immediate | null = null;

  constructor(res: ServerResponse) {
    this.#res = res;
  }

  /** Adds an item; false when the response's buffer is full (wait for 'drain'). */
  add(json: string): boolean {
    this.#text += this.#sep + json;
    this.#sep = ',';
    if (this.#text.length >= WRITE_CHUNK) return this.#write();
    this.#flush ??= setImmediate(() => {
      this.#flush = null;
      this.#write();
    });
    return true;
  }

  end(tail: string): void {
    this.discard();
    this.#res.end(this.#text + tail);
  }

  /** Drops the scheduled write (the response is ended or destroyed). */
  discard(): void {
    if (this.#flush !== null) clearImmediate(this.#flush);
    this.#flush = null;
  }

  #write(): boolean {
    const text = this.#text;
    this.#text = '';
    return text === '' || this.#res.destroyed || this.#res.write(text);
  }
}
