// tsingest — the service and its tools.
//   tsingest run            [--config file] [--set key=value …]   the long-running ingest service
//   tsingest tables apply   create or reconcile data/index/rollup tables (pre-split, metadata)
//   tsingest tables check   verify the tables match the configuration (what `run` checks at start)
//   tsingest keys encode --id ID --ts MS [--buckets B] [--printable]
//   tsingest keys decode HEX [--buckets B]
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from './runtime/config.ts';
import { createLogger } from './runtime/logger.ts';
import { installSignalHandlers } from './runtime/lifecycle.ts';
import { startService } from './service/service.ts';
import { applyTables, checkTables } from './admin/apply-tables.ts';
import { JavaTableAdmin } from './admin/java-admin.ts';
import { HBaseRestClient } from './hbase/index.ts';
import { decodeAnyKey, encodeDataKey, encodePrintableDataKey } from './keys/index.ts';

const USAGE = 'usage: tsingest run | tables apply | tables check | keys encode --id ID --ts MS [--buckets B] [--printable] | keys decode HEX [--buckets B]  (common: --config FILE, --set key=value)';

class UsageError extends Error {}

function out(line: string): void {
  process.stdout.write(`${line}\n`);
}

function intFlag(name: string, raw: string | undefined, fallback?: number): number {
  if (raw === undefined) {
    if (fallback === undefined) throw new UsageError(`--${name} is required`);
    return fallback;
  }
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw new UsageError(`--${name} must be an integer, got "${raw}"`);
  return n;
}

async function tables(cfg: Config, sub: string | undefined): Promise<number> {
  const rest = new HBaseRestClient({ baseUrl: cfg.hbase.restUrl, defaultDeadlineMs: cfg.hbase.requestDeadlineMs });
  try {
    if (sub === 'check') {
      const problems = await checkTables(cfg, rest);
      for (const p of problems) out(`✗ ${p}`);
      if (problems.length === 0) out('✓ tables match the configuration');
      return problems.length === 0 ? 0 : 1;
    }
    if (sub !== 'apply') throw new UsageError(USAGE);
    if (cfg.hbase.adminCommand.length === 0) throw new UsageError('hbase.adminCommand (env TSI_ADMIN_COMMAND, a JSON argv) is needed: the REST gateway cannot create pre-split tables');
    const applied = await applyTables(cfg, new JavaTableAdmin({ command: cfg.hbase.adminCommand }), rest);
    for (const a of applied) {
      const r = a.result;
      const what = r.created ? 'created' : r.diff.length > 0 ? `updated (${r.diff.map((d) => `${d.key}: ${d.from ?? '∅'}→${d.to}`).join(', ')})` : 'unchanged';
      out(`${a.splitsVerified ? '✓' : '✗'} ${a.role.padEnd(6)} ${r.table}: ${what}; ${a.restRegionStarts.length} regions (REST), compression ${a.compression}`);
    }
    return applied.every((a) => a.splitsVerified) ? 0 : 1;
  } finally {
    await rest.close();
  }
}

function keys(sub: string | undefined, values: Record<string, string | boolean | undefined>, positionals: string[]): number {
  const buckets = intFlag('buckets', values['buckets'] as string | undefined, 16);
  if (sub === 'encode') {
    const id = values['id'];
    if (typeof id !== 'string') throw new UsageError('--id is required');
    const parts = { id, ts: intFlag('ts', values['ts'] as string | undefined) };
    const key = values['printable'] === true ? encodePrintableDataKey(parts, buckets) : encodeDataKey(parts, buckets);
    out(key.toString('hex'));
    return 0;
  }
  if (sub === 'decode') {
    const hex = positionals[0];
    if (hex === undefined || !/^([0-9a-fA-F]{2})+$/.test(hex)) throw new UsageError('keys decode needs the key as hex');
    out(JSON.stringify(decodeAnyKey(Buffer.from(hex, 'hex'), buckets)));
    return 0;
  }
  throw new UsageError(USAGE);
}

async function run(cfg: Config): Promise<number> {
  const log = createLogger({ level: cfg.log.level });
  const service = await startService(cfg, log);
  log.info({ http: service.httpPort }, 'tsingest running');
  installSignalHandlers({ onDrain: () => service.stop('signal'), drainTimeoutMs: cfg.shutdown.drainTimeoutMs, log, exit: (code) => process.exit(code) });
  await service.finished;
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      config: { type: 'string' },
      set: { type: 'string', multiple: true },
      id: { type: 'string' },
      ts: { type: 'string' },
      buckets: { type: 'string' },
      printable: { type: 'boolean' },
    },
  });
  const [cmd, sub, ...rest] = positionals;
  if (cmd === 'keys') return keys(sub, values as Record<string, string | boolean | undefined>, rest);
  const cfg = loadConfig({ file: values.config, env: process.env, sets: values.set ?? [] });
  if (cmd === 'run') return run(cfg);
  if (cmd === 'tables') return tables(cfg, sub);
  throw new UsageError(USAGE);
}

if (import.meta.main) {
  main(process.argv.slice(2)).then(
    (code) => { process.exitCode = code; },
    (err: unknown) => {
      process.stderr.write(`tsingest: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = err instanceof UsageError ? 2 : 1;
    },
  );
}
