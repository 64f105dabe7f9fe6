// tsingest tables apply|check
import { rephrase } from '../errors.ts';
import { applyTables, checkTables } from '../admin/apply-tables.ts';
import { JavaTableAdmin } from '../admin/java-admin.ts';
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

async function tables(sub: string | undefined, cfg: Config, rest: HBaseRestClient): Promise<number> {
  if (sub === 'check') {
    const problems = await checkTables(cfg, rest);
    for (const p of problems) out(`✗ ${p}`);
    if (problems.length === 0) out('✓ tables match the configuration');
    return problems.length === 0 ? 0 : 1;
  }
  if (sub !== 'apply') throw new UsageError(`usage: ${TABLES_USAGE}`);
  if (cfg.hbase.adminCommand.length === 0) throw new UsageError('hbase.adminCommand (env TSI_ADMIN_COMMAND, a JSON argv) is needed: the REST gateway cannot create pre-split tables');
  const applied = await applyTables(cfg, new JavaTableAdmin({ command: cfg.hbase.adminCommand }), rest);
  for (const a of applied) {
    const r = a.result;
    const what = r.created ? 'created' : r.diff.length > 0 ? `updated (${r.diff.map((d) => `${d.key}: ${d.from ?? '∅'}→${d.to}`).join(', ')})` : 'unchanged';
    out(`${a.splitsVerified ? '✓' : '✗'} ${a.role.padEnd(6)} ${r.table}: ${what}; ${a.restRegionStarts.length} regions (REST), compression ${a.compression}`);
  }
  return applied.every((a) => a.splitsVerified) ? 0 : 1;
}
