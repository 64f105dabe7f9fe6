// Decides when HBase is *down*, by time, not by counting failures. The REST gateway holds requests
// while HBase is unreachable, so a failure may arrive only when a request deadline expires; counting
// failures would turn a 10 s outage deadline into a minute. Instead every write reports when it
// starts and when it is acknowledged, and a timer checks the age of the oldest unacknowledged write,
// measured from the later of its start and the last acknowledged write: past `deadlineMs` with no
// acknowledgement HBase is declared down (consumption pauses, /readyz 503); the next acknowledged
// write declares it back. Pure apart from the injected clock; `check()` is what the timer calls.

export interface OutageListener {
  /** writes have gone unacknowledged for `sinceMs` (≥ the deadline); `lastError` if any failed */
  onOutage(sinceMs: number, lastError: unknown): void;
  /** a write was acknowledged after onOutage */
  onRecovered(): void;
  /** the first failure after an acknowledged write (a stretch of failures begins) */
  onFailing?(err: unknown): void;
}

export interface OutageWatchOptions {
  readonly deadlineMs: number;
  readonly now?: () => number;
  /** how often the timer checks (default: a quarter of the deadline, 50 ms … 1 s) */
  readonly checkEveryMs?: number;
}

export type WriteToken = number;

export class OutageWatch {
  readonly #deadlineMs: number;
  readonly #now: () => number;
  readonly #checkEveryMs: number;
  /** token → start time of the pending write (insertion order = start order) */
  readonly #pending = new Map<WriteToken, number>();
  readonly #listeners = new Set<OutageListener>();
  #next = 1;
  #lastAck: number;
  #lastError: unknown = undefined;
  #failing = false;
  #down = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: OutageWatchOptions) {
    this.#deadlineMs = options.deadlineMs;
    this.#now = options.now ?? Date.now;
    this.#checkEveryMs = options.checkEveryMs ?? Math.max(50, Math.min(1000, Math.floor(options.deadlineMs / 4)));
    this.#lastAck = this.#now();
  }

  get down(): boolean {
    return this.#down;
  }

  /** Subscribes; returns the unsubscribe function. */
  listen(listener: OutageListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** A write (one chunk, all its retries) begins. */
  begin(): WriteToken {
    const token = this.#next++;
    this.#pending.set(token, this.#now());
    return token;
  }

  /** One try of a pending write failed (it will be retried, or the write ends with `end`). */
  failed(err: unknown): void {
    this.#lastError = err;
    if (this.#failing) return;
    this.#failing = true;
    for (const l of this.#listeners) l.onFailing?.(err);
  }

  /** HBase acknowledged a try (of this write or of a part of it). */
  acknowledged(): void {
    this.#lastAck = this.#now();
    this.#failing = false;
    this.#lastError = undefined;
    if (!this.#down) return;
    this.#down = false;
    for (const l of this.#listeners) l.onRecovered();
  }

  /** The write is over: acknowledged, refused, or abandoned. */
  end(token: WriteToken): void {
    this.#pending.delete(token);
  }

  /** How long the oldest pending write has gone without any acknowledgement (0 when none pending). */
  unacknowledgedMs(): number {
    const oldest = this.#pending.values().next();
    if (oldest.done === true) return 0;
    return Math.max(0, this.#now() - Math.max(oldest.value, this.#lastAck));
  }

  /** Declares the outage once the oldest unacknowledged write is past the deadline. */
  check(): void {
    if (this.#down) return;
    const since = this.unacknowledgedMs();
    if (since < this.#deadlineMs) return;
    this.#down = true;
    for (const l of this.#listeners) l.onOutage(since, this.#lastError);
  }

  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => {
      this.check();
    }, this.#checkEveryMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
