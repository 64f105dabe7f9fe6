// `tsingest tables apply`: create or reconcile every table through the admin port, then verify the
// region boundaries through the REST gateway's regions endpoint.
import type { Config, TableConfig } from '../runtime/config.ts';
import { TableAdminError, type EnsureTableResult, type TableAdminPort } from './table-admin-port.ts';
import { planTables, tableMismatch, type PlannedTable, type TableRole } from './table-plan.ts';

export interface RegionReader {
  regions(table: string): Promise<readonly { readonly startKey: Buffer }[]>;
  getSchema(table: string): Promise<{ readonly families: readonly { readonly name: string }[]; readonly attributes: Readonly<Record<string, string>> }>;
  tableExists(table: string): Promise<boolean>;
}

/** One of the rollup table's window-size families, as `tables apply` left it. */
export interface AppliedFamily {
  readonly family: string;
  readonly holds: string;
  readonly result: EnsureTableResult;
}

export interface AppliedTable {
  readonly role: TableRole;
  readonly result: EnsureTableResult;
  /** the window-size families of the rollup table (created, or altered in place: an online schema change, no data rewritten) */
  readonly families: readonly AppliedFamily[];
  readonly compression: string;
  /** region start keys as the REST gateway reports them (hex) */
  readonly restRegionStarts: readonly string[];
  readonly splitsVerified: boolean;
}

/** Codecs tried, in order, for compression 'auto' on a new table; NONE always works. */
export const AUTO_CODECS = ['SNAPPY', 'LZ4', 'ZSTD', 'GZ', 'NONE'] as const;

async function ensureWithCodec(admin: TableAdminPort, planned: PlannedTable, codecs: readonly string[]): Promise<{ result: EnsureTableResult; codec: string }> {
  let last: unknown;
  for (const codec of codecs) {
    try {
      const result = await admin.ensureTable({ ...planned.request, familyAttrs: { ...planned.request.familyAttrs, COMPRESSION: codec } });
      return { result, codec };
    } catch (err) {
      if (!(err instanceof TableAdminError && err.code === 'ADMIN_UNSUPPORTED_COMPRESSION')) throw err;
      last = err;
    }
  }
  throw last instanceof Error
    ? last
    : new TableAdminError('ADMIN_UNSUPPORTED_COMPRESSION', `no usable compression codec for ${planned.request.table}`, { table: planned.request.table });
}

async function codecsFor(admin: TableAdminPort, t: TableConfig): Promise<readonly string[]> {
  if (t.compression !== 'auto') return [t.compression];
  // An existing table keeps the codec it has, so 'auto' never flips it.
  const d = await admin.describe(t.name);
  const current = d.exists ? d.families.find((f) => f.name === t.family)?.attrs['COMPRESSION'] : undefined;
  return current === undefined ? AUTO_CODECS : [current];
}

/**
 * The window-size families of a table, after its main family (same table, so the splits are not
 * applied again): each one is added or altered through the same admin call, which changes only the
 * attributes that differ (TTL, …) with an online modify — the family's cells stay. With compression
 * 'auto' a new family takes the main family's codec and an existing one keeps its own.
 */
async function ensureFamilies(admin: TableAdminPort, planned: PlannedTable, codec: string): Promise<AppliedFamily[]> {
  if (planned.extraFamilies.length === 0) return [];
  const d = planned.config.compression === 'auto' ? await admin.describe(planned.request.table) : undefined;
  const out: AppliedFamily[] = [];
  for (const f of planned.extraFamilies) {
    const own = d?.families.find((x) => x.name === f.family)?.attrs['COMPRESSION'];
    const result = await admin.ensureTable({ ...planned.request, family: f.family, familyAttrs: { ...f.familyAttrs, COMPRESSION: own ?? codec } });
    out.push({ family: f.family, holds: f.holds, result });
  }
  return out;
}

export async function applyTables(cfg: Config, admin: TableAdminPort, rest: RegionReader): Promise<AppliedTable[]> {
  const applied: AppliedTable[] = [];
  for (const planned of planTables(cfg)) {
    const { result, codec } = await ensureWithCodec(admin, planned, await codecsFor(admin, planned.config));
    const families = await ensureFamilies(admin, planned, codec);
    const regions = await rest.regions(planned.request.table);
    const starts = regions.map((r) => r.startKey.toString('hex')).sort();
    const want = ['', ...planned.request.splits.map((s) => s.toString('hex'))].sort();
    applied.push({
      role: planned.role,
      result,
      families,
      compression: codec,
      restRegionStarts: starts,
      // A new table must have exactly the planned regions; an older one may since have split further.
      splitsVerified: result.created ? JSON.stringify(starts) === JSON.stringify(want) : want.every((w) => starts.includes(w)),
    });
  }
  return applied;
}

/** Start-up guard: every table exists with the family, bucket count and key format the config expects. */
export async function checkTables(cfg: Config, rest: RegionReader): Promise<string[]> {
  const problems: string[] = [];
  for (const planned of planTables(cfg)) {
    if (planned.role === 'rollup' && !cfg.rollup.enabled) continue; // ingest writes rollup markers only when rollups are on
    const name = planned.request.table;
    const exists = await rest.tableExists(name);
    const schema = exists ? await rest.getSchema(name) : { families: [], attributes: {} };
    const problem = tableMismatch(planned, { exists, attributes: schema.attributes, families: schema.families.map((f) => f.name) });
    if (problem !== undefined) problems.push(problem);
  }
  return problems;
}
