// Internal: one HTTP exchange with the gateway → response or HBaseError, plus error context.
import { KEY_ERROR_CODES, ServiceError } from '../errors.ts';
import { HBaseError, classifyHttpStatus, classifyTransportError, type HBaseErrorCode } from './errors.ts';
import { retryAfterOf } from './retry-after.ts';
import type { HttpMethod, HttpResponse, HttpTransport } from './transport.ts';

export interface CallSpec {
  method: HttpMethod;
  /** Path below the base URL, starting with '/'. */
  path: string;
  body?: string | Buffer | undefined;
  /** Content type of `body` (default application/json). */
  contentType?: string;
  /** Accept header (default application/json). */
  accept?: string;
  deadlineMs?: number | undefined;
  /** Statuses handed back to the caller; anything else becomes an HBaseError. */
  ok: readonly number[];
  /** Code to use for a 404 (e.g. HBASE_TABLE_NOT_FOUND where 404 can only mean "no such table"). */
  notFound?: HBaseErrorCode;
}

/** First couple of meaningful lines of an HBase error body (which is often a Java stack trace). */
export function bodySnippet(body: string, max = 300): string {
  const lines = body
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.length > 0 && !l.startsWith('at '));
  const s = lines.slice(0, 2).join(' | ');
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** The Authorization header value for the next request (read per request: tokens rotate), or undefined. */
export type Authorization = () => string | undefined;

/** How a RestCaller calls, besides its transport and path prefix. */
export interface CallerOptions {
  /** for a call that names no deadline */
  readonly defaultDeadlineMs: number;
  readonly authorization?: Authorization | undefined;
  /** the transport adds credentials itself (SPNEGO), for the wording of a 401/403 */
  readonly transportAuthenticates?: boolean;
}

export class RestCaller {
  readonly #transport: HttpTransport;
  readonly #prefix: string;
  readonly #defaultDeadlineMs: number;
  readonly #authorization: Authorization | undefined;
  readonly #transportAuthenticates: boolean;

  constructor(transport: HttpTransport, prefix: string, opts: CallerOptions) {
    this.#transport = transport;
    this.#prefix = prefix.replace(/\/+$/, '');
    this.#defaultDeadlineMs = opts.defaultDeadlineMs;
    this.#authorization = opts.authorization;
    this.#transportAuthenticates = opts.transportAuthenticates ?? false;
  }

  /** A caller whose requests all go to one server (transport.ts `session`): for a REST scanner. */
  session(): RestCaller {
    const pinned = this.#transport.session?.() ?? this.#transport;
    return new RestCaller(pinned, this.#prefix, { defaultDeadlineMs: this.#defaultDeadlineMs, authorization: this.#authorization });
  }

  async call(spec: CallSpec): Promise<HttpResponse> {
    const headers: Record<string, string> = { accept: spec.accept ?? 'application/json' };
    if (spec.body !== undefined) headers['content-type'] = spec.contentType ?? 'application/json';
    const auth = this.#authorization?.();
    if (auth !== undefined) headers['authorization'] = auth;
    const res = await this.#transport.request({
      method: spec.method,
      path: this.#prefix + spec.path,
      headers,
      ...(spec.body === undefined ? {} : { body: spec.body }),
      deadlineMs: spec.deadlineMs ?? this.#defaultDeadlineMs,
    });
    if (spec.ok.includes(res.status)) return res;
    const text = res.body.toString('utf8');
    let { code, retriable } = classifyHttpStatus(res.status, text);
    if (res.status === 404 && spec.notFound !== undefined) code = spec.notFound;
    if (res.status >= 200 && res.status < 300) ({ code, retriable } = { code: 'HBASE_PROTOCOL', retriable: false });
    // An auth proxy's 401/403 page says nothing useful; name what to check instead.
    const sent = this.#authorization === undefined && !this.#transportAuthenticates ? 'none sent: hbase.auth' : 'hbase.auth';
    const snippet =
      res.status === 401
        ? `the gateway refused the request's credentials (${sent}, hbase.tls)`
        : res.status === 403
          ? `the gateway forbids the request (credentials or permissions: ${sent}, hbase.tls; a read-only gateway forbids writes)`
          : bodySnippet(text);
    throw new HBaseError({
      code,
      retriable,
      status: res.status,
      body: text,
      retryAfterMs: retryAfterOf(res),
      message: `HTTP ${res.status} ${code}${snippet === '' ? '' : `: ${snippet}`}`,
    });
  }
}

function isKeyError(err: unknown): boolean {
  return err instanceof ServiceError && (KEY_ERROR_CODES as readonly string[]).includes((err as ServiceError).code);
}

/** Re-raises any failure as an HBaseError that names the op and table. */
export function withContext(err: unknown, op: string, table: string | undefined): HBaseError {
  if (err instanceof HBaseError && err.op === op && err.table === table) return err;
  const where = table === undefined ? `HBase ${op}` : `HBase ${op} on table '${table}'`;
  if (err instanceof HBaseError) {
    return new HBaseError({
      code: err.code,
      retriable: err.retriable,
      ...(err.status === undefined ? {} : { status: err.status }),
      ...(err.body === undefined ? {} : { body: err.body }),
      ...(table === undefined ? {} : { table }),
      retryAfterMs: err.retryAfterMs,
      op,
      message: `${where} failed: ${err.message}`,
      cause: err,
    });
  }
  // A request we could not build: an argument out of domain (a RangeError, a KeyError) or a bug.
  const invalid = err instanceof RangeError || err instanceof TypeError || isKeyError(err);
  const { code, retriable } = invalid ? { code: 'HBASE_INVALID_ARGUMENT' as const, retriable: false } : classifyTransportError(err);
  const detail = err instanceof Error ? err.message : String(err);
  return new HBaseError({
    code,
    retriable,
    ...(table === undefined ? {} : { table }),
    op,
    message: `${where} failed: ${detail}`,
    cause: err,
  });
}
