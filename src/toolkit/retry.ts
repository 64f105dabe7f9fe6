// Retries a write while its errors are retriable: capped exponential backoff with full jitter, or
// longer when the gateway asked for a wait (Retry-After of a 429 or 503, up to RETRY_AFTER_CAP_MS). It
// never gives up on a retriable error (skipping would lose data) and stops only when aborted. Whether
// HBase is *down* is not decided here from failure counts: failures may arrive only when a request
// deadline expires, so OutageWatch (outage-watch.ts) measures time from the oldest unacknowledged write.

import { ServiceError, type CauseOptions } from '../errors.ts';
import { askedWaitMs } from '../hbase/errors.ts';

/**
 * The longest wait a Retry-After may impose on one retry: a proxy asking for an hour must not hold a
 * write (or a shutdown's patience) for an hour. The outage watch keeps counting during the wait, and
 * the retry's signal ends it.
 */
export const RETRY_AFTER_CAP_MS = 30_000;

export interface BackoffPolicy {
  readonly baseMs: number;
  readonly maxMs: number;
}

/** Delay before retry number `attempt` (1-based): uniform in [0, min(max, base·2^(attempt−1))]. */
export function backoffDelay(policy: BackoffPolicy, attempt: number, random: () => number = Math.random): number {
  const cap = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(attempt - 1, 30));
  return Math.round(random() * cap);
}

/**
 * The wait before retry number `attempt`: the backoff, or the wait the gateway asked for when that is
 * longer (capped at RETRY_AFTER_CAP_MS), so a Retry-After of 0 never makes a tight loop.
 */
export function retryDelay(policy: BackoffPolicy, attempt: number, askedMs: number | undefined, random: () => number = Math.random): number {
  const backoff = backoffDelay(policy, attempt, random);
  return askedMs === undefined ? backoff : Math.max(backoff, Math.min(askedMs, RETRY_AFTER_CAP_MS));
}

export interface RetryHooks {
  /** a retriable failure; `attempt` counts from 1 */
  onRetry?(err: unknown, attempt: number, delayMs: number): void;
}

export interface RetryOptions extends BackoffPolicy {
  readonly isRetriable: (err: unknown) => boolean;
  readonly signal?: AbortSignal | undefined;
  readonly hooks?: RetryHooks | undefined;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** A retry loop stopped by its signal (shutdown): not a failure, never fatal. */
export class RetryAbortedError extends ServiceError<'ABORTED'> {
  override readonly name = 'RetryAbortedError';

  constructor(message: string, options: CauseOptions = {}) {
    super({ code: 'ABORTED', message, retriable: false, fatal: false, cause: options.cause });
  }
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(new RetryAbortedError('retry aborted'));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new RetryAbortedError('retry aborted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export async function retrying<T>(fn: () => Promise<T>, opts: RetryOptions): Promise<T> {
  const sleep = opts.sleep ?? defaultSleep;
  let attempt = 0;
  for (;;) {
    if (opts.signal?.aborted === true) throw new RetryAbortedError('retry aborted', { cause: opts.signal.reason });
    try {
      return await fn();
    } catch (err) {
      if (!opts.isRetriable(err)) throw err;
      attempt++;
      const delay = retryDelay(opts, attempt, askedWaitMs(err));
      opts.hooks?.onRetry?.(err, attempt, delay);
      await sleep(delay, opts.signal);
    }
  }
}
