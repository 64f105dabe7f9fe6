// tsingest index verify|rebuild
import type { HBaseRestClient } from '../hbase/index.ts';
import { rebuildCheckpointFile } from '../index-tools/index-checkpoint.ts';
import { ProgressTracker } from '../index-tools/index-progress.ts';
import { startProgressReporter } from '../index-tools/progress-reporter.ts';
import { rebuildIndex, type RebuildReport } from '../index-tools/rebuild.ts';
import { rebuildJson, rebuildText, verifyJson, verifyText } from '../index-tools/report.ts';
import { dataUnits, indexUnits, settingsOf, type IndexToolSettings } from '../index-tools/index-settings.ts';
import { verifyIndex } from '../index-tools/verify.ts';
import type { Tables } from '../keys/index.ts';
import type { Config } from '../runtime/config.ts';
import { createHBaseClient } from '../service/clients.ts';
import { keyspaceOf, openKeyspace, tablesOf } from '../service/keyspace.ts';
import { createThrottle } from '../toolkit/throttle.ts';
import { UsageError, configOf, interruptible, intFlag, out, parseCommand, rateFlag, stringFlag, timeFlag, type FlagValues } from './args.ts';

export const INDEX_USAGE =
  'tsingest index verify [--tag NAME] [--from T --to T] [--json] | ' +
  'index rebuild [--tag NAME] [--from T --to T] [--rate ROWS_PER_S] [--checkpoint FILE] [--grace-ms N] [--json]';

/** Exit code of a run stopped by SIGINT/SIGTERM (128 + SIGINT). */
const EXIT_INTERRUPTED = 130;

const OPTIONS = {
  tag: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  json: { type: 'boolean' },
  rate: { type: 'string' },
  checkpoint: { type: 'string' },
  'grace-ms': { type: 'string' },
  concurrency: { type: 'string' },
  chunk: { type: 'string' },
  samples: { type: 'string' },
} as const;

function boundedInt(values: FlagValues, name: string, o: { readonly fallback: number; readonly min: number; readonly max: number }): number {
  const { fallback, min, max } = o;
  const n = intFlag(name, stringFlag(values, name), fallback);
  if (n < min || n > max) throw new UsageError(`--${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function settingsFrom(cfg: Config, tables: Tables, values: FlagValues): IndexToolSettings {
  const from = stringFlag(values, 'from') === undefined ? undefined : timeFlag(values, 'from');
  const to = stringFlag(values, 'to') === undefined ? undefined : timeFlag(values, 'to');
  try {
    return settingsOf(cfg, keyspaceOf(cfg), tables, { tag: stringFlag(values, 'tag'), from, to });
  } catch (err) {
    throw new UsageError((err as Error).message, { cause: err });
  }
}

/** Deleted index cells mask later puts with the same timestamp unless the family has NEW_VERSION_BEHAVIOR. */
async function deleteMaskingNote(rest: HBaseRestClient, s: IndexToolSettings): Promise<string | null> {
  try {
    const schema = await rest.getSchema(s.indexTable);
    const fam = schema.families.find((f) => f.name === s.indexFamily);
    if (fam?.attributes['NEW_VERSION_BEHAVIOR']?.toLowerCase() === 'true') return null;
  } catch {
    return null;
  }
  return (
    `note: ${s.indexTable}:${s.indexFamily} lacks NEW_VERSION_BEHAVIOR=true, so an HBase delete marker hides later puts ` +
    'with the same cell timestamp (the event ts) until a major compaction: an index row deleted earlier (by hand, by read ' +
    'repair or by this tool) cannot be written back before then. If `verify` still reports it missing, major-compact the index table.'
  );
}

export async function indexCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, OPTIONS);
  const sub = positionals[0];
  if (sub !== 'verify' && sub !== 'rebuild') throw new UsageError(`usage: ${INDEX_USAGE}`);
  if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1] ?? ''}"; usage: ${INDEX_USAGE}`);
  if (sub === 'verify') {
    for (const f of ['rate', 'checkpoint', 'grace-ms']) if (values[f] !== undefined) throw new UsageError(`--${f} applies to index rebuild only`);
  }
  const cfg = configOf(values);
  const tables = tablesOf(cfg);
  const flags = settingsFrom(cfg, tables, values); // flag errors before any HBase call
  const common = {
    chunkSize: boundedInt(values, 'chunk', { fallback: cfg.query.verifyChunk, min: 1, max: 10_000 }),
    concurrency: boundedInt(values, 'concurrency', { fallback: cfg.query.bucketConcurrency, min: 1, max: 256 }),
    sampleSize: boundedInt(values, 'samples', { fallback: 5, min: 0, max: 1000 }),
  };
  const json = values['json'] === true;
  const graceMs = boundedInt(values, 'grace-ms', { fallback: cfg.query.danglingGraceMs, min: 0, max: Number.MAX_SAFE_INTEGER });
  const rate = rateFlag(values);
  const checkpointPath = stringFlag(values, 'checkpoint');
  if (checkpointPath === '') throw new UsageError('--checkpoint needs a file path');
  const rest = createHBaseClient(cfg, 'tool');
  const progress = new ProgressTracker(dataUnits(flags).length + indexUnits(flags).length, Date.now());
  const reporter = startProgressReporter(process.stderr, () => progress.snapshot(Date.now()), { label: `index ${sub}` });
  try {
    // Rows are checked against the spread registry as it is now (a row outside its bucket is misplaced).
    const s: IndexToolSettings = { ...flags, keyspace: (await openKeyspace(cfg, tables, rest)).keyspace };
    if (sub === 'verify') {
      const r = await interruptible((signal) => verifyIndex(rest, s, { ...common, signal, progress }));
      reporter.stop();
      if (json) out(verifyJson(r, s));
      else for (const line of verifyText(r, s)) out(line);
      return r.interrupted ? EXIT_INTERRUPTED : r.consistent ? 0 : 1;
    }
    const r: RebuildReport = await interruptible((signal) =>
      rebuildIndex(rest, s, {
        ...common,
        graceMs,
        now: Date.now,
        // a chunk's rows are taken at once: the burst holds at least one chunk
        throttle: rate === undefined ? undefined : createThrottle({ ratePerSec: rate, burst: Math.max(rate, common.chunkSize) }),
        checkpoint: checkpointPath === undefined ? undefined : rebuildCheckpointFile(checkpointPath),
        signal,
        progress,
      }),
    );
    reporter.stop();
    const ctx = { graceMs, checkpoint: checkpointPath ?? null };
    if (json) out(rebuildJson(r, s, ctx));
    else for (const line of rebuildText(r, s, ctx)) out(line);
    if (r.indexRowsWritten > 0 || r.danglingDeleted > 0) {
      const note = await deleteMaskingNote(rest, s);
      if (note !== null) process.stderr.write(`${note}\n`);
    }
    return r.status === 'interrupted' ? EXIT_INTERRUPTED : 0;
  } finally {
    reporter.stop();
    await rest.close();
  }
}
