// Retries a write while its errors are retriable: capped exponential backoff with full jitter. It
// never gives up on a retriable error (skipping would lose data); past the outage deadline it tells
// the caller, which stops consuming and reports not-ready, and tells it again when a try succeeds.

export interface BackoffPolicy {
  readonly baseMs: number;
  readonly maxMs: number;
}

/** Delay before retry number `attempt` (1-based): uniform in [0, min(max, base·2^(attempt−1))]. */
export function backoffDelay(policy: BackoffPolicy, attempt: number, random: () => number = Math.random): number {
  const cap = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(attempt - 1, 30));
  return Math.round(random() * cap);
}

export interface RetryHooks {
  /** a retriable failure; `attempt` counts from 1 */
  onRetry?(err: unknown, attempt: number, delayMs: number): void;
  /** retriable failures have lasted longer than the outage deadline */
  onOutage?(err: unknown, sinceMs: number): void;
  /** a try succeeded after onOutage was called */
  onRecovered?(): void;
}

export interface RetryOptions extends BackoffPolicy {
  readonly outageDeadlineMs: number;
  readonly isRetriable: (err: unknown) => boolean;
  readonly signal?: AbortSignal | undefined;
  readonly hooks?: RetryHooks | undefined;
  readonly now?: () => number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export class RetryAbortedError extends Error {
  override readonly name = 'RetryAbortedError';
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
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? defaultSleep;
  let attempt = 0;
  let firstFailure: number | undefined;
  let inOutage = false;
  for (;;) {
    if (opts.signal?.aborted === true) throw new RetryAbortedError('retry aborted', { cause: opts.signal.reason });
    try {
      const result = await fn();
      if (inOutage) opts.hooks?.onRecovered?.();
      return result;
    } catch (err) {
      if (!opts.isRetriable(err)) throw err;
      attempt++;
      firstFailure ??= now();
      const down = now() - firstFailure;
      if (!inOutage && down >= opts.outageDeadlineMs) {
        inOutage = true;
        opts.hooks?.onOutage?.(err, down);
      }
      const delay = backoffDelay(opts, attempt);
      opts.hooks?.onRetry?.(err, attempt, delay);
      await sleep(delay, opts.signal);
    }
  }
}
