// Concurrent queries, capped in total and per identity. A query over a cap waits for a slot, first
// come first served, at most `waitMs` and with at most `maxWaiting` queries waiting in all; past
// those it is turned away (429 with Retry-After). A waiting query holds its request, not a read: the
// reads held in memory stay bounded by the caps. Why it waits at all: a dashboard's panels arrive
// together from one identity (Grafana's), and a ninth panel over a cap of 8 was an error on the
// screen where it only had to wait for the first to finish. Pure accounting apart from the timers.

export interface LimitSettings {
  /** queries in flight over all callers */
  readonly total: number;
  /** queries in flight for one identity (all anonymous callers are one identity) */
  readonly perIdentity: number;
  /** how long a query over a cap waits for a slot (ms); 0: turned away at once */
  readonly waitMs?: number;
  /** queries waiting at once, over all callers */
  readonly maxWaiting?: number;
}

export type Admission = { readonly ok: true; readonly release: () => void } | { readonly ok: false; readonly reason: string };

interface Waiter {
  readonly identity: string;
  readonly settle: (a: Admission) => void;
}

export class QueryLimits {
  readonly #settings: LimitSettings;
  readonly #byIdentity = new Map<string, number>();
  /** oldest first */
  readonly #waiting = new Set<Waiter>();
  #inFlight = 0;
  #waited = 0;
  #turnedAway = 0;

  constructor(settings: LimitSettings) {
    this.#settings = settings;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  get waiting(): number {
    return this.#waiting.size;
  }

  /** Queries admitted after waiting for a slot, and queries turned away (429), since start. */
  get counts(): { readonly waited: number; readonly turnedAway: number } {
    return { waited: this.#waited, turnedAway: this.#turnedAway };
  }

  /**
   * A slot for `identity` (its release is idempotent): at once when one is free, else the first free one within waitMs (those
   * waiting before it first); turned away when it is not its turn by then, when maxWaiting queries
   * wait already, or when `signal` aborts (the caller went away).
   */
  acquire(identity: string, signal?: AbortSignal): Promise<Admission> {
    const full = this.#full(identity);
    // (a free slot is never left to a waiting query: each release hands it on at once)
    if (full === undefined) return Promise.resolve(this.#take(identity));
    const { waitMs = 0, maxWaiting = 0 } = this.#settings;
    if (waitMs <= 0 || signal?.aborted === true) return Promise.resolve(this.#away(full));
    if (this.#waiting.size >= maxWaiting) return Promise.resolve(this.#away(`${full}; ${this.#waiting.size} queries wait for a slot already`));
    return new Promise<Admission>((resolve) => {
      const started = Date.now();
      const leave = (a: Admission): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', gone);
        this.#waiting.delete(waiter);
        resolve(a);
      };
      const gone = (): void => {
        leave({ ok: false, reason: 'the request went away while it waited for a slot' });
      };
      const waiter: Waiter = {
        identity,
        settle: (a) => {
          this.#waited++;
          leave(a);
        },
      };
      const timer = setTimeout(() => {
        leave(this.#away(`${full}; waited ${Date.now() - started} ms for a slot`));
      }, waitMs);
      signal?.addEventListener('abort', gone, { once: true });
      this.#waiting.add(waiter);
    });
  }

  #away(reason: string): Admission {
    this.#turnedAway++;
    return { ok: false, reason };
  }

  /** Which cap `identity` is over, or undefined. */
  #full(identity: string): string | undefined {
    const mine = this.#byIdentity.get(identity) ?? 0;
    if (mine >= this.#settings.perIdentity) return `too many concurrent queries for this identity (at most ${this.#settings.perIdentity})`;
    if (this.#inFlight >= this.#settings.total) return `too many concurrent queries (at most ${this.#settings.total})`;
    return undefined;
  }

  #take(identity: string): Admission {
    this.#inFlight++;
    this.#byIdentity.set(identity, (this.#byIdentity.get(identity) ?? 0) + 1);
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.#inFlight--;
        const left = (this.#byIdentity.get(identity) ?? 1) - 1;
        if (left <= 0) this.#byIdentity.delete(identity);
        else this.#byIdentity.set(identity, left);
        this.#dispatch();
      },
    };
  }

  /** Free slots to the waiting queries, oldest first; one whose identity is at its cap lets the next go. */
  #dispatch(): void {
    for (const w of this.#waiting) {
      if (this.#inFlight >= this.#settings.total) return;
      if (this.#full(w.identity) !== undefined) continue;
      w.settle(this.#take(w.identity));
    }
  }
}
