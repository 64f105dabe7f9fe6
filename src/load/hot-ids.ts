/**
 * Hot ids of the data table: a windowed heavy-hitters sketch (heavy-hitters.ts) fed with the ids of
 * acknowledged data rows. It feeds the spread promoter's decisions (src/spread/) and the table of the
 * /ui page; src/metrics/hot-id-metrics.ts exports its snapshot as bounded top-K gauges. One instance
 * per service (created at the composition root, never global).
 */
import { idPrefixAt, kAt, type Keyspace, type SpreadEpoch } from '../keys/index.ts';
import { WindowedHeavyHitters } from './heavy-hitters.ts';
import { encodedRegionName } from '../hbase/region-name.ts';
import type { RegionInfo } from './region-source.ts';

export interface HotIdsOptions {
  /** The data table (for the region lookup). */
  readonly table: string;
  /** The key layout and the spread registry's view (bucket, K). */
  readonly keyspace: Keyspace;
  /** Where an id's rows live (RegionMap implements it); without it, region is left empty. */
  readonly regions?: { locate(table: string, rowKey: Buffer): RegionInfo | undefined };
  /** Ids exported as gauge series and shown on the page (K), default 10. */
  readonly top?: number;
  /** Sketch counters per time slot, default 64 (error ≤ window events / 64). */
  readonly capacity?: number;
  /** Window length, default 60 000 ms in 12 slots. */
  readonly windowMs?: number;
  readonly slots?: number;
  /** Milliseconds clock of the sketch, default `performance.now`. */
  readonly now?: () => number;
  /** Wall clock (epoch ms) for the K in effect, default `Date.now`. */
  readonly wallClock?: () => number;
}

export interface HotId {
  readonly id: string;
  /** Estimated events in the window (upper estimate). */
  readonly events: number;
  /** The true count is in [events − error, events]. */
  readonly error: number;
  /** events / window total, 0…1. */
  readonly share: number;
  /** The id's base salt bucket (its plain key's bucket). */
  readonly bucket: number;
  /** Salt buckets its events spread over now (1: the plain key; docs/HOT-IDS.md). */
  readonly k: number;
  /** Its newest spread epoch (K from `since` on; maybe still to come), or null. */
  readonly epoch: SpreadEpoch | null;
  /** Encoded name of the region holding the id's base bucket ('' when unknown). */
  readonly region: string;
  readonly server: string;
}

export interface HotIdsSnapshot {
  readonly windowMs: number;
  /** Exact events counted in the window. */
  readonly total: number;
  /** Sketch counters per slot (K of the error bound). */
  readonly capacity: number;
  /** Every `error` is ≤ this (total / capacity). */
  readonly errorBound: number;
  readonly ids: readonly HotId[];
  /** Data keys that could not be decoded since start (not counted). */
  readonly undecodable: number;
}

export class HotIds {
  readonly #o: HotIdsOptions;
  readonly #sketch: WindowedHeavyHitters;
  /** writes whose event time is within the window of now: what automatic spreading decides on */
  readonly #live: WindowedHeavyHitters;
  readonly #now: () => number;
  readonly #top: number;
  readonly #wall: () => number;
  #undecodable = 0;

  constructor(options: HotIdsOptions) {
    const top = options.top ?? 10;
    const capacity = options.capacity ?? 64;
    if (!Number.isInteger(top) || top < 1 || top > capacity) throw new RangeError(`top must be an integer in 1…capacity (${capacity}), got ${top}`);
    this.#o = options;
    this.#top = top;
    this.#now = options.now ?? (() => performance.now());
    this.#wall = options.wallClock ?? Date.now;
    const sketch = (): WindowedHeavyHitters =>
      new WindowedHeavyHitters({
        capacity,
        ...(options.windowMs === undefined ? {} : { windowMs: options.windowMs }),
        ...(options.slots === undefined ? {} : { slots: options.slots }),
      });
    this.#sketch = sketch();
    this.#live = sketch();
  }

  /** The window the ids are counted over (ms). */
  get windowMs(): number {
    return this.#sketch.windowMs;
  }

  /** Sketch counters per time slot (K of the error bound). */
  get capacity(): number {
    return this.#sketch.capacity;
  }

  /** How many ids a snapshot lists. */
  get top(): number {
    return this.#top;
  }

  /** The data table whose keys `recordDataKeys` takes (the write observer feeds only this table). */
  get table(): string {
    return this.#o.table;
  }

  /**
   * Counts one event per id (e.g. the ids of the written events of a chunk). With the events' ts, the
   * live ones (event time within the window of now) are also counted for automatic spreading.
   */
  recordIds(ids: readonly string[], ts?: readonly number[]): void {
    if (ids.length === 0) return;
    const perId = new Map<string, number>();
    const live = new Map<string, number>();
    const oldest = this.#wall() - this.#sketch.windowMs;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i] as string;
      perId.set(id, (perId.get(id) ?? 0) + 1);
      const t = ts?.[i];
      if (t !== undefined && t >= oldest) live.set(id, (live.get(id) ?? 0) + 1);
    }
    const now = this.#now();
    this.#sketch.addAll(now, perId);
    if (live.size > 0) this.#live.addAll(now, live);
  }

  /** Counts acknowledged data rows by the id decoded from each key (undecodable keys are only counted). */
  recordDataKeys(keys: readonly Buffer[]): void {
    const ids: string[] = [];
    const ts: number[] = [];
    for (const key of keys) {
      try {
        const d = this.#o.keyspace.decodeDataKey(key);
        ids.push(d.id);
        ts.push(d.ts);
      } catch {
        this.#undecodable += 1;
      }
    }
    this.recordIds(ids, ts);
  }

  /**
   * The window's live writes (event time within the window of now) and their `limit` largest ids with
   * guaranteed counts (sketch count − error): what this instance reports to the others for automatic
   * spreading (src/spread/promoter.ts). A backlog being caught up is not counted: spreading only
   * changes events from now on, and a catch-up reads partitions unevenly, so its shares would lie.
   */
  load(limit: number): { readonly windowMs: number; readonly total: number; readonly top: [string, number][] } {
    const { hitters, total } = this.#live.top(this.#now(), limit);
    return { windowMs: this.#sketch.windowMs, total, top: hitters.map((h): [string, number] => [h.id, h.count - h.error]).filter(([, n]) => n > 0) };
  }

  /** The current top K with bucket and region of each id. */
  snapshot(): HotIdsSnapshot {
    const { hitters, total, errorBound } = this.#sketch.top(this.#now(), this.#top);
    const { keyspace } = this.#o;
    const wall = this.#wall();
    const ids = hitters.map((h): HotId => {
      const bucket = keyspace.baseSalt(h.id);
      const entry = keyspace.entryOf(h.id);
      const region = this.#o.regions?.locate(this.#o.table, idPrefixAt(h.id, bucket, keyspace.format));
      return {
        id: h.id,
        events: h.count,
        error: h.error,
        share: total > 0 ? h.count / total : 0,
        bucket,
        k: kAt(entry, wall),
        epoch: entry?.epochs.at(-1) ?? null,
        region: region === undefined ? '' : encodedRegionName(region.name),
        server: region?.server ?? '',
      };
    });
    return { windowMs: this.#sketch.windowMs, total, capacity: this.#sketch.capacity, errorBound, ids, undecodable: this.#undecodable };
  }
}
