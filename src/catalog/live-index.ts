// The read side's series catalog: a SeriesIndex kept current from the meta table by rereads of what is
// new (on a timer, at once for an unknown metric, and before a query with `freshMs`).
// Design notes: docs/DECISIONS.md#keeping-the-catalog-current
import { eachSliced, Slices } from '../toolkit/slices.ts';
import type { SeriesIndex } from './series-index.ts';
import { JOURNAL_SPAN_MS, type Series } from './rows.ts';
import type { CatalogGeneration, JournalSeen } from './store.ts';

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
  /**
   * How long a fresh reread waits before it starts, so that the queries arriving together (a
   * dashboard's panels, sent at once) board one reread rather than each waiting out the one before
   * (default FRESH_LINGER_MS).
   */
  readonly freshLingerMs?: number;
  /**
   * The catalog's generation token (CatalogStore.generation): a reread before a query first reads it,
   * and scans only when it differs from the one read before the last scan (writers replace it after
   * their series rows are acknowledged). Timed and whole rereads always scan: they also find the rows
   * of writers that do not replace it. Undefined: every reread scans.
   */
  readonly generation?: () => Promise<CatalogGeneration | undefined>;
  /**
   * The catalog's journal (CatalogStore.journal): when the generation changed, a reread of what is
   * new before a query reads the series it lists since the last scan (less slackMs) instead of
   * scanning every series row, while that reaches back at most JOURNAL_SPAN_MS (rows.ts); `seen` is the
   * index's own (a cell read before is not given again). Undefined:
   * such rereads scan.
   */
  readonly journal?: (sinceMs: number, nowMs: number, seen: JournalSeen) => Promise<{ readonly series: readonly Series[] }>;
  readonly onError?: (err: unknown) => void;
  readonly now?: () => number;
}

/** Default wait before a fresh reread starts (ms): the panels of one dashboard refresh arrive within it. */
export const FRESH_LINGER_MS = 10;

export class LiveIndex {
  readonly #o: LiveIndexOptions;
  readonly #now: () => number;
  #refreshing: Promise<void> | undefined;
  /** when the reread in flight (or the last one) started */
  #lastAt = Number.NEGATIVE_INFINITY;
  /** start of the last reread that succeeded (its rows are in), or undefined before the first whole one */
  #since: number | undefined;
  /** start of the last scan that succeeded (a journal read does not move it) */
  #scannedSince: number | undefined;
  #rereads = 0;
  /** the generation read before the last scan that succeeded */
  #generation: string | undefined;
  #skips = 0;
  #scans = 0;
  #journals = 0;
  /** the journal cells read so far (store.ts JournalSeen): a reread of the slack skips them */
  readonly #journalSeen: JournalSeen = new Map();
  #timer: NodeJS.Timeout | undefined;
  /** a fresh reread about to start (its linger): the queries arriving meanwhile board it */
  #lingering: Promise<void> | undefined;

  constructor(options: LiveIndexOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  get index(): SeriesIndex {
    return this.#o.index;
  }

  /** Rereads skipped because the catalog's generation had not changed. */
  get skips(): number {
    return this.#skips;
  }

  /** Rereads so far: those that scanned the catalog, those that read its journal, and those its unchanged generation spared. */
  rereads(): { readonly scanned: number; readonly journal: number; readonly unchanged: number } {
    return { scanned: this.#scans, journal: this.#journals, unchanged: this.#skips };
  }

  /**
   * Rereads the catalog: whole when asked or never done, else what is new (concurrent callers share
   * one); with `ifChanged`, a reread of what is new only when the catalog's generation changed
   * since the last scan. Never rejects.
   */
  refresh(whole = false, ifChanged = false): Promise<void> {
    this.#refreshing ??= (async () => {
      const started = this.#now();
      this.#lastAt = started;
      try {
        const since = this.#since;
        // read before the scan: a writer that replaces it after this read has its rows in the next scan
        const generation = this.#o.generation === undefined ? undefined : await this.#o.generation();
        if (ifChanged && !whole && since !== undefined && generation !== undefined && generation.token === this.#generation) {
          this.#skips++;
          return; // nothing written since the last scan, by any writer that replaces the token
        }
        const slack = this.#o.slackMs ?? 300_000;
        const journal = this.#o.journal;
        const from = since === undefined ? undefined : since - slack;
        if (ifChanged && !whole && from !== undefined && generation?.journaled === true && journal !== undefined && started - from <= JOURNAL_SPAN_MS) {
          // the last writer keeps the journal: it listed there what it added before replacing the token
          // (a writer without one in between, in a mixed upgrade, is seen by the next timed reread)
          // in slices: a minute of a first load can list thousands of series
          const { series } = await journal(from, started, this.#journalSeen);
          await eachSliced(series.length, new Slices(), (i) => this.#o.index.add(series[i] as Series));
          this.#journals++;
        } else {
          // a scan reaches back to the last scan (not the last journal read): it also finds the rows of
          // writers that keep no journal (the backfill, an older version)
          const scanned = this.#scannedSince;
          if (whole || scanned === undefined) {
            // the content replaced: what the journal gave before is given again (a row the scan just missed)
            this.#journalSeen.clear();
            await this.#o.index.refresh();
          } else await this.#o.index.refreshSince(scanned - slack);
          this.#scans++;
          this.#scannedSince = started;
        }
        this.#generation = generation?.token;
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

  /**
   * Waits for a reread of what is new that started at or after `t`: the one in flight if it did, else
   * the next, which starts after a linger (freshLingerMs) shared by every query arriving in it. A
   * reread in flight that started before `t` is waited out first (one at a time: a whole reread
   * replaces the content).
   */
  async #freshSince(t: number): Promise<void> {
    for (;;) {
      const inFlight = this.#refreshing;
      if (this.#lastAt >= t) {
        await inFlight;
        return;
      }
      if (inFlight !== undefined) {
        await inFlight;
        continue;
      }
      this.#lingering ??= new Promise<void>((resolve) => {
        setTimeout(resolve, this.#o.freshLingerMs ?? FRESH_LINGER_MS);
      }).then(() => {
        this.#lingering = undefined;
        void this.refresh(false, true);
      });
      await this.#lingering;
    }
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
