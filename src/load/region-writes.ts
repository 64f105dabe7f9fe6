/**
 * Region writes: rows per region and per salt bucket, and the skew max / mean rows per region over a
 * sliding window, told to a `RegionWritesObserver`.
 * Design notes: docs/DECISIONS.md#region-writes-and-skew
 */
import { UNKNOWN_REGION } from './region-map.ts';
import type { RegionChange, RegionChangeListener } from './region-map.ts';
import type { RegionInfo } from './region-source.ts';
import { SlidingWindow } from './sliding-window.ts';

/** max / mean of `counts` (one entry per region, zeros included); 0 when empty or all zero. */
export function computeSkew(counts: readonly number[]): number {
  if (counts.length === 0) return 0;
  let sum = 0;
  let max = 0;
  for (const c of counts) {
    sum += c;
    if (c > max) max = c;
  }
  if (sum <= 0) return 0;
  return max / (sum / counts.length);
}

/** What RegionWrites needs from the region map (RegionMap implements it). */
export interface RegionLookup {
  locate(table: string, rowKey: Buffer): RegionInfo | undefined;
  regions(table: string): readonly RegionInfo[] | undefined;
  onChange(listener: RegionChangeListener): () => void;
  markStale(table: string): void;
}

/** What the region writes tell (src/metrics/region-writes-metrics.ts implements it). */
export interface RegionWritesObserver {
  /** `n` rows of `table` written to `region` (undefined: outside the known regions). */
  regionWritten(table: string, region: RegionInfo | undefined, n: number): void;
  bucketWritten(table: string, bucket: number, n: number): void;
  /** The region vanished, or (with `moved`) it is now served elsewhere: its old series go. */
  regionGone(table: string, region: RegionInfo): void;
  /** The table's skew over the window ending now, and its regions in the map. */
  measured(table: string, skew: number, regions: number): void;
}

export interface RegionWritesOptions {
  readonly observer: RegionWritesObserver;
  readonly regionMap: RegionLookup;
  /** Monotonic milliseconds; default `performance.now`. */
  readonly now?: () => number;
  /** Sliding window length, default 60 000 ms. */
  readonly windowMs?: number;
  /** Ring slots in the window, default 12 (5 s each with the default window). */
  readonly slots?: number;
}

export type BucketOf = (key: Buffer) => number | undefined;

export class RegionWrites {
  readonly #observer: RegionWritesObserver;
  readonly #map: RegionLookup;
  readonly #now: () => number;
  readonly #windowOptions: { windowMs?: number; slots?: number };
  readonly #windows = new Map<string, SlidingWindow>();
  readonly #unsubscribe: () => void;

  constructor(options: RegionWritesOptions) {
    this.#observer = options.observer;
    this.#map = options.regionMap;
    this.#now = options.now ?? (() => performance.now());
    this.#windowOptions = {
      ...(options.windowMs === undefined ? {} : { windowMs: options.windowMs }),
      ...(options.slots === undefined ? {} : { slots: options.slots }),
    };
    new SlidingWindow(this.#windowOptions); // validate the window options eagerly
    this.#unsubscribe = this.#map.onChange((change) => {
      this.#onRegionChange(change);
    });
  }

  /** Counts one acknowledged batch of rows of `table`. `bucketOf` → undefined: no bucket counted. */
  record(table: string, rowKeys: readonly Buffer[], bucketOf: BucketOf): void {
    if (rowKeys.length === 0) return;
    const perRegion = new Map<string, { region: RegionInfo | undefined; n: number }>();
    const perBucket = new Map<number, number>();
    for (const key of rowKeys) {
      const region = this.#map.locate(table, key);
      const id = region?.name ?? UNKNOWN_REGION;
      const entry = perRegion.get(id);
      if (entry === undefined) perRegion.set(id, { region, n: 1 });
      else entry.n += 1;
      const bucket = bucketOf(key);
      if (bucket !== undefined) perBucket.set(bucket, (perBucket.get(bucket) ?? 0) + 1);
    }

    const now = this.#now();
    const window = this.#windowOf(table);
    for (const { region, n } of perRegion.values()) {
      this.#observer.regionWritten(table, region, n);
      if (region === undefined) this.#map.markStale(table);
      else window.add(now, region.name, n);
    }
    for (const [bucket, n] of perBucket) this.#observer.bucketWritten(table, bucket, n);
    this.#updateTable(table, now);
  }

  /** Current skew of `table` over the window ending now (same value the gauge gets). */
  skew(table: string): number {
    return this.#skewAt(table, this.#now());
  }

  /** Recomputes skew and region count of every table seen (also run at scrape time). */
  updateGauges(): void {
    const now = this.#now();
    for (const table of this.#windows.keys()) this.#updateTable(table, now);
  }

  /** Detaches from the region map. */
  close(): void {
    this.#unsubscribe();
  }

  #windowOf(table: string): SlidingWindow {
    let window = this.#windows.get(table);
    if (window === undefined) {
      window = new SlidingWindow(this.#windowOptions);
      this.#windows.set(table, window);
    }
    return window;
  }

  #skewAt(table: string, now: number): number {
    const regions = this.#map.regions(table) ?? [];
    const totals = this.#windows.get(table)?.totals(now);
    if (totals === undefined) return 0;
    return computeSkew(regions.map((r) => totals.get(r.name) ?? 0));
  }

  #updateTable(table: string, now: number): void {
    this.#observer.measured(table, this.#skewAt(table, now), this.#map.regions(table)?.length ?? 0);
  }

  #onRegionChange(change: RegionChange): void {
    const { table } = change;
    const window = this.#windowOf(table);
    for (const region of change.vanished) {
      this.#observer.regionGone(table, region);
      window.delete(region.name);
    }
    for (const { before } of change.moved) this.#observer.regionGone(table, before);
    this.#updateTable(table, this.#now());
  }
}
