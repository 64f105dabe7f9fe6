// The read side's series catalog: a SeriesIndex reread from the meta table every `refreshMs`, and at
// once (at most every `missMs`) when a query or look-up names a metric it does not know yet, so a
// series written a moment ago is found without waiting for the timer. A failed reread keeps the last
// content (the next one tries again).
import type { SeriesIndex } from './series-index.ts';

export interface LiveIndexOptions {
  readonly index: SeriesIndex;
  readonly refreshMs: number;
  /** shortest pause between two rereads for a miss (ms) */
  readonly missMs?: number;
  readonly onError?: (err: unknown) => void;
  readonly now?: () => number;
}

export class LiveIndex {
  readonly #o: LiveIndexOptions;
  readonly #now: () => number;
  #refreshing: Promise<void> | undefined;
  #lastAt = Number.NEGATIVE_INFINITY;
  #timer: NodeJS.Timeout | undefined;
  #loaded = false;

  constructor(options: LiveIndexOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  get index(): SeriesIndex {
    return this.#o.index;
  }

  /** Rereads the catalog (concurrent callers share one read); never rejects. */
  refresh(): Promise<void> {
    this.#refreshing ??= (async () => {
      this.#lastAt = this.#now();
      try {
        await this.#o.index.refresh();
        this.#loaded = true;
      } catch (err) {
        this.#o.onError?.(err);
      } finally {
        this.#refreshing = undefined;
      }
    })();
    return this.#refreshing;
  }

  /** Before answering: loaded at least once, and reread when `metric` is unknown (throttled). */
  async ready(metric?: string): Promise<void> {
    if (!this.#loaded) {
      await this.refresh();
      return;
    }
    if (metric === undefined || this.#o.index.metrics(metric, 1)[0] === metric) return;
    if (this.#now() - this.#lastAt >= (this.#o.missMs ?? 2000)) await this.refresh();
  }

  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => { void this.refresh(); }, this.#o.refreshMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#refreshing;
  }
}
