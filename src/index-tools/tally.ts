// Pure: counts of what verify/rebuild saw and a few decoded samples of each kind of finding.
import type { IndexEntry } from '../keys/index.ts';
import type { Dangling, Missing } from './compare.ts';

export interface FindingSample {
  readonly tag: string;
  readonly value: string;
  readonly id: string;
  readonly ts: number;
  /** ISO-8601 UTC of ts */
  readonly iso: string;
  readonly reason: string;
  /** The metrics involved (extra in the index, or lacking from it). */
  readonly metrics: readonly string[];
  /** The index rowkey, hex. */
  readonly key: string;
  /** tag_mismatch: the data row's value of the tag (null = absent). */
  readonly dataValue?: string | null;
}

export interface MalformedSample {
  readonly table: string;
  readonly key: string;
  readonly message: string;
}

export interface Counts {
  dataRowsChecked: number;
  indexRowsChecked: number;
  dangling: number;
  missing: number;
  malformed: number;
}

export interface Samples {
  readonly dangling: FindingSample[];
  readonly missing: FindingSample[];
  readonly malformed: MalformedSample[];
}

export function isoOf(ts: number): string {
  const d = new Date(ts);
  return Number.isNaN(d.getTime()) ? String(ts) : d.toISOString();
}

function sample(key: Buffer, entry: IndexEntry, reason: string, metrics: readonly string[]): FindingSample {
  return {
    tag: entry.indexName,
    value: entry.value,
    id: entry.id,
    ts: entry.ts,
    iso: isoOf(entry.ts),
    reason,
    metrics: [...metrics],
    key: key.toString('hex'),
  };
}

export function danglingSample(d: Dangling): FindingSample {
  const s = sample(d.key, d.entry, d.reason, d.extraMetrics);
  return d.reason === 'tag_mismatch' ? { ...s, dataValue: d.dataValue ?? null } : s;
}

export function missingSample(m: Missing): FindingSample {
  return sample(m.key, m.entry, m.reason, m.metrics);
}

/** Counters plus the first `max` samples of each kind. */
export class Tally {
  readonly counts: Counts = { dataRowsChecked: 0, indexRowsChecked: 0, dangling: 0, missing: 0, malformed: 0 };
  readonly samples: Samples = { dangling: [], missing: [], malformed: [] };
  readonly #max: number;

  constructor(maxSamples: number) {
    this.#max = maxSamples;
  }

  dangling(list: readonly Dangling[]): void {
    this.counts.dangling += list.length;
    for (const d of list) if (this.samples.dangling.length < this.#max) this.samples.dangling.push(danglingSample(d));
  }

  missing(list: readonly Missing[]): void {
    this.counts.missing += list.length;
    for (const m of list) if (this.samples.missing.length < this.#max) this.samples.missing.push(missingSample(m));
  }

  malformed(list: readonly MalformedSample[]): void {
    this.counts.malformed += list.length;
    for (const m of list) if (this.samples.malformed.length < this.#max) this.samples.malformed.push(m);
  }
}
