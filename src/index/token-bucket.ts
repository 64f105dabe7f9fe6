// Pure: a token bucket for `--rate` (rows scanned per second). Takes may run into debt — a chunk larger
// than the burst still passes — and the caller waits the returned time, so the long-run rate holds
// across any number of concurrent takers.

export class TokenBucket {
  readonly #rate: number;
  readonly #burst: number;
  #tokens: number;
  #last: number;

  /** `ratePerSec` > 0; `burst` = most tokens saved up while idle (default one second's worth). */
  constructor(ratePerSec: number, now: number, burst: number = ratePerSec) {
    if (!(ratePerSec > 0) || !Number.isFinite(ratePerSec)) throw new RangeError(`rate must be a positive number, got ${ratePerSec}`);
    if (!(burst > 0) || !Number.isFinite(burst)) throw new RangeError(`burst must be a positive number, got ${burst}`);
    this.#rate = ratePerSec;
    this.#burst = burst;
    this.#tokens = burst;
    this.#last = now;
  }

  /** Takes `n` tokens at time `now` (ms); returns how many ms to wait before going on (0 = none). */
  take(n: number, now: number): number {
    if (!Number.isFinite(n) || n < 0) throw new RangeError(`tokens taken must be >= 0, got ${n}`);
    const elapsed = Math.max(0, now - this.#last);
    this.#last = Math.max(this.#last, now);
    this.#tokens = Math.min(this.#burst, this.#tokens + (elapsed * this.#rate) / 1000);
    this.#tokens -= n;
    return this.#tokens >= 0 ? 0 : Math.ceil((-this.#tokens * 1000) / this.#rate);
  }
}

export type Throttle = (rows: number) => Promise<void>;

/** A throttle over a token bucket with an injected clock and sleep. */
export function throttleOf(bucket: TokenBucket, now: () => number, sleep: (ms: number) => Promise<void>): Throttle {
  return async (rows) => {
    const wait = bucket.take(rows, now());
    if (wait > 0) await sleep(wait);
  };
}
