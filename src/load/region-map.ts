/**
 * Each table's regions, sorted by start key, so a written row's region is found by binary search.
 * Loaded and refreshed through the injected `RegionSource` (periodically, and soon after write
 * errors via `markStale`); listeners learn which regions appeared, vanished or moved to another
 * server so the per-region metric series of gone regions can be removed.
 */
import type { Logger } from 'pino';
import type { RegionInfo, RegionSource } from './region-source.ts';

/** Region/server label used for rows that fall outside the known regions (e.g. map not loaded yet). */
export const UNKNOWN_REGION = 'unknown';

export const DEFAULT_STALE_DELAY_MS = 1000;

export interface RegionMove {
  readonly before: RegionInfo;
  readonly after: RegionInfo;
}

export interface RegionChange {
  readonly table: string;
  readonly appeared: readonly RegionInfo[];
  readonly vanished: readonly RegionInfo[];
  /** Same region name, different server (the series labelled with the old server is gone). */
  readonly moved: readonly RegionMove[];
}

export type RegionChangeListener = (change: RegionChange) => void;

/** Told of every load of a table's regions (src/metrics/ counts them). */
export interface RegionMapObserver {
  refreshed(table: string, outcome: 'ok' | 'error'): void;
}

export interface RegionMapOptions {
  readonly source: RegionSource;
  /** Tables refreshed by `refreshEvery` from the start; `refresh(t)` adds `t` as well. */
  readonly tables?: readonly string[];
  readonly log: Pick<Logger, 'warn' | 'error' | 'debug'>;
  readonly observer?: RegionMapObserver;
  /** Delay between `markStale(t)` and the refresh it triggers; repeated marks within it coalesce. */
  readonly staleDelayMs?: number;
}

/**
 * Index of the last region whose start key is ≤ `rowKey`, or -1. `regions` must be sorted by start
 * key; an empty start key sorts first (Buffer.compare of an empty buffer is ≤ anything).
 */
export function findRegionIndex(regions: readonly RegionInfo[], rowKey: Buffer): number {
  let lo = 0;
  let hi = regions.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const region = regions[mid];
    if (region === undefined) break;
    if (Buffer.compare(region.startKey, rowKey) <= 0) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

/** The region of `regions` (sorted by start key) holding `rowKey`, or undefined when none covers it. */
export function locateIn(regions: readonly RegionInfo[], rowKey: Buffer): RegionInfo | undefined {
  const region = regions[findRegionIndex(regions, rowKey)];
  if (region === undefined) return undefined;
  if (region.endKey.length > 0 && Buffer.compare(rowKey, region.endKey) >= 0) return undefined;
  return region;
}

/** What changed between two region lists of one table (identity = region name). */
export function diffRegions(table: string, before: readonly RegionInfo[], after: readonly RegionInfo[]): RegionChange {
  const old = new Map(before.map((r) => [r.name, r]));
  const next = new Map(after.map((r) => [r.name, r]));
  const appeared = after.filter((r) => !old.has(r.name));
  const vanished = before.filter((r) => !next.has(r.name));
  const moved: RegionMove[] = [];
  for (const r of after) {
    const prev = old.get(r.name);
    if (prev !== undefined && prev.server !== r.server) moved.push({ before: prev, after: r });
  }
  return { table, appeared, vanished, moved };
}

function isEmptyChange(change: RegionChange): boolean {
  return change.appeared.length === 0 && change.vanished.length === 0 && change.moved.length === 0;
}

export class RegionMap {
  readonly #source: RegionSource;
  readonly #observer: RegionMapObserver | undefined;
  readonly #log: Pick<Logger, 'warn' | 'error' | 'debug'>;
  readonly #staleDelayMs: number;
  readonly #regions = new Map<string, readonly RegionInfo[]>();
  readonly #tracked = new Set<string>();
  readonly #inflight = new Map<string, Promise<RegionChange>>();
  readonly #staleTimers = new Map<string, NodeJS.Timeout>();
  readonly #listeners = new Set<RegionChangeListener>();
  #interval: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(options: RegionMapOptions) {
    this.#source = options.source;
    this.#observer = options.observer;
    this.#log = options.log;
    this.#staleDelayMs = options.staleDelayMs ?? DEFAULT_STALE_DELAY_MS;
    for (const table of options.tables ?? []) this.#tracked.add(table);
  }

  /** Pure O(log n) lookup; undefined when the table is not loaded or no region covers the key. */
  locate(table: string, rowKey: Buffer): RegionInfo | undefined {
    const regions = this.#regions.get(table);
    return regions === undefined ? undefined : locateIn(regions, rowKey);
  }

  /** The table's regions sorted by start key, or undefined before the first successful load. */
  regions(table: string): readonly RegionInfo[] | undefined {
    return this.#regions.get(table);
  }

  /** Tables this map refreshes periodically. */
  tables(): readonly string[] {
    return [...this.#tracked];
  }

  /** Subscribes to region changes; returns the unsubscribe function. */
  onChange(listener: RegionChangeListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /**
   * Loads the table's regions now (concurrent calls for one table share one request). Rejects with
   * the source's error, leaving the previous map in place.
   */
  refresh(table: string): Promise<RegionChange> {
    this.#tracked.add(table);
    const current = this.#inflight.get(table);
    if (current !== undefined) return current;
    const loading = this.#load(table).finally(() => {
      this.#inflight.delete(table);
    });
    this.#inflight.set(table, loading);
    return loading;
  }

  /** Refreshes every tracked table each `ms` (unref'd timer; replaces a previous schedule). */
  refreshEvery(ms: number): void {
    if (!Number.isFinite(ms) || ms <= 0) throw new RangeError(`refresh interval must be > 0 ms, got ${ms}`);
    if (this.#interval !== undefined) clearInterval(this.#interval);
    this.#stopped = false;
    this.#interval = setInterval(() => {
      for (const table of this.#tracked) this.#refreshQuietly(table);
    }, ms);
    this.#interval.unref();
  }

  /** Schedules a refresh of `table` soon (after write errors); marks within the delay coalesce. */
  markStale(table: string): void {
    if (this.#stopped || this.#staleTimers.has(table)) return;
    this.#tracked.add(table);
    const timer = setTimeout(() => {
      this.#staleTimers.delete(table);
      const current = this.#inflight.get(table);
      // A load already under way may have started before the error: run a fresh one after it.
      if (current === undefined) this.#refreshQuietly(table);
      else
        current.then(
          () => {
            this.#refreshQuietly(table);
          },
          () => {
            this.#refreshQuietly(table);
          },
        );
    }, this.#staleDelayMs);
    timer.unref();
    this.#staleTimers.set(table, timer);
  }

  /** Stops the periodic and pending stale refreshes. Loads already under way still complete. */
  stop(): void {
    this.#stopped = true;
    if (this.#interval !== undefined) clearInterval(this.#interval);
    this.#interval = undefined;
    for (const timer of this.#staleTimers.values()) clearTimeout(timer);
    this.#staleTimers.clear();
  }

  #refreshQuietly(table: string): void {
    if (this.#stopped) return;
    this.refresh(table).catch((err: unknown) => {
      this.#log.warn({ err, table }, 'region map refresh failed; keeping the previous map');
    });
  }

  async #load(table: string): Promise<RegionChange> {
    let fetched: readonly RegionInfo[];
    try {
      fetched = await this.#source.regions(table);
    } catch (err) {
      this.#observer?.refreshed(table, 'error');
      throw err;
    }
    const sorted = Object.freeze([...fetched].sort((a, b) => Buffer.compare(a.startKey, b.startKey)));
    const change = diffRegions(table, this.#regions.get(table) ?? [], sorted);
    this.#regions.set(table, sorted);
    this.#observer?.refreshed(table, 'ok');
    if (!isEmptyChange(change)) {
      this.#log.debug(
        {
          table,
          regions: sorted.length,
          appeared: change.appeared.length,
          vanished: change.vanished.length,
          moved: change.moved.length,
        },
        'region map changed',
      );
      this.#emit(change);
    }
    return change;
  }

  #emit(change: RegionChange): void {
    for (const listener of this.#listeners) {
      try {
        listener(change);
      } catch (err) {
        this.#log.error({ err, table: change.table }, 'region change listener failed');
      }
    }
  }
}
