// Pure: from the configuration to the tables we want — one short family each, the data, index and
// rollup tables pre-split on the salt boundaries, the meta table (the spread registry) in one region,
// with the salt bucket count and key format recorded in each table's metadata.
import { planSaltSplits, TABLE_META, type KeyFormat } from '../keys/index.ts';
import { pointsTtlSeconds, windowRetention, type Config, type TableConfig } from '../runtime/config.ts';
import type { EnsureTableRequest, FamilyAttrs } from './table-admin-port.ts';

/** Version of the key layout, written next to B; bump it if the layout ever changes. */
export const KEY_LAYOUT_VERSION = 'v1';

export type TableRole = 'data' | 'index' | 'rollup' | 'meta';

export function keyFormatTag(role: TableRole, format: KeyFormat): string {
  // Index and rollup keys are always binary (salt byte first); only the data key follows keys.format.
  // The meta table's rows are the spread registry's own layout (docs/KEYS.md), valid for one B.
  if (role === 'meta') return `${KEY_LAYOUT_VERSION}:spread-registry`;
  return `${KEY_LAYOUT_VERSION}:${role === 'data' ? format : 'binary'}`;
}

/** A family besides the table's main one (request.family): the rollup table's one per window size. */
export interface PlannedFamily {
  readonly family: string;
  /** what it holds, for messages: e.g. "1h summaries" */
  readonly holds: string;
  readonly familyAttrs: FamilyAttrs;
}

export interface PlannedTable {
  readonly role: TableRole;
  readonly config: TableConfig;
  readonly request: EnsureTableRequest;
  /** the rollup table's window-size families (docs/RETENTION.md); empty for the other tables */
  readonly extraFamilies: readonly PlannedFamily[];
}

function familyAttrs(role: TableRole, t: TableConfig, compression: string, ttlSeconds: number | null = t.ttlSeconds): FamilyAttrs {
  return {
    VERSIONS: t.versions,
    TTL: ttlSeconds ?? 'FOREVER',
    BLOOMFILTER: t.bloomFilter,
    COMPRESSION: compression,
    DATA_BLOCK_ENCODING: t.dataBlockEncoding,
    // Index rows (repair, rebuild), rollup markers/summaries and the meta table's load rows are deleted
    // and later re-written with cell timestamps at or below the delete's; with HBase's classic semantics
    // the delete marker would hide the re-written cells until a major compaction. Data rows are never
    // deleted by the service.
    ...(role === 'data' ? {} : { NEW_VERSION_BEHAVIOR: true }),
  };
}

/**
 * The rollup table's families besides the main one: one per window size with its TTL, and the point
 * blocks' family (every size in it) when blocks are on, with the blocks' TTL (tables.rollup.pointsTtlSeconds,
 * by default the data table's: counted from when the job wrote them, after the window).
 */
function rollupFamilies(cfg: Config, t: TableConfig, codec: string): PlannedFamily[] {
  const sizes = windowRetention(cfg).map((w) => ({
    family: w.family,
    holds: `${w.window} summaries`,
    familyAttrs: familyAttrs('rollup', t, codec, w.ttlSeconds),
  }));
  if (!cfg.rollup.pointBlocks.enabled) return sizes;
  return [...sizes, { family: cfg.tables.rollup.pointsFamily, holds: 'point blocks', familyAttrs: familyAttrs('rollup', t, codec, pointsTtlSeconds(cfg)) }];
}

/** `compression` resolves 'auto' per table (the caller probes the cluster); explicit codecs pass through. */
export function planTables(
  cfg: Config,
  compression: (role: TableRole, t: TableConfig) => string = (_r, t) => (t.compression === 'auto' ? 'NONE' : t.compression),
): PlannedTable[] {
  const B = cfg.keys.saltBuckets;
  const roles: TableRole[] = ['data', 'index', 'rollup', 'meta'];
  return roles.map((role) => {
    const t = cfg.tables[role];
    const format: KeyFormat = role === 'data' ? cfg.keys.format : 'binary';
    const codec = compression(role, t);
    return {
      role,
      config: t,
      // One family per window size, each with its own TTL (HBase keeps TTLs per family); the main
      // family keeps the marker rows and the summaries written before these families existed.
      extraFamilies: role === 'rollup' ? rollupFamilies(cfg, t, codec) : [],
      request: {
        table: t.name,
        family: t.family,
        splits: role === 'meta' ? [] : planSaltSplits(B, format),
        familyAttrs: familyAttrs(role, t, codec),
        tableAttrs: { [TABLE_META.buckets]: String(B), [TABLE_META.keyFormat]: keyFormatTag(role, cfg.keys.format), [TABLE_META.role]: role },
        immutableTableAttrs: [TABLE_META.buckets, TABLE_META.keyFormat],
      },
    };
  });
}

export interface TableFacts {
  readonly exists: boolean;
  readonly attributes: Readonly<Record<string, string>>;
  readonly families: readonly string[];
}

/** Why the service must not start against this table, or undefined when it may. */
export function tableMismatch(planned: PlannedTable, facts: TableFacts): string | undefined {
  const { table, family, tableAttrs } = planned.request;
  if (!facts.exists) return `table ${table} does not exist; create it with \`tsingest tables apply\``;
  if (!facts.families.includes(family)) return `table ${table} has no column family '${family}' (it has ${facts.families.join(', ') || 'none'})`;
  const missing = planned.extraFamilies.filter((f) => !facts.families.includes(f.family));
  if (missing.length > 0) {
    return `table ${table} has no column family ${missing.map((f) => `'${f.family}' (${f.holds})`).join(', ')}: one family per rollup window size since retention per size, and one for point blocks (docs/RETENTION.md); add them with \`tsingest tables apply\` (summaries already written stay readable)`;
  }
  for (const key of [TABLE_META.buckets, TABLE_META.keyFormat]) {
    const want = tableAttrs?.[key];
    const have = facts.attributes[key];
    if (have === undefined) return `table ${table} carries no ${key}; it was not created by \`tsingest tables apply\` (want ${key}=${want ?? '?'})`;
    if (have !== want) {
      const hint =
        key === TABLE_META.buckets ? 'changing the salt bucket count makes existing rows unreadable' : 'rows written in another key format would not be found';
      return `table ${table} has ${key}=${have} but the configuration says ${want ?? '?'}: ${hint}; fix the configuration or use a new table`;
    }
  }
  return undefined;
}
