// The service's one error vocabulary. Every error the project raises on purpose is a ServiceError:
// a code from the closed list below, `retriable` (is the failure transient: try the same thing
// again?), `fatal` (can replaying never fix it, so the service must stop?) and a `cause`. Each family
// of codes belongs to one error class (HBaseError, KeyError, QueryError, …); classifyError reads the
// error's own code and flags, walking the `cause` chain past uncoded wrappers. kafkajs errors and
// aborts are mapped without being wrapped. This file imports nothing from src: it is the bottom floor.

/** The service's own codes (ServiceError itself, and the classes that have one code each). */
export const SERVICE_ERROR_CODES = [
  'KAFKA', // a kafkajs error: the client rejoins, restarts and replays
  'ABORTED', // cancelled by shutdown (RetryAbortedError): in-flight work is abandoned uncommitted and replayed later
  'DRAIN_FAILED', // shutdown could not commit what was written (or had to abandon in-flight writes)
  'STARTUP', // the service refuses to start (config/table mismatch, topic missing, start aborted)
  'CONSUMER_CRASHED', // kafkajs gave up on the consumer and will not restart it
  'REGISTRY_CONFLICT', // a spread registry update lost its check-and-put race on every attempt: try again
  'CONFIG', // the configuration does not validate (ConfigError, WindowConfigError): exit 3
  'USAGE', // a wrong command line (UsageError): exit 2
  'ROLLUP_FAILED', // a stage of a rollup recompute failed (RollupStageError; the cause says why)
  'MALFORMED_SUMMARY', // a stored rollup summary cell cannot be decoded (SummaryDecodeError)
  'BAD_INPUT', // an input refused where it enters (InputError): a flag, a config value, a credentials entry, a number in a request
  'BAD_FILTER', // an OpenTSDB tag filter that does not parse (FilterSpecError; becomes a BAD_QUERY)
  'BAD_QUERY', // a malformed OpenTSDB request (TsdbQueryError): HTTP 400
  'HTTP_REQUEST', // an HTTP request the series API refuses as such (HttpError: 405, 408, 413)
  'DEADLINE_PASSED', // a read API request ran past query.deadlineMs (DeadlinePassed)
  'INTERNAL', // anything else: a bug or an unexpected failure
] as const;
export type ServiceErrorCode = (typeof SERVICE_ERROR_CODES)[number];

/** HBaseError (src/hbase/errors.ts): the REST client's failures. */
export const HBASE_ERROR_CODES = [
  'HBASE_BAD_REQUEST', // 400: malformed request / server-side RuntimeException
  'HBASE_UNAUTHORIZED', // 401: the gateway (or its proxy) refused the credentials
  'HBASE_FORBIDDEN', // 403: permissions, read-only gateway
  'HBASE_NOT_FOUND', // 404: row / scanner / column family not found
  'HBASE_TABLE_NOT_FOUND', // 404 whose body names TableNotFoundException
  'HBASE_TABLE_EXISTS', // createTable on an existing table (ifExists: 'error')
  'HBASE_SCANNER_GONE', // 410: the server dropped the scanner (e.g. table disabled)
  'HBASE_HTTP_4XX', // any other 4xx (405, 409, 415, ...)
  'HBASE_UNAVAILABLE', // 502/503/504, 429, 500 with retriable markers
  'HBASE_SERVER_ERROR', // other 5xx
  'HBASE_TIMEOUT', // the call's deadline expired (connect, headers or body)
  'HBASE_NETWORK', // socket-level failure (refused, reset, DNS, ...)
  'HBASE_PROTOCOL', // unexpected response shape / status
  'HBASE_CHECK_FAILED', // 304 from check=put/delete (the client API returns false instead)
  'HBASE_INVALID_ARGUMENT', // rejected client-side before sending
  'HBASE_CLOSED', // transport already closed
  'HBASE_GATEWAY_LOST', // the one gateway holding a session's state (a REST scanner) failed: start over
] as const;

/**
 * TableAdminError (src/admin/table-admin-port.ts): the Java admin tool's codes, prefixed ADMIN_ at the
 * adapter (the tool answers `TIMEOUT`, we raise `ADMIN_TIMEOUT`), plus the adapter's own.
 */
export const TABLE_ADMIN_ERROR_CODES = [
  'ADMIN_BAD_REQUEST', // the request was invalid (names the field)
  'ADMIN_TABLE_NOT_FOUND',
  'ADMIN_UNSUPPORTED_COMPRESSION', // the codec is not usable on this cluster; the caller picks a fallback
  'ADMIN_IMMUTABLE_ATTR_CONFLICT', // e.g. tsingest.salt.buckets differs on an existing table
  'ADMIN_SPLIT_FAILED',
  'ADMIN_TIMEOUT',
  'ADMIN_UNAVAILABLE', // HBase / ZooKeeper not reachable
  'ADMIN_HBASE_ERROR', // any other error HBase reported
  'ADMIN_INTERNAL', // the tool failed unexpectedly
  'ADMIN_PROTOCOL', // the tool's output was not one valid JSON response
  'ADMIN_SPAWN_FAILED', // the tool could not be started
] as const;

/** CheckpointError (src/toolkit/checkpoint-store.ts): a checkpoint that cannot be used. */
export const CHECKPOINT_ERROR_CODES = [
  'CHECKPOINT_UNREADABLE', // the file exists but cannot be read
  'CHECKPOINT_NOT_JSON',
  'CHECKPOINT_INVALID', // JSON, but not a checkpoint of this tool (the fields at fault are named)
  'CHECKPOINT_OTHER_RUN', // a checkpoint of a run with other parameters
] as const;

/** LifecycleError (src/runtime/lifecycle.ts). */
export const LIFECYCLE_ERROR_CODES = ['ILLEGAL_TRANSITION'] as const;

/**
 * QueryError (src/reads-v1/query-error.ts): the read side's bad input, HTTP 400 or 404. The read API's
 * JSON body spells the code in lower case (`{"error":"bad_parameter",…}`, docs/QUERIES.md).
 */
export const QUERY_ERROR_CODES = ['BAD_PARAMETER', 'BAD_CURSOR', 'UNKNOWN_INDEX', 'UNKNOWN_WINDOW', 'UNKNOWN_PARAMETER'] as const;

/** EventError (src/events/event-error.ts): bad event configuration, malformed stored cells. */
export const EVENT_ERROR_CODES = ['INVALID_LIMITS', 'INVALID_MAPPING', 'MALFORMED_CELL'] as const;

/** KeyError (src/keys/key-error.ts): an argument out of the key codecs' domain, malformed key bytes. */
export const KEY_ERROR_CODES = [
  'INVALID_BUCKETS',
  'INVALID_ID',
  'INVALID_TS',
  'INVALID_RANGE',
  'INVALID_INDEX_PART',
  'INVALID_REGIONS',
  'INVALID_SALT_MODE',
  'INVALID_SPREAD',
  'INVALID_WINDOW',
  'MALFORMED_KEY',
] as const;

/**
 * Every family of codes. A code belongs to one family only and is UPPER_SNAKE (test/unit/errors/
 * codes.test.ts), so a code alone says what failed: HBASE_TIMEOUT is the REST client's, ADMIN_TIMEOUT
 * the admin tool's.
 */
export const ERROR_CODE_FAMILIES = {
  service: SERVICE_ERROR_CODES,
  hbase: HBASE_ERROR_CODES,
  tableAdmin: TABLE_ADMIN_ERROR_CODES,
  checkpoint: CHECKPOINT_ERROR_CODES,
  lifecycle: LIFECYCLE_ERROR_CODES,
  query: QUERY_ERROR_CODES,
  event: EVENT_ERROR_CODES,
  key: KEY_ERROR_CODES,
} as const;
export type ErrorCodeFamily = keyof typeof ERROR_CODE_FAMILIES;
export type ErrorCode = (typeof ERROR_CODE_FAMILIES)[ErrorCodeFamily][number];

/** The one closed list: every code any error of the project carries, each once. */
export const ERROR_CODES: readonly ErrorCode[] = Object.values(ERROR_CODE_FAMILIES).flat();

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}

export interface ServiceErrorInit<C extends ErrorCode = ErrorCode> {
  readonly code: C;
  readonly message: string;
  readonly retriable?: boolean;
  readonly fatal?: boolean;
  readonly cause?: unknown;
}

export class ServiceError<C extends ErrorCode = ErrorCode> extends Error {
  override name = 'ServiceError';
  readonly code: C;
  readonly retriable: boolean;
  readonly fatal: boolean;

  constructor(init: ServiceErrorInit<C>) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.retriable = init.retriable ?? false;
    this.fatal = init.fatal ?? !this.retriable;
  }
}

/** The constructor options of the classes that take `(…, message, options?)`, as Error does. */
export interface CauseOptions {
  readonly cause?: unknown;
}

/**
 * An input refused where it is read: a command-line flag, a configuration value, a credentials entry,
 * a number in a request. Its message names the field (`--from`, `index.tags`, `tokens.0.sha256`);
 * the boundary that reads it (the CLI, loadConfig, the HTTP API) words it as its own error.
 */
export class InputError extends ServiceError<'BAD_INPUT'> {
  override readonly name = 'InputError';
  /** the field at fault, as the user spells it, when the message is not enough */
  readonly field: string | undefined;

  constructor(message: string, options: CauseOptions & { readonly field?: string } = {}) {
    super({ code: 'BAD_INPUT', message, cause: options.cause });
    this.field = options.field;
  }
}

/**
 * The same failure in better words (a hint, the command's context): a ServiceError with the cause's
 * code and flags, so what it wraps still decides whether it is retriable or fatal.
 */
export function rephrase(message: string, cause: unknown): ServiceError {
  const { code, retriable, fatal } = classifyError(cause);
  return new ServiceError({ code, message, retriable, fatal, cause });
}

export interface Classification {
  readonly code: ErrorCode;
  readonly source: 'service' | 'kafka' | 'abort' | 'unknown';
  readonly retriable: boolean;
  readonly fatal: boolean;
}

const INTERNAL: Classification = { code: 'INTERNAL', source: 'unknown', retriable: false, fatal: true };
/** How far classifyError follows `cause` past uncoded wrappers. */
const MAX_CAUSE_DEPTH = 16;

function isKafkaJsError(err: Error): err is Error & { retriable?: unknown } {
  return err.name.startsWith('KafkaJS');
}

/** What one link of a cause chain says by itself, or undefined when it is an uncoded wrapper. */
function classifyOne(err: Error): Classification | undefined {
  if (err instanceof ServiceError) {
    const { code, retriable, fatal } = err as ServiceError;
    return { code, source: code === 'ABORTED' ? 'abort' : 'service', retriable, fatal };
  }
  if (isKafkaJsError(err)) return { code: 'KAFKA', source: 'kafka', retriable: err.retriable === true, fatal: false };
  if (err.name === 'AbortError') return { code: 'ABORTED', source: 'abort', retriable: false, fatal: false };
  return undefined;
}

/**
 * The one classification. A ServiceError carries its code and flags: the first one in the cause
 * chain decides (an uncoded Error wrapping a coded one says no more than its cause). kafkajs errors
 * are never fatal to the service: kafkajs rejoins the group or restarts the consumer, and the batch is
 * replayed from the last commit (a crash it will not restart from is reported as CONSUMER_CRASHED).
 * Aborts are shutdown, not failure. Anything else is fatal: replaying the same input cannot fix it.
 */
export function classifyError(err: unknown): Classification {
  let cur = err;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && cur instanceof Error; depth++) {
    const found = classifyOne(cur);
    if (found !== undefined) return found;
    cur = cur.cause;
  }
  return INTERNAL;
}

export function isFatal(err: unknown): boolean {
  return classifyError(err).fatal;
}

export function isAborted(err: unknown): boolean {
  return classifyError(err).code === 'ABORTED';
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
