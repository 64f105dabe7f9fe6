// Errors raised by the HBase REST client. Every failure carries a code from a closed list, a
// `retriable` flag (is the *failure* transient? — whether re-sending is safe for a non-idempotent
// call such as checkAndPut is the caller's decision), the table/op it happened in, and a cause.
// An HBaseError is a ServiceError (src/errors.ts): `fatal` defaults to "not retriable".
import { HBASE_ERROR_CODES, ServiceError } from '../errors.ts';

/** The codes (src/errors.ts HBASE_ERROR_CODES, where each is described), by name: HBaseErrorCode.HBASE_TIMEOUT. */
export const HBaseErrorCode = Object.fromEntries(HBASE_ERROR_CODES.map((c) => [c, c])) as { readonly [K in (typeof HBASE_ERROR_CODES)[number]]: K };
export type HBaseErrorCode = (typeof HBASE_ERROR_CODES)[number];

export interface HBaseErrorInit {
  code: HBaseErrorCode;
  message: string;
  retriable?: boolean;
  status?: number;
  body?: string;
  table?: string;
  op?: string;
  /** the wait the gateway asked for (Retry-After of a 429 or 503), in ms, uncapped */
  retryAfterMs?: number | undefined;
  cause?: unknown;
}

const BODY_LIMIT = 2048;

const DEFAULT_RETRIABLE: ReadonlySet<HBaseErrorCode> = new Set<HBaseErrorCode>(['HBASE_UNAVAILABLE', 'HBASE_TIMEOUT', 'HBASE_NETWORK', 'HBASE_GATEWAY_LOST']);

export class HBaseError extends ServiceError<HBaseErrorCode> {
  override readonly name = 'HBaseError';
  readonly status?: number;
  readonly body?: string;
  readonly table?: string;
  readonly op?: string;
  /** the wait the gateway asked for (Retry-After of a 429 or 503), in ms, uncapped; the retry loop caps it */
  readonly retryAfterMs?: number;

  constructor(init: HBaseErrorInit) {
    super({ code: init.code, message: init.message, retriable: init.retriable ?? DEFAULT_RETRIABLE.has(init.code), cause: init.cause });
    if (init.status !== undefined) this.status = init.status;
    if (init.body !== undefined) this.body = truncateBody(init.body);
    if (init.table !== undefined) this.table = init.table;
    if (init.op !== undefined) this.op = init.op;
    if (init.retryAfterMs !== undefined) this.retryAfterMs = init.retryAfterMs;
  }
}

export function truncateBody(body: string, limit = BODY_LIMIT): string {
  return body.length <= limit ? body : `${body.slice(0, limit)}…[${body.length - limit} more chars]`;
}

// Exception names that HBase's REST gateway prints into 500/503 bodies and that mean "try again".
const RETRIABLE_MARKERS = [
  'RegionTooBusyException',
  'NotServingRegionException',
  'RegionMovedException',
  'RegionOfflineException',
  'ServerNotRunningYetException',
  'PleaseHoldException',
  'CallQueueTooBigException',
  'CallTimeoutException',
  'RetriesExhaustedException',
  'RetriesExhaustedWithDetailsException',
  'SocketTimeoutException',
  'ConnectException',
  'ConnectionClosingException',
  'MultiActionResultTooLarge',
  'RpcThrottlingException',
];
// Exception names that make a 500 permanent. They do not count in a 502/503/504: the gateway answers
// 503 for every IOException it has no better status for, and while HBase recovers it relays
// `DoNotRetryIOException: Zookeeper LIST could not be completed` in a 503; what the request itself
// got wrong has a status of its own (400 bad request, 403 denied, 404 no such table or family).
const PERMANENT_MARKERS = [
  'DoNotRetryIOException',
  'FailedSanityCheckException',
  'NoSuchColumnFamilyException',
  'TableNotFoundException',
  'InvalidFamilyOperationException',
  'AccessDeniedException',
  'IllegalArgumentException',
];

export interface HttpClassification {
  code: HBaseErrorCode;
  retriable: boolean;
}

/**
 * Classifies an HTTP error status (plus the text body HBase sends) into a code + retriable flag: the
 * status first (docs/ARCHITECTURE.md "Errors: outage or permanent"). 502/503/504 and 429 are an
 * outage whatever the body says; only a 500 is read for exception names.
 */
export function classifyHttpStatus(status: number, body = ''): HttpClassification {
  const has = (markers: readonly string[]): boolean => markers.some((m) => body.includes(m));
  if (status === 400) return { code: 'HBASE_BAD_REQUEST', retriable: false };
  if (status === 401) return { code: 'HBASE_UNAUTHORIZED', retriable: false };
  if (status === 403) return { code: 'HBASE_FORBIDDEN', retriable: false };
  if (status === 404) {
    return { code: body.includes('TableNotFoundException') ? 'HBASE_TABLE_NOT_FOUND' : 'HBASE_NOT_FOUND', retriable: false };
  }
  if (status === 408) return { code: 'HBASE_TIMEOUT', retriable: true };
  if (status === 410) return { code: 'HBASE_SCANNER_GONE', retriable: false };
  if (status === 429) return { code: 'HBASE_UNAVAILABLE', retriable: true };
  if (status === 304) return { code: 'HBASE_CHECK_FAILED', retriable: false };
  if (status >= 400 && status < 500) return { code: 'HBASE_HTTP_4XX', retriable: false };
  if (status === 502 || status === 503 || status === 504) return { code: 'HBASE_UNAVAILABLE', retriable: true };
  if (status === 500) {
    const retriable = has(RETRIABLE_MARKERS) && !has(PERMANENT_MARKERS);
    return { code: retriable ? 'HBASE_UNAVAILABLE' : 'HBASE_SERVER_ERROR', retriable };
  }
  if (status >= 500) return { code: 'HBASE_SERVER_ERROR', retriable: false };
  return { code: 'HBASE_PROTOCOL', retriable: false };
}

// Socket / undici error codes that mean the request may not have reached HBase, or the connection
// broke: transient.
const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'ENOTFOUND',
  'ETIMEDOUT',
]);
const TIMEOUT_CODES: ReadonlySet<string> = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
// undici codes that are programming / lifecycle errors, not transient failures.
const PERMANENT_UNDICI_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_INVALID_ARG',
  'UND_ERR_INVALID_RETURN_VALUE',
  'UND_ERR_NOT_SUPPORTED',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
]);

function errorCodeOf(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null || !('code' in err)) return undefined;
  const { code } = err;
  return typeof code === 'string' ? code : undefined;
}

function errorNameOf(err: unknown): string | undefined {
  return err instanceof Error ? err.name : undefined;
}

/** Classifies a thrown transport-level error (Node socket error, undici error, abort). */
export function classifyTransportError(err: unknown): HttpClassification {
  const code = errorCodeOf(err);
  const name = errorNameOf(err);
  if (err instanceof HBaseError) return { code: err.code, retriable: err.retriable };
  if (name === 'TimeoutError' || (code !== undefined && TIMEOUT_CODES.has(code))) {
    return { code: 'HBASE_TIMEOUT', retriable: true };
  }
  if (code === 'UND_ERR_CLOSED' || code === 'UND_ERR_DESTROYED') return { code: 'HBASE_CLOSED', retriable: false };
  if (code !== undefined && NETWORK_CODES.has(code)) return { code: 'HBASE_NETWORK', retriable: true };
  if (code?.startsWith('UND_ERR_') === true) {
    return PERMANENT_UNDICI_CODES.has(code) ? { code: 'HBASE_PROTOCOL', retriable: false } : { code: 'HBASE_NETWORK', retriable: true };
  }
  // AggregateError from happy-eyeballs connects carries the per-address errors.
  if (err instanceof AggregateError && err.errors.length > 0) return classifyTransportError(err.errors[0]);
  return { code: 'HBASE_NETWORK', retriable: false };
}

function* causeChain(err: unknown): Generator {
  const seen = new Set<unknown>();
  let cur: unknown = err;
  while (cur !== undefined && cur !== null && !seen.has(cur) && seen.size < 16) {
    seen.add(cur);
    yield cur;
    cur = cur instanceof Error ? cur.cause : undefined;
  }
}

/**
 * True when the error (or, failing that, something in its cause chain) is transient. The first
 * HBaseError in the chain decides; otherwise raw socket/undici/timeout errors count as retriable.
 */
export function isRetriable(err: unknown): boolean {
  for (const e of causeChain(err)) {
    if (e instanceof HBaseError) return e.retriable;
  }
  for (const e of causeChain(err)) {
    const code = errorCodeOf(e);
    const name = errorNameOf(e);
    if (name === 'TimeoutError') return true;
    if (code !== undefined && (NETWORK_CODES.has(code) || TIMEOUT_CODES.has(code))) return true;
    if (code?.startsWith('UND_ERR_') === true && !PERMANENT_UNDICI_CODES.has(code)) return true;
  }
  return false;
}

/** The wait the first HBaseError along the cause chain was asked for (its Retry-After), in ms; undefined without one. */
export function askedWaitMs(err: unknown): number | undefined {
  for (const e of causeChain(err)) {
    if (e instanceof HBaseError) return e.retryAfterMs;
  }
  return undefined;
}

export function isHBaseError(err: unknown, code?: HBaseErrorCode): err is HBaseError {
  return err instanceof HBaseError && (code === undefined || err.code === code);
}

/** The gateway refused the service (401 credentials, 403 permissions): an outage of the service's access, not a bad request. */
export function isAccessRefused(err: unknown): err is HBaseError {
  return isHBaseError(err, 'HBASE_UNAUTHORIZED') || isHBaseError(err, 'HBASE_FORBIDDEN');
}
