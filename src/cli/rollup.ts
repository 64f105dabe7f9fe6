// tsingest rollup run | rollup backfill
import { pino } from 'pino';
import { encodeId } from '../keys/index.ts';
import { runBackfill, type BackfillResult } from '../rollup/backfill.ts';
import { backfillCheckpointFile } from '../rollup/rollup-checkpoint.ts';
import { RollupJob } from '../rollup/job.ts';
import { formatRunReport, mergeReports } from '../rollup/run-report.ts';
import { quietRollupMeters } from '../rollup/meters.ts';
import { ProgressReporter } from '../rollup/rollup-progress.ts';
import { rollupSettings } from '../rollup/rollup-settings.ts';
import { createLogger } from '../runtime/logger.ts';
import { createHBaseClient, kafkaClient } from '../service/clients.ts';
import { KafkaBucketOwners, ownersOptions } from '../service/rollup-owners.ts';
import { openKeyspace, tablesOf } from '../service/keyspace.ts';
import { createThrottle } from '../toolkit/throttle.ts';
import type { Config } from '../runtime/config.ts';
import { UsageError, configOf, out, parseCommand, rateFlag, stringFlag, timeFlag, type FlagValues } from './args.ts';

export const ROLLUP_USAGE =
  'tsingest rollup run | rollup backfill --from T --to T [--id ID …] [--rate ROWS_PER_S] [--checkpoint FILE]   (T: epoch ms or ISO-8601)';

const BACKFILL_FLAGS = ['from', 'to', 'id', 'rate', 'checkpoint'] as const;
/** rollup run: runs over a changed assignment at most this many times in all */
const MAX_ROUNDS = 10;

/** First signal: stop cleanly (abort); second: exit at once. */
function abortOnSignals(): { signal: AbortSignal; release: () => void } {
  const ac = new AbortController();
  const handler = (sig: NodeJS.Signals): void => {
    if (ac.signal.aborted) process.exit(130);
    process.stderr.write(`tsingest rollup: ${sig}: stopping after the windows in flight (again to exit at once)\n`);
    ac.abort(new Error(sig));
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    signal: ac.signal,
    release: () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}

export async function rollupCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, {
    from: { type: 'string' },
    to: { type: 'string' },
    id: { type: 'string', multiple: true },
    rate: { type: 'string' },
    checkpoint: { type: 'string' },
  });
  const sub = positionals[0];
  if (positionals.length !== 1 || (sub !== 'run' && sub !== 'backfill')) throw new UsageError(`usage: ${ROLLUP_USAGE}`);
  if (sub === 'run') {
    const extra = BACKFILL_FLAGS.find((f) => values[f] !== undefined);
    if (extra !== undefined) throw new UsageError(`--${extra} applies to rollup backfill, not rollup run`);
    return rollupRun(configOf(values));
  }
  return rollupBackfill(values);
}

async function rollupRun(cfg: Config): Promise<number> {
  const log = createLogger({ level: cfg.log.level, destination: pino.destination({ dest: 2, sync: true }) });
  const tables = tablesOf(cfg);
  const hbase = createHBaseClient(cfg, 'tool');
  const { signal, release } = abortOnSignals();
  // beside running instances, this run takes a share of the buckets through their group (rollup.owners)
  const owners = cfg.rollup.owners.mode === 'kafka' ? new KafkaBucketOwners(ownersOptions(cfg, kafkaClient(cfg, log), log)) : undefined;
  try {
    const { keyspace } = await openKeyspace(cfg, tables, hbase);
    if (owners !== undefined) {
      owners.start();
      const waitMs = cfg.rollup.owners.sessionTimeoutMs + 30_000;
      await owners.ready(AbortSignal.any([signal, AbortSignal.timeout(waitMs)]));
      if (!signal.aborted && !owners.joined) {
        throw new UsageError(
          `rollup run: no bucket assignment from the rollup ownership group within ${waitMs / 1000} s (rollup.owners.mode = kafka: is Kafka reachable? rollup.owners.mode=all runs every bucket alone)`,
        );
      }
    }
    const job = new RollupJob({ store: hbase, settings: rollupSettings(cfg, keyspace, tables), metrics: quietRollupMeters(), log, ownership: owners });
    // A rebalance during the run (another runner joined or left) can hand this runner buckets it did
    // not start with: run again over the new assignment until one run saw it unchanged (markers done
    // are gone, so a rerun only does what is left).
    let seen = owners?.generation ?? 0;
    let report = await job.run(signal);
    for (let round = 1; owners !== undefined && owners.generation !== seen && round < MAX_ROUNDS && !signal.aborted; round++) {
      await owners.ready(signal);
      seen = owners.generation;
      report = mergeReports(report, await job.run(signal));
    }
    out(`${formatRunReport(report)}; rollup.owners.mode ${cfg.rollup.owners.mode}`);
    return report.ok ? 0 : 1;
  } finally {
    release();
    await owners?.stop();
    await hbase.close();
  }
}

function idFlags(values: FlagValues): string[] {
  const raw = values['id'];
  const ids = Array.isArray(raw) ? raw.filter((v): v is string => typeof v === 'string') : [];
  for (const id of ids) {
    try {
      encodeId(id);
    } catch (err) {
      throw new UsageError(`--id "${id}": ${(err as Error).message}`, { cause: err });
    }
  }
  return ids;
}

const iso = (ms: number): string => new Date(ms).toISOString();

function describeDone(r: BackfillResult, checkpoint: string | undefined): string {
  const per = Object.entries(r.written)
    .map(([w, n]) => `${w} ${n}`)
    .join(', ');
  const head =
    r.status === 'finished'
      ? 'backfill finished'
      : `backfill stopped${checkpoint === undefined ? '' : ` (rerun the same command to continue from ${checkpoint})`}`;
  return `${head}: rows scanned ${r.rowsScanned}, windows written ${r.windowsWritten} (this run: ${per}), ids ${r.idsDone}, duration ${(r.durationMs / 1000).toFixed(2)}s`;
}

async function rollupBackfill(values: FlagValues): Promise<number> {
  const from = timeFlag(values, 'from');
  const to = timeFlag(values, 'to');
  if (from >= to) throw new UsageError(`--from (${iso(from)}) must be before --to (${iso(to)})`);
  const rate = rateFlag(values);
  const ids = idFlags(values);
  const checkpoint = stringFlag(values, 'checkpoint');
  const cfg = configOf(values);
  const tables = tablesOf(cfg);
  const hbase = createHBaseClient(cfg, 'tool');
  const progress = new ProgressReporter(process.stderr);
  const { signal, release } = abortOnSignals();
  try {
    // The registry as it is now: spread ids are read as units of their own.
    const settings = rollupSettings(cfg, (await openKeyspace(cfg, tables, hbase)).keyspace, tables);
    const result = await runBackfill({
      store: hbase,
      settings,
      params: { from, to, ids },
      checkpoint: checkpoint === undefined ? undefined : backfillCheckpointFile(checkpoint),
      throttle: rate === undefined ? undefined : createThrottle({ ratePerSec: rate }),
      onProgress: (p) => {
        progress.update(p);
      },
      signal,
    });
    progress.done();
    const coarsest = settings.windows[settings.windows.length - 1];
    const range = `[${iso(result.from)}, ${iso(result.to)})`;
    out(
      result.widened
        ? `backfill range widened from [${iso(from)}, ${iso(to)}) to ${range}: whole ${coarsest?.name ?? ''} windows, so every window written is complete`
        : `backfill range ${range} (whole ${coarsest?.name ?? ''} windows)`,
    );
    if (result.status === 'already_finished') {
      out(
        `backfill already finished according to ${checkpoint ?? 'the checkpoint'}: nothing to do (rows scanned ${result.rowsScanned}, windows written ${result.windowsWritten}); remove the file to run it again`,
      );
      return 0;
    }
    out(describeDone(result, checkpoint));
    return result.status === 'finished' ? 0 : 1;
  } finally {
    release();
    await hbase.close();
  }
}
