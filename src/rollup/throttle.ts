// A token bucket: `take(n)` resolves once n tokens are available; tokens refill at ratePerSec up to
// `burst` (default: one second's worth). Clock and sleep are injectable (unit tests).
import { setTimeout as sleepFor } from 'node:timers/promises';

export interface Throttle {
  take(n?: number, signal?: AbortSignal): Promise<void>;
}

export interface TokenBucketOptions {
  readonly ratePerSec: number;
  readonly burst?: number;
  readonly now?: () => number;
  /** resolves after ms (or earlier when signal aborts); never rejects */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

async function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  await sleepFor(ms, undefined, signal === undefined ? {} : { signal }).catch(() => undefined);
}

export class TokenBucket implements Throttle {
  readonly #rate: number;
  readonly #burst: number;
  readonly #now: () => number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  #tokens: number;
  #last: number;

  constructor(o: TokenBucketOptions) {
    if (!(o.ratePerSec > 0) || !Number.isFinite(o.ratePerSec)) throw new RangeError(`rate must be a positive number of rows per second, got ${o.ratePerSec}`);
    this.#rate = o.ratePerSec;
    this.#burst = Math.max(1, o.burst ?? o.ratePerSec);
    this.#now = o.now ?? Date.now;
    this.#sleep = o.sleep ?? defaultSleep;
    this.#tokens = this.#burst;
    this.#last = this.#now();
  }

  #refill(): void {
    const now = this.#now();
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#last) / 1000) * this.#rate);
    this.#last = now;
  }

  /** Waits until n tokens are available and takes them; returns early (without tokens) on abort. */
  async take(n = 1, signal?: AbortSignal): Promise<void> {
    for (;;) {
      this.#refill();
      if (this.#tokens >= n || (n > this.#burst && this.#tokens >= this.#burst)) {
        this.#tokens -= n;
        return;
      }
      if (signal?.aborted === true) return;
      await this.#sleep(Math.max(1, Math.ceil(((Math.min(n, this.#burst) - this.#tokens) / this.#rate) * 1000)), signal);
    }
  }
}

/** No throttling. */
export const UNTHROTTLED: Throttle = { take: () => Promise.resolve() };
