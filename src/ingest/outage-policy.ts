// The one outage policy of the ingest path: every HBase call the path waits for (data, index and
// marker writes; the spread registry's snapshot and fence raises) runs through `run`, which retries
// it while its errors are retriable (capped backoff with full jitter, never giving up: skipping would
// lose data) and reports it to the OutageWatch: one pending token for the call and all its tries,
// each failure, each answer. So a call that cannot get through, whichever table it is for, makes the
// watch declare HBase down past the deadline (consumption pauses, /readyz 503), and its first answer
// declares HBase back. Only an error that retrying cannot fix leaves `run`; an abort (shutdown past
// its deadline) abandons the call at once, even one the gateway holds.
import type { OutageWatch } from './outage-watch.ts';
import { RetryAbortedError, retrying, type BackoffPolicy } from '../toolkit/retry.ts';

export interface OutagePolicyOptions {
  readonly retry: BackoffPolicy;
  /** may the same call be tried again? */
  readonly isRetriable: (err: unknown) => boolean;
  /** an error that is HBase's answer, so HBase is up (a refused row, a lost check-and-put race) */
  readonly isAnswer?: ((err: unknown) => boolean) | undefined;
  /** told when each call starts, fails and is answered (omitted: nobody watches) */
  readonly watch?: OutageWatch | undefined;
  /** abandons calls in flight and their retries (shutdown past its deadline) */
  readonly signal?: AbortSignal | undefined;
}

/** Resolves or rejects with `p`, or rejects as soon as `signal` aborts (the call itself runs on). */
export function unlessAborted<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return p;
  if (signal.aborted) return Promise.reject(new RetryAbortedError('call abandoned', { cause: signal.reason }));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      reject(new RetryAbortedError('call abandoned', { cause: signal.reason }));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => {
      signal.removeEventListener('abort', onAbort);
    });
  });
}

export class OutagePolicy {
  readonly #o: OutagePolicyOptions;

  constructor(options: OutagePolicyOptions) {
    this.#o = options;
  }

  get signal(): AbortSignal | undefined {
    return this.#o.signal;
  }

  /**
   * Runs `call` until it succeeds or fails for good. `onRetry` hears each retriable failure before
   * the pause that follows it.
   */
  async run<T>(call: () => Promise<T>, onRetry?: (err: unknown, attempt: number) => void): Promise<T> {
    const { watch, signal } = this.#o;
    const token = watch?.begin();
    try {
      return await retrying(
        async () => {
          try {
            const value = await unlessAborted(call(), signal);
            watch?.acknowledged();
            return value;
          } catch (err) {
            if (!(err instanceof RetryAbortedError)) {
              if (this.#o.isAnswer?.(err) === true) watch?.acknowledged();
              else watch?.failed(err);
            }
            throw err;
          }
        },
        { ...this.#o.retry, isRetriable: this.#o.isRetriable, signal, hooks: onRetry === undefined ? undefined : { onRetry } },
      );
    } finally {
      if (token !== undefined) watch?.end(token);
    }
  }
}
