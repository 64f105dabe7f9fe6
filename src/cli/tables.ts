// tsingest tables apply|check
import { rephrase } from '../errors.ts';
import { applyTables, checkTables } from '../admin/apply-tables.ts';
import { JavaTableAdmin } from '../admin/java-admin.ts';
import type { EnsureTableResult } from '../admin/table-admin-port.ts';
import type { HBaseRestClient } from '../hbase/index.ts';
import type { Config } from '../runtime/config.ts';
import { createHBaseClient } from '../service/clients.ts';
import { explainHBaseTlsFailure } from '../service/hbase-credentials.ts';
import { UsageError, configOf, out, parseCommand } from './args.ts';

export const TABLES_USAGE = 'tsingest tables apply | tables check';

export async function tablesCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, {});
  const sub = positionals[0];
  const cfg = configOf(values);
  const rest = createHBaseClient(cfg, 'tool');
  try {
    return await tables(sub, cfg, rest);
  } catch (err) {
    const why = explainHBaseTlsFailure(cfg.hbase, err);
    throw why === undefined ? err : rephrase(why, err);
  } finally {
    await rest.close();
  }
}

/** "created", "added" (a new family of an existing table), "unchanged", or the attributes changed in place, e.g. `updated (TTL: FOREVER→2592000)`. */
export function whatChanged(r: Pick<EnsureTableResult, 'created' | 'diff'>): string {
  if (r.created) return 'created';
  if (r.diff.some((d) => d.scope === 'family' && d.key === 'NAME' && d.from === null)) return 'added';
  return r.diff.length > 0 ? `updated (${r.diff.map((d) => `${d.key}: ${d.from ?? '∅'}→${d.to}`).join(', ')})` : 'unchanged';
}

/** A TTL as the admin tool reports it (seconds or FOREVER), with days when whole. */
export function ttlText(ttl: string | undefined): string {
  if (ttl === undefined || ttl === 'FOREVER') return 'forever';
  const s = Number(ttl);
  return Number.isInteger(s) && s % 86_400 === 0 ? `${s} s = ${s / 86_400} d` : `${ttl} s`;
}

async function tables(sub: string | undefined, cfg: Config, rest: HBaseRestClient): Promise<number> {
  if (sub === 'check') {
    const problems = await checkTables(cfg, rest);
    for (const p of problems) out(`✗ ${p}`);
    if (problems.length === 0) out('✓ tables match the configuration');
    return problems.length === 0 ? 0 : 1;
  }
  if (sub !== 'apply') throw new UsageError(`usage: ${TABLES_USAGE}`);
  if (cfg.hbase.adminCommand.length === 0)
    throw new UsageError('hbase.adminCommand (env TSI_ADMIN_COMMAND, a JSON argv) is needed: the REST gateway cannot create pre-split tables');
  // One tool process for every table and family (a JVM start and a connection each would be ~2–4 s more per call).
  const admin = new JavaTableAdmin({ command: cfg.hbase.adminCommand, session: true });
  let applied;
  try {
    applied = await applyTables(cfg, admin, rest);
  } finally {
    await admin.close();
  }
  for (const a of applied) {
    const r = a.result;
    out(
      `${a.splitsVerified ? '✓' : '✗'} ${a.role.padEnd(6)} ${r.table}: ${whatChanged(r)}; ${a.restRegionStarts.length} regions (REST), compression ${a.compression}`,
    );
    for (const f of a.families) out(`    family ${f.family} (${f.holds}, TTL ${ttlText(f.result.familyAttrs['TTL'])}): ${whatChanged(f.result)}`);
  }
  return applied.every((a) => a.splitsVerified) ? 0 : 1;
}
