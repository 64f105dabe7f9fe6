/**
 * Automatic promotion (keys.spread.auto): every keys.spread.refreshMs publish this instance's load,
 * sum every instance's, promote through the registry's check-and-put.
 * Design notes: docs/DECISIONS.md#automatic-promotion
 */
import { maxK } from '../keys/index.ts';
import { clusterLoad, promotionsFor, type LoadReport, type Promotion, type PromotionPolicy } from './load.ts';
import type { SpreadRegistry } from './registry.ts';
import type { RegistryStore } from './store.ts';

/** What the promoter reads from this instance's hot-ids sketch (src/load/hot-ids.ts HotIds fits). */
export interface LoadSource {
  load(limit: number): { readonly windowMs: number; readonly total: number; readonly top: readonly (readonly [string, number])[] };
}

export interface PromoterOptions {
  readonly instance: string;
  readonly registry: Pick<SpreadRegistry, 'promote' | 'entryOf'>;
  readonly store: Pick<RegistryStore, 'putLoad' | 'loads' | 'deleteLoad'>;
  readonly hotIds: LoadSource;
  readonly policy: PromotionPolicy;
  /** one round per this many ms */
  readonly everyMs: number;
  /** a report older than this is from an instance that stopped (it is ignored, and deleted when much older) */
  readonly staleMs: number;
  /** ids per load report */
  readonly reportIds?: number;
  readonly now?: () => number;
  /** each round's outcome (metrics, logs) */
  readonly onRound?: ((r: RoundResult) => void) | undefined;
}

export interface RoundResult {
  readonly outcome: 'ok' | 'skipped' | 'error';
  /** promotions this round applied (others may have been applied by another instance first) */
  readonly promoted: readonly Promotion[];
  readonly total: number;
  readonly instances: number;
  readonly error?: unknown;
}

/** Reports this many ids at most: ids at minShare or above are far fewer (≤ 1 / minShare). */
export const DEFAULT_REPORT_IDS = 256;

export class Promoter {
  readonly #o: PromoterOptions;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;
  #round: Promise<void> | undefined;
  #stopped = false;

  constructor(options: PromoterOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  start(): void {
    this.#stopped = false;
    const tick = (): void => {
      this.#timer = setTimeout(() => {
        // The hook only reports: its failure must neither stop the rounds nor escape as an unhandled rejection.
        this.#round = this.round()
          .then((r) => {
            try {
              this.#o.onRound?.(r);
            } catch {
              /* reporting only */
            }
          })
          .finally(() => {
            this.#round = undefined;
            if (!this.#stopped) tick();
          });
      }, this.#o.everyMs);
      this.#timer.unref();
    };
    tick();
  }

  /** One round: publish, sum, promote. Never throws (the outcome says what went wrong). */
  async round(): Promise<RoundResult> {
    const { store, registry, policy } = this.#o;
    try {
      const now = this.#now();
      const mine = this.#o.hotIds.load(this.#o.reportIds ?? DEFAULT_REPORT_IDS);
      await store.putLoad({ instance: this.#o.instance, at: now, windowMs: mine.windowMs, total: mine.total, top: mine.top });
      const reports = await store.loads();
      await this.#dropStale(reports, now);
      const load = clusterLoad(reports, now, this.#o.staleMs);
      if (load.total < policy.minEvents) return { outcome: 'skipped', promoted: [], total: load.total, instances: load.instances };
      const promoted: Promotion[] = [];
      for (const p of promotionsFor(load, policy, (id) => maxK(registry.entryOf(id)))) {
        if ((await registry.promote(p.id, p.k, 'auto')) !== null) promoted.push(p);
      }
      return { outcome: 'ok', promoted, total: load.total, instances: load.instances };
    } catch (error) {
      return { outcome: 'error', promoted: [], total: 0, instances: 0, error };
    }
  }

  /** Deletes reports far older than the stale age (instances long gone); failures are left for the next round. */
  async #dropStale(reports: readonly LoadReport[], now: number): Promise<void> {
    for (const r of reports)
      if (r.instance !== this.#o.instance && now - r.at > 10 * this.#o.staleMs) await this.#o.store.deleteLoad(r.instance).catch(() => undefined);
  }

  /** Stops the rounds (waiting for one in progress) and deletes this instance's report. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    await this.#round;
    await this.#o.store.deleteLoad(this.#o.instance).catch(() => undefined);
  }
}
