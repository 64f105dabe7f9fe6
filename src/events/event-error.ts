/**
 * Errors of the pure event module: bad configuration (limits, field mapping) and malformed stored
 * cells. Bad *input events* are not errors — `parseEvent` returns a rejection instead.
 */

import { ServiceError, type CauseOptions, type EVENT_ERROR_CODES } from '../errors.ts';

export { EVENT_ERROR_CODES } from '../errors.ts';
export type EventErrorCode = (typeof EVENT_ERROR_CODES)[number];

export class EventError extends ServiceError<EventErrorCode> {
  override readonly name = 'EventError';
  /** The offending setting or cell, e.g. `limits.maxCellBytes`, `mapping.id`, `d:temp`. */
  readonly field: string | undefined;

  constructor(code: EventErrorCode, field: string | undefined, message: string, options: CauseOptions = {}) {
    super({ code, message, retriable: false, cause: options.cause });
    this.field = field;
  }
}
