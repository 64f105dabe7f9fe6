// The read side's series catalog: a SeriesIndex kept current from the meta table by rereads of what is
// new (on a timer, at once for an unknown metric, and before a query with `freshMs`).
// Design notes: docs/DECISIONS.md#keeping-the-catalog-current
import { Slices } from '../tsdb/slices.ts';
import type { SeriesIndex } from './series-index.ts';

export interface LiveIndexOptions {
  readonly index: SeriesIndex;
  readonly refreshMs: number;
  /** shortest pause between two rereads for a miss (ms) */
  readonly missMs?: number;
  /** every this many-th timed reread is a whole one (default 20) */
  readonly fullEvery?: number;
  /** how far behind our clock a writer's may be (ms, default 5 min) */
  readonly slackMs?: number;
  /**
   * Before a query: a reread of what is new that started at most this long before the query arrived
   * (ms). 0: every query sees every series whose catalog row was written before it arrived (queries
   * arriving together share one reread). Undefined: none (the timer and misses only).
   */
  readonly freshMs?: number;
  readonly onError?: (err: unknown) => void;
  readonly now?: () => number;
}

export class LiveIndex {
  readonly #o: LiveIndexOptions;
  readonly #now: () => number;
  #refreshing: Promise<void> | undefined;
  /** when the reread in flight (or the last one) started */
  #lastAt = Number.NEGATIVE_INFINITY;
  /** start of the last reread that succeeded (its rows are in), or undefined before the first whole one */
  #since: number | undefined;
  #rereads = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: LiveIndexOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  get index(): SeriesIndex {
    return this.#o.index;
  }

  /** Rereads the catalog: whole when asked or never done, else what is new (concurrent callers share one); never rejects. */
  refresh(whole = false): Promise<void> {
    this.#refreshing ??= (async () => {
      const started = this.#now();
      this.#lastAt = started;
      try {
        const since = this.#since;
        if (whole || since === undefined) await this.#o.index.refresh();
        else await this.#o.index.refreshSince(since - (this.#o.slackMs ?? 300_000));
        this.#since = started;
      } catch (err) {
        this.#o.onError?.(err);
      } finally {
        this.#refreshing = undefined;
      }
    })();
    return this.#refreshing;
  }

  /**
   * Before answering: loaded at least once, reread when `metric` is unknown (throttled), and the
   * index's sorted views rebuilt in slices of the event loop when a change made them stale. With
   * `freshMs`, a reread of what is new started at or after `arrivedAt − freshMs` (arrivedAt: when the
   * request came, our clock; the sub-queries of one request share it, so they share one reread).
   * `fresh` false: loaded and prepared as it is, no reread (what a query checks before the reread).
   */
  async ready(metric?: string, arrivedAt: number = this.#now(), fresh = true): Promise<void> {
    const index = this.#o.index;
    if (this.#since === undefined) await this.refresh();
    else if (!fresh) {
      // loaded and prepared, as it is: no reread
    } else if (this.#o.freshMs !== undefined) await this.#freshSince(arrivedAt - this.#o.freshMs);
    else if (metric !== undefined) {
      await index.prepare(new Slices());
      if (index.metrics(metric, 1)[0] !== metric && this.#now() - this.#lastAt >= (this.#o.missMs ?? 2000)) await this.refresh();
    }
    await index.prepare(new Slices());
  }

  /** Waits for a reread of what is new that started at or after `t` (the one in flight if it did, else the next). */
  async #freshSince(t: number): Promise<void> {
    const inFlight = this.#refreshing;
    if (inFlight !== undefined) {
      if (this.#lastAt >= t) return inFlight;
      await inFlight;
    }
    if (this.#lastAt >= t) return;
    await this.refresh();
  }

  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => {
      this.#rereads++;
      void this.refresh(this.#rereads % (this.#o.fullEvery ?? 20) === 0);
    }, this.#o.refreshMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#refreshing;
  }
}
