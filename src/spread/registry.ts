/**
 * The spread registry as each instance sees it: a snapshot refreshed every keys.spread.refreshMs that
 * the Keyspace looks ids up in, with fences raised and promotions appended through it.
 * Design notes: docs/DECISIONS.md#the-registry-as-an-instance-sees-it
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { maxK, withEpoch, withFence, type SpreadEntry, type SpreadEpoch, type SpreadLookup } from '../keys/index.ts';
import type { RegistryStore, StoredEntry } from './store.ts';
import { fenceFor, sinceFor, type SpreadTiming } from './timing.ts';

export type PromotionOrigin = 'auto' | 'manual';

/** What the registry tells the metrics (the service bridges it to Prometheus). */
export interface SpreadObserver {
  refreshed(ok: boolean, spreadIds: number): void;
  promoted(id: string, epoch: SpreadEpoch, origin: PromotionOrigin): void;
  fenced(id: string, fence: number): void;
}

export interface SpreadRegistryOptions {
  readonly store: RegistryStore;
  readonly timing: SpreadTiming;
  readonly buckets: number;
  /** most buckets one id may get (keys.spread.maxK, ≤ B) */
  readonly maxK: number;
  /** wall clock (epoch ms): since and fences */
  readonly now?: () => number;
  /** monotonic clock (ms): snapshot ages */
  readonly monotonic?: () => number;
  readonly observer?: SpreadObserver | undefined;
  /** told when a background refresh fails (the next one tries again) */
  readonly onRefreshError?: ((err: unknown) => void) | undefined;
}

/** a is at least as far along as b (entries only grow). */
function notBehind(a: SpreadEntry, b: SpreadEntry): boolean {
  return a.epochs.length > b.epochs.length || (a.epochs.length === b.epochs.length && (a.fence ?? -1) >= (b.fence ?? -1));
}

export class SpreadRegistry implements SpreadLookup {
  readonly #o: SpreadRegistryOptions;
  readonly #now: () => number;
  readonly #mono: () => number;
  #map = new Map<string, StoredEntry>();
  #readAt = Number.NEGATIVE_INFINITY;
  #refreshing: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(options: SpreadRegistryOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#mono = options.monotonic ?? (() => performance.now());
  }

  get timing(): SpreadTiming {
    return this.#o.timing;
  }

  entryOf(id: string): SpreadEntry | undefined {
    return this.#map.get(id)?.entry;
  }

  spreadIds(): string[] {
    return [...this.#map].filter(([, s]) => s.entry.epochs.length > 0).map(([id]) => id);
  }

  /** Every entry of the snapshot (list, metrics). */
  entries(): ReadonlyMap<string, SpreadEntry> {
    return new Map([...this.#map].map(([id, s]) => [id, s.entry]));
  }

  /** ms since the snapshot was read (from the start of its read); Infinity before the first. */
  get ageMs(): number {
    return this.#mono() - this.#readAt;
  }

  #merge(id: string, stored: StoredEntry | undefined): void {
    if (stored === undefined) return;
    const held = this.#map.get(id);
    if (held === undefined || notBehind(stored.entry, held.entry)) this.#map.set(id, stored);
  }

  /** Reads every entry (concurrent callers share one read). */
  refresh(): Promise<void> {
    this.#refreshing ??= (async () => {
      const started = this.#mono();
      try {
        const read = await this.#o.store.entries();
        const next = new Map(read);
        // What this instance changed while the read was under way may be newer than what it read.
        for (const [id, held] of this.#map) {
          const got = next.get(id);
          if (got === undefined || notBehind(held.entry, got.entry)) next.set(id, held);
        }
        this.#map = next;
        this.#readAt = started;
        this.#o.observer?.refreshed(true, this.spreadIds().length);
      } catch (err) {
        this.#o.observer?.refreshed(false, this.spreadIds().length);
        throw err;
      } finally {
        this.#refreshing = undefined;
      }
    })();
    return this.#refreshing;
  }

  /** Refreshes every refreshMs until stop(). */
  start(): void {
    const tick = (): void => {
      this.#timer = setTimeout(() => {
        this.refresh()
          .catch((err: unknown) => this.#o.onRefreshError?.(err))
          .finally(() => {
            if (!this.#stopped) tick();
          });
      }, this.#o.timing.refreshMs);
      this.#timer.unref();
    };
    this.#stopped = false;
    tick();
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
  }

  /** Resolves once the snapshot is younger than the validity (refreshing, and retrying, as needed). */
  async ready(signal?: AbortSignal): Promise<void> {
    let delay = 50;
    while (this.ageMs >= this.#o.timing.validityMs) {
      try {
        await this.refresh();
        continue;
      } catch (err) {
        this.#o.onRefreshError?.(err);
      }
      if (signal?.aborted === true) throw signal.reason instanceof Error ? signal.reason : new Error('aborted while waiting for the spread registry');
      await sleep(delay, undefined, signal === undefined ? {} : { signal }).catch(() => undefined);
      delay = Math.min(delay * 2, this.#o.timing.refreshMs);
    }
  }

  /**
   * A lookup holding every epoch that data with ts < toMs can be stored under: the snapshot, when its
   * read began late enough, else the snapshot after one refresh. An epoch the snapshot lacks was
   * promoted after its read began, at a time the promoter's clock showed as ≥ readAt − c, so it starts
   * at ≥ readAt + L − c (timing.ts): when that is ≥ toMs, no data before toMs is under it. A range
   * ending now is covered by any snapshot younger than L − c (55 s by default; it refreshes every 2 s),
   * so a read over many ids asks no registry row per id. A range further in the future than a fresh
   * snapshot covers gets the fresh snapshot: what a per-id read would see too.
   */
  async lookupFor(toMs: number): Promise<SpreadLookup> {
    const covers = (): boolean => toMs <= this.#now() - this.ageMs + this.#o.timing.leadMs - this.#o.timing.clockToleranceMs;
    if (!covers()) await this.refresh();
    return this;
  }

  /** The id's entry as the registry holds it now (one read); the snapshot takes it in. */
  async fetch(id: string): Promise<SpreadEntry | undefined> {
    const stored = await this.#o.store.entry(id);
    this.#merge(id, stored);
    return stored?.entry;
  }

  /** Events at or after this ts (writer's clock) need their id's fence first. */
  fenceHorizon(): number {
    return this.#now() + this.#o.timing.fenceAheadMs;
  }

  /** Raises each id's fence to cover its far-future ts (check-and-put; nothing written when already covered). */
  async raiseFences(need: ReadonlyMap<string, number>): Promise<void> {
    await Promise.all(
      [...need].map(async ([id, ts]) => {
        const fence = fenceFor(ts, this.#o.timing);
        const r = await this.#o.store.update(id, (cur) => ((cur?.fence ?? -1) >= ts ? undefined : withFence(cur, fence)), this.#map.get(id) ?? null);
        this.#merge(id, r.stored);
        if (r.changed) this.#o.observer?.fenced(id, fence);
      }),
    );
  }

  /**
   * Spreads the id over k buckets from since = now + leadMs on (after its last epoch and its fence):
   * the new epoch, or null when the id already has k or more buckets (K never shrinks).
   */
  async promote(id: string, k: number, origin: PromotionOrigin): Promise<SpreadEpoch | null> {
    const cap = Math.min(this.#o.maxK, this.#o.buckets);
    if (!Number.isInteger(k) || k < 2 || k > cap) throw new RangeError(`K must be an integer in 2 … ${cap} (keys.spread.maxK, B), got ${String(k)}`);
    let epoch: SpreadEpoch | null = null;
    const r = await this.#o.store.update(
      id,
      (cur) => {
        epoch = null;
        if (maxK(cur) >= k) return undefined;
        epoch = { since: sinceFor(this.#now(), this.#o.timing, cur?.epochs.at(-1)?.since, cur?.fence ?? null), k };
        return withEpoch(cur, epoch, this.#o.buckets);
      },
      this.#map.get(id) ?? null,
    );
    this.#merge(id, r.stored);
    const made = r.changed ? (epoch as SpreadEpoch | null) : null;
    if (made !== null) this.#o.observer?.promoted(id, made, origin);
    return made;
  }
}
