// tsingest doctor: HBase's schema rules of thumb checked on the live cluster (docs/DOCTOR.md).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { usableCodecs } from '../admin/codec-probe-port.ts';
import { JavaTableAdmin } from '../admin/java-admin.ts';
import { HBASE_DEFAULTS, checkCluster, previousWritesOf } from '../doctor/check.ts';
import { exitStatus } from '../doctor/finding.ts';
import { writeCounters } from '../doctor/gather.ts';
import { renderJson, renderText } from '../doctor/doctor-render.ts';
import { ConfigError, type Config } from '../runtime/config.ts';
import { createHBaseClient } from '../service/clients.ts';
import { tablesOf } from '../service/keyspace.ts';
import { UsageError, configOf, intFlag, out, parseCommand, stringFlag } from './args.ts';

export const DOCTOR_USAGE =
  'tsingest doctor [--table T … | --all] [--json] [--sample-rows N] [--since FILE] [--flush-size-mb N] [--memstore-fraction F] [--no-codec-probe]';

/** The codec probe starts a JVM (~1.5 s); a probe that has not answered by then is reported, not waited for. */
const CODEC_PROBE_TIMEOUT_MS = 30_000;

/** The usable codecs as the admin tool's `codecs` op finds them in its JVM (docs/DOCTOR.md). */
function codecProbe(cfg: Config): () => Promise<readonly string[]> {
  if (cfg.hbase.adminCommand.length === 0) {
    return () => Promise.reject(new ConfigError('hbase.adminCommand (env TSI_ADMIN_COMMAND) is not set, so there is no admin tool to run'));
  }
  const admin = new JavaTableAdmin({ command: cfg.hbase.adminCommand, timeoutMs: CODEC_PROBE_TIMEOUT_MS });
  return async () => usableCodecs(await admin.codecs());
}

/** What --since FILE holds: write counters per table and region (encoded name), from the previous run. */
const SinceFile = z.object({ at: z.string(), writes: z.record(z.string(), z.record(z.string(), z.number().int().nonnegative())) });

function readSince(file: string | undefined): Map<string, Map<string, number>> | undefined {
  if (file === undefined || !existsSync(file)) return undefined;
  let parsed: z.infer<typeof SinceFile>;
  try {
    parsed = SinceFile.parse(JSON.parse(readFileSync(file, 'utf8')));
  } catch (err) {
    throw new UsageError(`--since ${file}: not the file a previous doctor run wrote (${(err as Error).message.slice(0, 200)})`, { cause: err });
  }
  return previousWritesOf(parsed.writes);
}

/** Summaries the bytes-per-point count reads at most by default (a few seconds through the gateway). */
const POINTS_SCAN_DEFAULT = 1_000_000;

export async function doctorCommand(argv: readonly string[]): Promise<number> {
  const { values } = parseCommand(argv, {
    table: { type: 'string', multiple: true },
    all: { type: 'boolean' },
    json: { type: 'boolean' },
    'sample-rows': { type: 'string' },
    since: { type: 'string' },
    'flush-size-mb': { type: 'string' },
    'memstore-fraction': { type: 'string' },
    'flush-policy': { type: 'string' },
    'points-scan': { type: 'string' },
    'no-codec-probe': { type: 'boolean' },
  });
  const cfg = configOf(values);
  const named = (values['table'] as string[] | undefined) ?? [];
  if (named.length > 0 && values['all'] === true) throw new UsageError('--table and --all exclude each other');
  const fraction = Number(stringFlag(values, 'memstore-fraction') ?? HBASE_DEFAULTS.globalMemstoreFraction);
  if (!(fraction > 0 && fraction < 1)) throw new UsageError('--memstore-fraction must be between 0 and 1 (hbase.regionserver.global.memstore.size)');
  const flush = intFlag('flush-size-mb', stringFlag(values, 'flush-size-mb'), HBASE_DEFAULTS.memstoreFlushSizeMB);
  const flushPolicy = stringFlag(values, 'flush-policy');
  const custom = values['flush-size-mb'] !== undefined || values['memstore-fraction'] !== undefined || flushPolicy !== undefined;
  const since = stringFlag(values, 'since');
  const rest = createHBaseClient(cfg, 'tool');
  try {
    const tables = values['all'] === true ? await rest.listTables() : named.length > 0 ? named : tablesOf(cfg).names;
    const previous = readSince(since);
    const { findings, checked, facts } = await checkCluster(rest, {
      tables,
      sampleRowsPerRegion: intFlag('sample-rows', stringFlag(values, 'sample-rows'), 20),
      pointsScanSummaries: intFlag('points-scan', stringFlag(values, 'points-scan'), POINTS_SCAN_DEFAULT),
      settings: {
        memstoreFlushSizeMB: flush,
        globalMemstoreFraction: fraction,
        flushPolicy,
        source: custom ? 'as given on the command line' : 'HBase defaults; pass --flush-size-mb / --memstore-fraction / --flush-policy for your servers',
      },
      ...(previous === undefined ? {} : { previousWrites: previous }),
      ...(values['no-codec-probe'] === true ? {} : { codecs: codecProbe(cfg) }),
    });
    if (values['json'] === true) out(renderJson(findings, checked));
    else for (const line of renderText(findings, checked)) out(line);
    if (since !== undefined) writeFileSync(since, JSON.stringify({ at: new Date().toISOString(), writes: writeCounters(facts) }));
    return exitStatus(findings);
  } finally {
    await rest.close();
  }
}
