// The service's one error vocabulary. Every failure the ingest path meets is classified here, once:
// a code from a closed list, `retriable` (is the failure transient: try the same thing again?) and
// `fatal` (can replaying never fix it, so the service must stop?). HBaseError (src/hbase/errors.ts)
// is a ServiceError; kafkajs errors and aborts are mapped without being wrapped.

export const SERVICE_ERROR_CODES = [
  'HBASE', // an HBaseError: its own code says more (err.code on the error itself)
  'KAFKA', // a kafkajs error: the client rejoins, restarts and replays
  'ABORTED', // cancelled by shutdown: in-flight work is abandoned uncommitted and replayed later
  'DRAIN_FAILED', // shutdown could not commit what was written (or had to abandon in-flight writes)
  'STARTUP', // the service refuses to start (config/table mismatch, topic missing, start aborted)
  'CONSUMER_CRASHED', // kafkajs gave up on the consumer and will not restart it
  'REGISTRY_CONFLICT', // a spread registry update lost its check-and-put race on every attempt: try again
  'INTERNAL', // anything else: a bug or an unexpected failure
] as const;
export type ServiceErrorCode = (typeof SERVICE_ERROR_CODES)[number];

export interface ServiceErrorInit<C extends string = ServiceErrorCode> {
  readonly code: C;
  readonly message: string;
  readonly retriable?: boolean;
  readonly fatal?: boolean;
  readonly cause?: unknown;
}

export class ServiceError<C extends string = ServiceErrorCode> extends Error {
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

export interface Classification {
  /** ServiceErrorCode, or for a ServiceError subclass (HBaseError) its own code */
  readonly code: string;
  readonly source: 'service' | 'kafka' | 'abort' | 'unknown';
  readonly retriable: boolean;
  readonly fatal: boolean;
}

function isKafkaJsError(err: unknown): err is Error & { retriable?: unknown } {
  return err instanceof Error && err.name.startsWith('KafkaJS');
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || err.name === 'RetryAbortedError');
}

/**
 * The one classification. ServiceErrors (HBaseError included) carry their flags. kafkajs errors are
 * never fatal to the service: kafkajs rejoins the group or restarts the consumer, and the batch is
 * replayed from the last commit (a crash it will not restart from is reported as CONSUMER_CRASHED).
 * Aborts are shutdown, not failure. Anything else is fatal: replaying the same input cannot fix it.
 */
export function classifyError(err: unknown): Classification {
  if (err instanceof ServiceError) {
    const e = err as ServiceError<string>;
    return { code: e.code, source: 'service', retriable: e.retriable, fatal: e.fatal };
  }
  if (isKafkaJsError(err)) return { code: 'KAFKA', source: 'kafka', retriable: err.retriable === true, fatal: false };
  if (isAbort(err)) return { code: 'ABORTED', source: 'abort', retriable: false, fatal: false };
  return { code: 'INTERNAL', source: 'unknown', retriable: false, fatal: true };
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
