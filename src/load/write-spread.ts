/**
 * Region write spread: per-region and per-salt-bucket write counters plus a skew gauge
 * `max / mean` rows per region over a sliding window.
 *
 * - The mean is taken over ALL regions of the table in the current region map, including regions with
 *   no writes in the window: all writes in one region of N gives N, a perfectly even spread gives 1.0.
 * - No writes in the window (or no region map yet) gives 0: "nothing to judge", and it lets the
 *   gauge decay to 0 when ingest stops instead of freezing the last value.
 * - Rows outside the known regions are counted under region/server `unknown` and left out of the skew.
 * - The skew and region-count gauges are recomputed on every `record` and at scrape time.
 *
 * `tsingest_rows_written_total` is NOT incremented here (the writer owns it), so nothing is counted twice.
 */
import type { Metrics } from '../metrics/registry.ts';
import { encodedRegionName } from '../hbase/region-name.ts';
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

/** What WriteSpread needs from the region map (RegionMap implements it). */
export interface RegionLookup {
  locate(table: string, rowKey: Buffer): RegionInfo | undefined;
  regions(table: string): readonly RegionInfo[] | undefined;
  onChange(listener: RegionChangeListener): () => void;
  markStale(table: string): void;
}

export type SpreadMetrics = Pick<Metrics, 'regionWrites' | 'saltBucketWrites' | 'regionWriteSkew' | 'regionCount' | 'onScrape'>;

export interface WriteSpreadOptions {
  readonly metrics: SpreadMetrics;
  readonly regionMap: RegionLookup;
  /** Monotonic milliseconds; default `performance.now`. */
  readonly now?: () => number;
  /** Sliding window length, default 60 000 ms. */
  readonly windowMs?: number;
  /** Ring slots in the window, default 12 (5 s each with the default window). */
  readonly slots?: number;
}

export type BucketOf = (key: Buffer) => number | undefined;

export class WriteSpread {
  readonly #metrics: SpreadMetrics;
  readonly #map: RegionLookup;
  readonly #now: () => number;
  readonly #windowOptions: { windowMs?: number; slots?: number };
  readonly #windows = new Map<string, SlidingWindow>();
  readonly #unsubscribe: (() => void)[];

  constructor(options: WriteSpreadOptions) {
    this.#metrics = options.metrics;
    this.#map = options.regionMap;
    this.#now = options.now ?? (() => performance.now());
    this.#windowOptions = {
      ...(options.windowMs === undefined ? {} : { windowMs: options.windowMs }),
      ...(options.slots === undefined ? {} : { slots: options.slots }),
    };
    new SlidingWindow(this.#windowOptions); // validate the window options eagerly
    this.#unsubscribe = [
      this.#map.onChange((change) => {
        this.#onRegionChange(change);
      }),
      this.#metrics.onScrape(() => {
        this.updateGauges();
      }),
    ];
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
      if (region === undefined) {
        this.#metrics.regionWrites.inc({ table, region: UNKNOWN_REGION, server: UNKNOWN_REGION }, n);
        this.#map.markStale(table);
      } else {
        this.#metrics.regionWrites.inc(regionLabels(table, region), n);
        window.add(now, region.name, n);
      }
    }
    for (const [bucket, n] of perBucket) this.#metrics.saltBucketWrites.inc({ table, bucket: String(bucket) }, n);
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

  /** Detaches from the region map and the scrape hook. */
  close(): void {
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
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
    this.#metrics.regionWriteSkew.set({ table }, this.#skewAt(table, now));
    this.#metrics.regionCount.set({ table }, this.#map.regions(table)?.length ?? 0);
  }

  #onRegionChange(change: RegionChange): void {
    const { table } = change;
    const window = this.#windowOf(table);
    for (const region of change.vanished) {
      this.#metrics.regionWrites.remove(regionLabels(table, region));
      window.delete(region.name);
    }
    for (const { before } of change.moved) this.#metrics.regionWrites.remove(regionLabels(table, before));
    this.#updateTable(table, this.#now());
  }
}

function regionLabels(table: string, region: RegionInfo): { table: string; region: string; server: string } {
  return { table, region: encodedRegionName(region.name), server: region.server };
}
