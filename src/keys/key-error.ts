/**
 * Errors raised by the pure key codecs. They are programming/input errors (bad argument, malformed
 * key bytes), never transient, so `retriable` is always false. A KeyError is a ServiceError (src/errors.ts);
 * the HBase client treats one thrown while building a request as HBASE_INVALID_ARGUMENT, as a RangeError.
 */

import { ServiceError, type CauseOptions, type KEY_ERROR_CODES } from '../errors.ts';

export { KEY_ERROR_CODES } from '../errors.ts';

export type KeyErrorCode = (typeof KEY_ERROR_CODES)[number];

export class KeyError extends ServiceError<KeyErrorCode> {
  override readonly name = 'KeyError';

  constructor(code: KeyErrorCode, message: string, options: CauseOptions = {}) {
    super({ code, message, retriable: false, cause: options.cause });
  }
}
