/**
 * Errors of the pure event module: bad configuration (limits, field mapping) and malformed stored
 * cells. Bad *input events* are not errors — `parseEvent` returns a rejection instead.
 */

export const EVENT_ERROR_CODES = ['invalid_limits', 'invalid_mapping', 'malformed_cell'] as const;
export type EventErrorCode = (typeof EVENT_ERROR_CODES)[number];

export class EventError extends Error {
  readonly code: EventErrorCode;
  readonly retriable: boolean = false;
  /** The offending setting or cell, e.g. `limits.maxCellBytes`, `mapping.id`, `d:temp`. */
  readonly field: string | undefined;

  constructor(code: EventErrorCode, field: string | undefined, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EventError';
    this.code = code;
    this.field = field;
  }
}
