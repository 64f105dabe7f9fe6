// Flow control of the consumer, pure: a budget of queued records (`batch.maxQueuedRows`) and the
// reasons fetching is paused. A flush unit must take its records from the budget before it is planned
// and written, and gives them back once it is committed or abandoned, so the records held between
// fetch and commit, summed over every batch in flight, never exceed the bound. While a unit waits for
// budget, or HBase is down, or the service drains, fetching is paused (`onPausedChange`).

export const HOLD_REASONS = ['queue_full', 'hbase_outage', 'draining'] as const;
export type HoldReason = (typeof HOLD_REASONS)[number];

export interface FlowControlOptions {
  readonly maxQueuedRows: number;
  /** fetching must stop (true) or may go on (false); called on every change */
  readonly onPausedChange: (paused: boolean, reasons: readonly HoldReason[]) => void;
  /** the queued-record count changed (for the tsingest_queue_depth gauge) */
  readonly onQueued?: (queued: number) => void;
}

function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new Error('aborted while waiting for queue budget');
}

interface Waiter {
  readonly rows: number;
  readonly resolve: () => void;
  readonly reject: (err: Error) => void;
}

export class FlowControl {
  readonly #o: FlowControlOptions;
  readonly #holds = new Set<HoldReason>();
  readonly #waiters: Waiter[] = [];
  #queued = 0;

  constructor(options: FlowControlOptions) {
    if (!Number.isInteger(options.maxQueuedRows) || options.maxQueuedRows < 1) {
      throw new RangeError(`batch.maxQueuedRows must be a positive integer, got ${String(options.maxQueuedRows)}`);
    }
    this.#o = options;
  }

  get queued(): number {
    return this.#queued;
  }

  get paused(): boolean {
    return this.#holds.size > 0;
  }

  get holds(): readonly HoldReason[] {
    return [...this.#holds];
  }

  hold(reason: HoldReason): void {
    if (this.#holds.has(reason)) return;
    const was = this.paused;
    this.#holds.add(reason);
    if (!was) this.#o.onPausedChange(true, this.holds);
  }

  release(reason: HoldReason): void {
    if (!this.#holds.delete(reason)) return;
    if (!this.paused) this.#o.onPausedChange(false, []);
  }

  /**
   * Takes `rows` from the budget, waiting while it would overflow. A request larger than the whole
   * budget is admitted alone (when nothing else is queued), so it cannot wait forever. Rejects with
   * the signal's reason when aborted while waiting (nothing taken).
   */
  acquire(rows: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted === true) return Promise.reject(abortReason(signal));
    if (this.#waiters.length === 0 && this.#fits(rows)) {
      this.#take(rows);
      return Promise.resolve();
    }
    this.hold('queue_full');
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        rows,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        reject,
      };
      const onAbort = (): void => {
        const i = this.#waiters.indexOf(waiter);
        if (i >= 0) this.#waiters.splice(i, 1);
        this.#admit();
        reject(abortReason(signal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  /** Gives `rows` back (the unit was committed or abandoned) and admits waiting units, in order. */
  giveBack(rows: number): void {
    this.#queued = Math.max(0, this.#queued - rows);
    this.#o.onQueued?.(this.#queued);
    this.#admit();
  }

  #fits(rows: number): boolean {
    return this.#queued === 0 || this.#queued + rows <= this.#o.maxQueuedRows;
  }

  #take(rows: number): void {
    this.#queued += rows;
    this.#o.onQueued?.(this.#queued);
    // Full: fetch nothing more (batches other fetchers already hold wait in kafkajs, bounded by bytes).
    if (this.#queued >= this.#o.maxQueuedRows) this.hold('queue_full');
  }

  #admit(): void {
    for (;;) {
      const next = this.#waiters[0];
      if (next === undefined || !this.#fits(next.rows)) break;
      this.#waiters.shift();
      this.#take(next.rows);
      next.resolve();
    }
    if (this.#waiters.length === 0 && this.#queued < this.#o.maxQueuedRows) this.release('queue_full');
  }
}
