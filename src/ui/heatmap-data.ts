/**
 * Region × time heatmap data for the /ui page, sampled from the service's per-region write counters
 * into a bounded ring.
 * Design notes: docs/DECISIONS.md#region-heatmap
 */
import type { Counter } from 'prom-client';
import { encodedRegionName } from '../hbase/region-name.ts';
import { UNKNOWN_REGION } from '../load/region-map.ts';
import type { RegionInfo } from '../load/region-source.ts';

/** What the sampler reads: the data table's regions and its cumulative rows per region. */
export interface RegionCounterSource {
  /** The table's regions sorted by start key; undefined before the region map first loaded. */
  regions(): readonly RegionInfo[] | undefined;
  /** Cumulative rows written per region since start, keyed by encoded region name. */
  cumulative(): Promise<ReadonlyMap<string, number>>;
}

/** The source over the service's metrics and region map (RegionMap implements `regions`). */
export function regionCountersFromMetrics(
  counter: Pick<Counter<'table' | 'region' | 'server'>, 'get'>,
  regionMap: { regions(table: string): readonly RegionInfo[] | undefined },
  table: string,
): RegionCounterSource {
  return {
    regions: () => regionMap.regions(table),
    async cumulative() {
      const totals = new Map<string, number>();
      for (const v of (await counter.get()).values) {
        if (v.labels.table !== table) continue;
        const region = String(v.labels.region ?? '');
        totals.set(region, (totals.get(region) ?? 0) + v.value);
      }
      return totals;
    },
  };
}

/**
 * A key as the HBase shell prints it: printable ASCII as is, other bytes (and the backslash) as
 * `\xNN`. Salt-split data tables start their regions at `\x01`, `\x02`, … (binary keys) or `01`,
 * `02`, … (printable keys).
 */
export function displayKey(key: Buffer): string {
  let out = '';
  for (const byte of key) {
    out += byte >= 0x20 && byte < 0x7f && byte !== 0x5c ? String.fromCharCode(byte) : `\\x${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

export interface HeatmapRow {
  /** Encoded region name (the `region` label of the counters). */
  readonly region: string;
  /** Start / end key in shell notation ('' = table start / end). */
  readonly start: string;
  readonly end: string;
  readonly server: string;
  /**
   * live: in the current region map; gone: vanished (split, merged) but still has samples in the
   * ring; unknown: rows written outside the known regions (region map not loaded or stale).
   */
  readonly state: 'live' | 'gone' | 'unknown';
  /** Rows written per sample, aligned with `HeatmapSnapshot.times`. */
  readonly writes: readonly number[];
  readonly total: number;
}

export interface HeatmapSnapshot {
  /** Sampling period (ms). */
  readonly sampleMs: number;
  readonly maxSamples: number;
  /** Wall-clock end (epoch ms) of each sample, oldest first. */
  readonly times: readonly number[];
  /** One row per region, in start-key order; gone regions after the live ones. */
  readonly rows: readonly HeatmapRow[];
}

interface Sample {
  readonly t: number;
  readonly writes: ReadonlyMap<string, number>;
}

export const DEFAULT_MAX_SAMPLES = 120;
export const DEFAULT_SAMPLE_MS = 5000;

export class RegionHeatmap {
  readonly maxSamples: number;
  readonly sampleMs: number;
  readonly #samples: Sample[] = [];
  #previous = new Map<string, number>();
  #known = new Map<string, RegionInfo>();

  constructor(options: { readonly maxSamples?: number; readonly sampleMs?: number } = {}) {
    const maxSamples = options.maxSamples ?? DEFAULT_MAX_SAMPLES;
    const sampleMs = options.sampleMs ?? DEFAULT_SAMPLE_MS;
    if (!Number.isInteger(maxSamples) || maxSamples < 1 || maxSamples > 10_000)
      throw new RangeError(`maxSamples must be an integer in 1…10000, got ${maxSamples}`);
    if (!Number.isFinite(sampleMs) || sampleMs <= 0) throw new RangeError(`sampleMs must be a positive number, got ${sampleMs}`);
    this.maxSamples = maxSamples;
    this.sampleMs = sampleMs;
  }

  /**
   * Records one sample at wall-clock `t` from the cumulative counts; the first sample counts
   * everything since start. `regions` (the current map) is remembered to label rows of regions that
   * vanish later.
   */
  push(t: number, cumulative: ReadonlyMap<string, number>, regions: readonly RegionInfo[] = []): void {
    const writes = new Map<string, number>();
    for (const [region, total] of cumulative) {
      const before = this.#previous.get(region) ?? 0;
      const delta = total >= before ? total - before : total;
      if (delta > 0) writes.set(region, delta);
    }
    this.#previous = new Map(cumulative);
    this.#samples.push({ t, writes });
    if (this.#samples.length > this.maxSamples) this.#samples.shift();
    for (const r of regions) this.#known.set(encodedRegionName(r.name), r);
    // Forget regions that are neither current nor in any kept sample (bounded by the ring).
    const keep = new Set(regions.map((r) => encodedRegionName(r.name)));
    for (const s of this.#samples) for (const region of s.writes.keys()) keep.add(region);
    for (const region of this.#known.keys()) if (!keep.has(region)) this.#known.delete(region);
  }

  /** Rows for the current regions (even idle ones) plus vanished regions that still have samples. */
  snapshot(regions: readonly RegionInfo[] = []): HeatmapSnapshot {
    const times = this.#samples.map((s) => s.t);
    const rowOf = (region: string, info: RegionInfo | undefined, state: HeatmapRow['state']): HeatmapRow => {
      const writes = this.#samples.map((s) => s.writes.get(region) ?? 0);
      return {
        region,
        start: info === undefined ? '' : displayKey(info.startKey),
        end: info === undefined ? '' : displayKey(info.endKey),
        server: info?.server ?? '',
        state,
        writes,
        total: writes.reduce((a, b) => a + b, 0),
      };
    };
    const live = regions.map((r) => rowOf(encodedRegionName(r.name), r, 'live'));
    const liveNames = new Set(live.map((r) => r.region));
    const gone = new Set<string>();
    for (const s of this.#samples) for (const region of s.writes.keys()) if (!liveNames.has(region)) gone.add(region);
    const goneRows = [...gone].sort().map((region) => rowOf(region, this.#known.get(region), region === UNKNOWN_REGION ? 'unknown' : 'gone'));
    return { sampleMs: this.sampleMs, maxSamples: this.maxSamples, times, rows: [...live, ...goneRows] };
  }
}

export interface HeatmapSamplerOptions {
  readonly source: RegionCounterSource;
  readonly maxSamples?: number;
  /** Sampling period, default 5000 ms. */
  readonly sampleMs?: number;
  /** Wall clock for the sample times, default Date.now. */
  readonly clock?: () => number;
  /** Told about a failed sample (the next one tries again). */
  readonly onError?: (err: unknown) => void;
}

/** Samples the source every `sampleMs` (unref'd timer) into a RegionHeatmap. */
export class HeatmapSampler {
  readonly #source: RegionCounterSource;
  readonly #heatmap: RegionHeatmap;
  readonly #clock: () => number;
  readonly #onError: (err: unknown) => void;
  #timer: NodeJS.Timeout | undefined;
  #sampling: Promise<void> | undefined;

  constructor(options: HeatmapSamplerOptions) {
    this.#source = options.source;
    this.#heatmap = new RegionHeatmap({
      ...(options.maxSamples === undefined ? {} : { maxSamples: options.maxSamples }),
      ...(options.sampleMs === undefined ? {} : { sampleMs: options.sampleMs }),
    });
    this.#clock = options.clock ?? Date.now;
    this.#onError = options.onError ?? (() => undefined);
  }

  /** Takes one sample now (concurrent calls share one). */
  sample(): Promise<void> {
    this.#sampling ??= (async () => {
      try {
        const cumulative = await this.#source.cumulative();
        this.#heatmap.push(this.#clock(), cumulative, this.#source.regions() ?? []);
      } finally {
        this.#sampling = undefined;
      }
    })();
    return this.#sampling;
  }

  /** Samples every `sampleMs` until `stop()`; idempotent. */
  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => {
      this.sample().catch(this.#onError);
    }, this.#heatmap.sampleMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  snapshot(): HeatmapSnapshot {
    return this.#heatmap.snapshot(this.#source.regions() ?? []);
  }
}
