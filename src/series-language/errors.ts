// Pure: the query language's one error. Every malformed OpenTSDB request becomes a TsdbQueryError:
// HTTP 400, the offending field (`queries[1].downsample`, `m[0]`, `start`, …), a message worded as
// OpenTSDB 2.4.1 words it, and optional details. errorBody renders OpenTSDB's error shape.

import { ServiceError, type CauseOptions, type ErrorCode } from '../errors.ts';

export const TSDB_QUERY_ERROR_CODES = ['BAD_QUERY'] as const satisfies readonly ErrorCode[];
export type TsdbQueryErrorCode = (typeof TSDB_QUERY_ERROR_CODES)[number];

export interface TsdbQueryErrorInit {
  /** where in the request: `start`, `queries[0].filters[2].type`, `m[1]`, `timezone`, … */
  readonly field: string;
  /** OpenTSDB's own wording where it has one */
  readonly message: string;
  /** OpenTSDB's `details` (empty: left out of the body, as OpenTSDB does) */
  readonly details?: string;
  readonly cause?: unknown;
}

export class TsdbQueryError extends ServiceError<'BAD_QUERY'> {
  override name = 'TsdbQueryError';
  readonly status = 400;
  readonly field: string;
  readonly details: string;

  constructor(init: TsdbQueryErrorInit) {
    super({ code: 'BAD_QUERY', message: init.message, retriable: false, cause: init.cause });
    this.field = init.field;
    this.details = init.details ?? '';
  }
}

/** A request the series API refuses as HTTP (405 method, 408 past series.deadlineMs, 413 body too large). */
export class HttpError extends ServiceError<'HTTP_REQUEST'> {
  override name = 'HttpError';
  readonly status: number;

  constructor(status: number, message: string, options: CauseOptions = {}) {
    super({ code: 'HTTP_REQUEST', message, retriable: status === 408, cause: options.cause });
    this.status = status;
  }
}

export function badQuery(field: string, message: string, details?: string): TsdbQueryError {
  return new TsdbQueryError(details === undefined ? { field, message } : { field, message, details });
}

export interface ErrorBody {
  readonly error: { readonly code: number; readonly message: string; readonly details?: string };
}

/**
 * OpenTSDB's error body (HttpSerializer.formatErrorV1): `{"error":{"code":400,"message":…,"details":…}}`;
 * `details` only when non-empty, and no `trace` (OpenTSDB adds a Java stack trace we do not copy).
 * A TsdbQueryError with no details gets the offending field as details, so clients can see it.
 */
export function errorBody(err: TsdbQueryError): ErrorBody {
  const details = err.details !== '' ? err.details : `field: ${err.field}`;
  return { error: { code: err.status, message: err.message, details } };
}
