// Concurrent queries, capped in total and per identity: a query over either cap is turned away at
// once (429 with Retry-After) rather than queued, so memory stays bounded by the caps. Pure accounting.

export interface LimitSettings {
  /** queries in flight over all callers */
  readonly total: number;
  /** queries in flight for one identity (all anonymous callers are one identity) */
  readonly perIdentity: number;
}

export type Admission = { readonly ok: true; readonly release: () => void } | { readonly ok: false; readonly reason: string };

export class QueryLimits {
  readonly #settings: LimitSettings;
  readonly #byIdentity = new Map<string, number>();
  #inFlight = 0;

  constructor(settings: LimitSettings) {
    this.#settings = settings;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** Takes a slot for `identity`; the release is idempotent. */
  admit(identity: string): Admission {
    const mine = this.#byIdentity.get(identity) ?? 0;
    if (mine >= this.#settings.perIdentity)
      return { ok: false, reason: `too many concurrent queries for this identity (at most ${this.#settings.perIdentity})` };
    if (this.#inFlight >= this.#settings.total) return { ok: false, reason: `too many concurrent queries (at most ${this.#settings.total})` };
    this.#inFlight++;
    this.#byIdentity.set(identity, mine + 1);
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
      },
    };
  }
}
