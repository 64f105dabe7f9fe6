/**
 * Errors of the read side that are the caller's fault: a bad or missing parameter, an unknown index
 * or window, a cursor that does not belong to the query. Each names the parameter; the HTTP API maps
 * `status` onto the response (400 / 404), the CLI prints the message (exit 2). Never retriable.
 */
import { ServiceError, type CauseOptions, type QUERY_ERROR_CODES } from '../errors.ts';

export { QUERY_ERROR_CODES } from '../errors.ts';
export type QueryErrorCode = (typeof QUERY_ERROR_CODES)[number];

export class QueryError extends ServiceError<QueryErrorCode> {
  override readonly name = 'QueryError';
  /** the parameter at fault, as the API spells it (`limit`, `from`, `cursor`, …) */
  readonly parameter: string;
  /** 400 for bad input, 404 for an index or window that does not exist */
  readonly status: 400 | 404;

  constructor(code: QueryErrorCode, parameter: string, message: string, options: CauseOptions = {}) {
    super({ code, message, retriable: false, cause: options.cause });
    this.parameter = parameter;
    this.status = code === 'UNKNOWN_INDEX' || code === 'UNKNOWN_WINDOW' ? 404 : 400;
  }
}
