/**
 * Throttling of a walk (`--rate`): a pure token bucket, and the one `Throttle` the tools await.
 *
 * The bucket refills at `ratePerSec` up to `burst` tokens (what is saved up while idle). A take may
 * run into debt — a chunk larger than the burst still passes — and returns how long the taker must
 * wait before going on, so the long-run rate holds across any number of concurrent takers. The
 * backfill takes 1 token per row, the index rebuild the rows of each chunk.
 */
import { setTimeout as sleepFor } from 'node:timers/promises';

export class TokenBucket {
  readonly #rate: number;
  readonly #burst: number;
  #tokens: number;
  #last: number;

  /**
   * `ratePerSec` > 0; `burst` > 0 = most tokens saved up while idle (default one second's worth, at
   * least one token). The bucket starts full at time `now` (ms).
   */
  constructor(ratePerSec: number, now: number, burst: number = Math.max(1, ratePerSec)) {
    if (!(ratePerSec > 0) || !Number.isFinite(ratePerSec)) throw new RangeError(`rate must be a positive number of tokens per second, got ${ratePerSec}`);
    if (!(burst > 0) || !Number.isFinite(burst)) throw new RangeError(`burst must be a positive number, got ${burst}`);
    this.#rate = ratePerSec;
    this.#burst = burst;
    this.#tokens = burst;
    this.#last = now;
  }

  /** Takes `n` tokens at time `now` (ms); returns how many ms to wait before going on (0 = none). */
  take(n: number, now: number): number {
    if (!Number.isFinite(n) || n < 0) throw new RangeError(`tokens taken must be >= 0, got ${n}`);
    // A clock going backwards adds nothing.
    const elapsed = Math.max(0, now - this.#last);
    this.#last = Math.max(this.#last, now);
    this.#tokens = Math.min(this.#burst, this.#tokens + (elapsed * this.#rate) / 1000);
    this.#tokens -= n;
    return this.#tokens >= 0 ? 0 : Math.ceil((-this.#tokens * 1000) / this.#rate);
  }
}

/** What a walk awaits before going on: resolves once `n` more units (rows) may be processed. */
export interface Throttle {
  /** Never rejects; resolves early when `signal` aborts (the caller checks the signal). */
  take(n: number, signal?: AbortSignal): Promise<void>;
}

/** Resolves after `ms`, or earlier when `signal` aborts; never rejects. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface ThrottleOptions {
  readonly ratePerSec: number;
  /** default: one second's worth of tokens, at least one */
  readonly burst?: number | undefined;
  /** ms clock (default Date.now) */
  readonly now?: (() => number) | undefined;
  readonly sleep?: Sleep | undefined;
}

const timerSleep: Sleep = async (ms, signal) => {
  await sleepFor(ms, undefined, signal === undefined ? {} : { signal }).catch(() => undefined);
};

/** A throttle over a token bucket, with an injectable clock and sleep (unit tests). */
export function createThrottle(o: ThrottleOptions): Throttle {
  const now = o.now ?? Date.now;
  const sleep = o.sleep ?? timerSleep;
  const bucket = new TokenBucket(o.ratePerSec, now(), o.burst);
  return {
    async take(n, signal) {
      const wait = bucket.take(n, now());
      if (wait > 0 && signal?.aborted !== true) await sleep(wait, signal);
    },
  };
}

/** No throttling. */
export const UNTHROTTLED: Throttle = { take: () => Promise.resolve() };
