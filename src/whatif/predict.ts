// Pure: the write spread and read fan-out a key layout would give a sample of events, computed with
// the service's own Keyspace (docs/WHATIF.md).
// Design notes: docs/DECISIONS.md#predicting-a-layout
import { Keyspace, fixedLookup, planIdPrefixSplits, type SpreadEntry } from '../keys/index.ts';
import type { TsEvent } from '../events/index.ts';
import { computeSkew } from '../load/region-writes.ts';
import { locateIn } from '../load/region-map.ts';
import type { RegionInfo } from '../load/region-source.ts';
import { promotionsFor, type PromotionPolicy } from '../spread/load.ts';
import { candidateName, type Candidate } from './layouts.ts';

export type SampleEvent = Pick<TsEvent, 'id' | 'ts' | 'tags'>;

export interface TablePrediction {
  readonly regions: number;
  readonly rows: number;
  /** rows per region, in key order */
  readonly perRegion: readonly number[];
  /** max / mean rows per region (every region counts, idle ones too) */
  readonly skew: number;
  readonly idleRegions: number;
  /** the region with the most rows, its share of all rows and the ids that wrote most into it */
  readonly hottest: { readonly region: number; readonly share: number; readonly topIds: readonly (readonly [string, number])[] };
  readonly avgKeyBytes: number;
}

export interface Prediction {
  readonly name: string;
  readonly candidate: Candidate;
  readonly data: TablePrediction;
  /** null when no indexed tag occurs in the sample */
  readonly index: TablePrediction | null;
  /** ids the layout spreads, with their share of the sample and K */
  readonly spreadIds: readonly { readonly id: string; readonly share: number; readonly k: number }[];
  /** scans per read of one id (latest or a time range): the mean over ids weighted by their writes, and the most */
  readonly idReadScans: { readonly mean: number; readonly max: number };
  /** scans per read of one tag value */
  readonly tagReadScans: number;
}

/** The promotion policy without B and maxK, which follow the candidate. */
export type SpreadPolicy = Pick<PromotionPolicy, 'minShare' | 'kFactor'> & { readonly maxK: number | null };

export interface PredictOptions {
  readonly indexTags: readonly string[];
  readonly policy: SpreadPolicy;
  /** ids listed per hottest region */
  readonly topIds?: number;
}

/** Regions from split points: [−∞, s1), [s1, s2), …, [sN, +∞). */
export function regionsFromSplits(splits: readonly Buffer[]): RegionInfo[] {
  const starts = [Buffer.alloc(0), ...splits];
  return starts.map((startKey, i) => ({ name: `r${i}`, startKey, endKey: splits[i] ?? Buffer.alloc(0), server: '' }));
}

class TableTally {
  readonly #regions: readonly RegionInfo[];
  readonly #index = new Map<string, number>();
  readonly counts: number[];
  readonly #ids: Map<string, number>[];
  rows = 0;
  keyBytes = 0;

  constructor(regions: readonly RegionInfo[]) {
    this.#regions = regions;
    regions.forEach((r, i) => this.#index.set(r.name, i));
    this.counts = regions.map(() => 0);
    this.#ids = regions.map(() => new Map<string, number>());
  }

  add(key: Buffer, id: string): void {
    const region = locateIn(this.#regions, key);
    const i = region === undefined ? -1 : (this.#index.get(region.name) ?? -1);
    if (i < 0) throw new Error(`key ${key.toString('hex')} is in no region`);
    this.counts[i] = (this.counts[i] ?? 0) + 1;
    const ids = this.#ids[i] as Map<string, number>;
    ids.set(id, (ids.get(id) ?? 0) + 1);
    this.rows++;
    this.keyBytes += key.length;
  }

  result(topIds: number): TablePrediction {
    let hot = 0;
    this.counts.forEach((n, i) => {
      if (n > (this.counts[hot] ?? 0)) hot = i;
    });
    const top = [...(this.#ids[hot] ?? new Map<string, number>())].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, topIds);
    return {
      regions: this.counts.length,
      rows: this.rows,
      perRegion: this.counts,
      skew: computeSkew(this.counts),
      idleRegions: this.counts.filter((n) => n === 0).length,
      hottest: { region: hot, share: this.rows === 0 ? 0 : (this.counts[hot] ?? 0) / this.rows, topIds: top },
      avgKeyBytes: this.rows === 0 ? 0 : this.keyBytes / this.rows,
    };
  }
}

function idCounts(sample: readonly SampleEvent[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const e of sample) counts.set(e.id, (counts.get(e.id) ?? 0) + 1);
  return counts;
}

/** The ids a live stream with the sample's shares would spread, and their K (promotionsFor, the service's rule). */
export function steadyPromotions(
  counts: ReadonlyMap<string, number>,
  total: number,
  buckets: number,
  policy: SpreadPolicy,
): { id: string; share: number; k: number }[] {
  const maxK = Math.min(policy.maxK ?? buckets, buckets);
  return promotionsFor({ total, counts, instances: 1 }, { ...policy, buckets, maxK, minEvents: 1 }, () => 1).map((p) => ({ id: p.id, share: p.share, k: p.k }));
}

interface Model {
  readonly keyspace: Keyspace;
  readonly dataRegions: RegionInfo[];
  readonly indexRegions: RegionInfo[];
  readonly spreadIds: { id: string; share: number; k: number }[];
}

function modelOf(c: Candidate, sample: readonly SampleEvent[], counts: ReadonlyMap<string, number>, o: PredictOptions): Model {
  if (c.kind === 'unsalted') {
    // B = 1: every key starts with salt byte 0x00, then the id (the tag name and value): split behind it.
    const behindSalt = (s: Buffer): Buffer => Buffer.concat([Buffer.from([0]), s]);
    const prefixes = new Set<string>();
    for (const e of sample) for (const t of o.indexTags) if (Object.hasOwn(e.tags, t)) prefixes.add(`${t}\u0000${e.tags[t] ?? ''}\u0000`);
    return {
      keyspace: new Keyspace({ buckets: 1, format: 'binary', indexSaltMode: 'entry' }),
      dataRegions: regionsFromSplits(planIdPrefixSplits([...counts.keys()], c.regions).map(behindSalt)),
      indexRegions: regionsFromSplits(planIdPrefixSplits([...prefixes], c.regions).map(behindSalt)),
      spreadIds: [],
    };
  }
  const spreadIds = c.spread ? steadyPromotions(counts, sample.length, c.buckets, o.policy) : [];
  const since = sample.reduce((m, e) => Math.min(m, e.ts), Number.MAX_SAFE_INTEGER);
  const entries: Record<string, SpreadEntry> = {};
  for (const p of spreadIds) entries[p.id] = { epochs: [{ since, k: p.k }], fence: null };
  const keyspace = new Keyspace({ buckets: c.buckets, format: c.format, indexSaltMode: c.indexSaltMode }, fixedLookup(entries));
  return { keyspace, dataRegions: regionsFromSplits(keyspace.splits('data')), indexRegions: regionsFromSplits(keyspace.splits('index')), spreadIds };
}

export function predict(c: Candidate, sample: readonly SampleEvent[], o: PredictOptions, counts: ReadonlyMap<string, number> = idCounts(sample)): Prediction {
  const m = modelOf(c, sample, counts, o);
  const data = new TableTally(m.dataRegions);
  const index = new TableTally(m.indexRegions);
  for (const e of sample) {
    const offset = m.keyspace.offsetOf(e.id, e.ts);
    data.add(m.keyspace.dataKey(e.id, e.ts, offset), e.id);
    for (const indexName of o.indexTags) {
      const value = e.tags[indexName];
      if (value !== undefined && Object.hasOwn(e.tags, indexName)) index.add(m.keyspace.indexKey({ indexName, value, ts: e.ts, id: e.id }, offset), e.id);
    }
  }
  let weighted = 0;
  let max = 0;
  for (const [id, n] of counts) {
    const scans = m.keyspace.dataRanges(id).length;
    weighted += scans * n;
    max = Math.max(max, scans);
  }
  const topIds = o.topIds ?? 3;
  return {
    name: candidateName(c),
    candidate: c,
    data: data.result(topIds),
    index: index.rows === 0 ? null : index.result(topIds),
    spreadIds: m.spreadIds,
    idReadScans: { mean: sample.length === 0 ? 0 : weighted / sample.length, max },
    tagReadScans: m.keyspace.indexRanges(o.indexTags[0] ?? 'tag', 'value').length,
  };
}

/** Every candidate over the same sample (the id counts are taken once). */
export function predictAll(candidates: readonly Candidate[], sample: readonly SampleEvent[], o: PredictOptions): Prediction[] {
  const counts = idCounts(sample);
  return candidates.map((c) => predict(c, sample, o, counts));
}
