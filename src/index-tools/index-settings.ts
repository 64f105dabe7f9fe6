// Pure: what `tsingest index verify|rebuild` work on — tables, families, key layout, the tags checked
// and the event-time window — and the key arithmetic over it (scan units per salt bucket, data keys
// of index entries, position of a key inside its unit for progress).
import { InputError } from '../errors.ts';
import type { Keyspace, ScanRange, Tables } from '../keys/index.ts';
import { prefixRange } from '../keys/key-bytes.ts';
import type { Config } from '../runtime/config.ts';

/** Half-open event-time window [from, to) in epoch ms (cell timestamps are event timestamps). */
export interface TimeWindow {
  readonly from: number;
  readonly to: number;
}

export interface IndexToolSettings {
  readonly dataTable: string;
  readonly dataFamily: string;
  readonly indexTable: string;
  readonly indexFamily: string;
  /** the key layout (B, data key format, index salt mode) and the spread registry's view */
  readonly keyspace: Keyspace;
  /** Tags verified / rebuilt (a subset of index.tags). */
  readonly tags: readonly string[];
  /** null = all of time (no timeRange on the scans). */
  readonly window: TimeWindow | null;
}

export interface SettingsInput {
  /** Only this tag (it must be one of index.tags). */
  readonly tag?: string | undefined;
  readonly from?: number | undefined;
  readonly to?: number | undefined;
}

/** Throws an InputError naming the flag or config key at fault. */
export function settingsOf(cfg: Config, keyspace: Keyspace, tables: Tables, input: SettingsInput = {}): IndexToolSettings {
  const configured = cfg.index.tags;
  let tags: readonly string[] = configured;
  if (input.tag !== undefined) {
    if (!configured.includes(input.tag)) {
      throw new InputError(
        `--tag ${input.tag} is not one of index.tags (${JSON.stringify(configured)}); add it to index.tags first, so ingest keeps it indexed`,
        { field: '--tag' },
      );
    }
    tags = [input.tag];
  }
  if (tags.length === 0) throw new InputError('index.tags is empty: there is no index to verify or rebuild', { field: 'index.tags' });
  return {
    dataTable: tables.data.name,
    dataFamily: tables.data.family,
    indexTable: tables.index.name,
    indexFamily: tables.index.family,
    keyspace,
    tags,
    window: windowOf(input.from, input.to),
  };
}

/** [from, to) from optional bounds; null when neither is given. */
export function windowOf(from: number | undefined, to: number | undefined): TimeWindow | null {
  if (from === undefined && to === undefined) return null;
  const w = { from: from ?? 0, to: to ?? Number.MAX_SAFE_INTEGER };
  if (!(w.from < w.to)) throw new InputError(`--from (${w.from}) must be before --to (${w.to})`, { field: '--from' });
  return w;
}

export type UnitKind = 'data' | 'index';

/** One scan of the work: a data-table salt bucket, or one tag inside an index-table salt bucket. */
export interface ScanUnit {
  /** Stable name, also the checkpoint key: `data/3`, `index/3/site`. */
  readonly id: string;
  readonly kind: UnitKind;
  readonly bucket: number;
  readonly tag: string | null;
  readonly range: ScanRange;
}

export function dataUnits(s: IndexToolSettings): ScanUnit[] {
  return s.keyspace.allBuckets().map((bucket) => ({ id: `data/${bucket}`, kind: 'data' as const, bucket, tag: null, range: s.keyspace.bucketRange(bucket) }));
}

/** Index rows of one tag in one bucket: salt' ‖ tag ‖ 0x00 … (every value). */
export function indexUnits(s: IndexToolSettings): ScanUnit[] {
  const units: ScanUnit[] = [];
  for (const bucket of s.keyspace.allBuckets()) {
    for (const tag of s.tags) {
      const prefix = Buffer.concat([Buffer.from([bucket]), Buffer.from(tag, 'utf8'), Buffer.from([0x00])]);
      units.push({ id: `index/${bucket}/${tag}`, kind: 'index', bucket, tag, range: prefixRange(prefix) });
    }
  }
  return units;
}

/**
 * Where `key` lies inside `range`, in [0, 1]: the three bytes after the shared prefix read as a
 * fraction of the key space. Only an estimate (ids are not uniform bytes) for progress and ETA.
 */
export function positionInRange(key: Buffer, range: ScanRange): number {
  const start = range.startRow;
  let prefix = 0;
  while (prefix < start.length && prefix < key.length && key[prefix] === start[prefix]) prefix++;
  if (prefix < start.length) return key.compare(start) < 0 ? 0 : 1;
  let f = 0;
  let scale = 1;
  for (let i = 0; i < 3; i++) {
    scale /= 256;
    f += (key[prefix + i] ?? 0) * scale;
  }
  return Math.min(1, Math.max(0, f));
}
