/**
 * Errors raised by the pure key codecs. They are programming/input errors (bad argument, malformed
 * key bytes), never transient, so `retriable` is always false. `KeyError` extends `RangeError` so
 * callers that only care about "argument out of domain" can keep using `instanceof RangeError`.
 */

export const KEY_ERROR_CODES = [
  'invalid_buckets',
  'invalid_id',
  'invalid_ts',
  'invalid_range',
  'invalid_index_part',
  'invalid_regions',
  'invalid_salt_mode',
  'invalid_spread',
  'invalid_window',
  'malformed_key',
] as const;

export type KeyErrorCode = (typeof KEY_ERROR_CODES)[number];

export class KeyError extends RangeError {
  readonly code: KeyErrorCode;
  readonly retriable: boolean = false;

  constructor(code: KeyErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'KeyError';
    this.code = code;
  }
}
