// The wait a gateway, or a proxy in front of it (Knox, nginx), asks for in the Retry-After header of
// a 429 or a 503 (RFC 9110 §10.2.3): delta-seconds or an HTTP-date. Pure; the retry loop caps it
// (src/toolkit/retry.ts RETRY_AFTER_CAP_MS).
import { headerValue, type HttpResponse } from './transport.ts';

/** The statuses whose Retry-After is read: too many requests, service unavailable. */
const ASKS_TO_WAIT: ReadonlySet<number> = new Set([429, 503]);

/** A Retry-After value in ms from `nowMs` (an HTTP-date in the past is 0), or undefined when it is neither form. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  // An HTTP-date names its weekday and month (IMF-fixdate, and the obsolete RFC 850 and asctime forms).
  if (!/[a-z]/i.test(v)) return undefined;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/** The wait a 429 or 503 response asks for, in ms; undefined for other statuses or without a readable header. */
export function retryAfterOf(res: HttpResponse, nowMs: number = Date.now()): number | undefined {
  return ASKS_TO_WAIT.has(res.status) ? parseRetryAfter(headerValue(res, 'retry-after'), nowMs) : undefined;
}
