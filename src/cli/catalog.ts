// tsingest catalog backfill: the series catalog of data already in the data table (docs/SERIES-API.md).
import { catalogCheckpointFile } from '../catalog/backfill-checkpoint.ts';
import { runCatalogBackfill, type CatalogBackfillProgress, type CatalogBackfillResult } from '../catalog/backfill.ts';
import { createHBaseClient } from '../service/clients.ts';
import { keyspaceOf, tablesOf } from '../service/keyspace.ts';
import { formatDuration, fractionOf, etaOf } from '../toolkit/progress-math.ts';
import { createThrottle } from '../toolkit/throttle.ts';
import { UsageError, configOf, out, parseCommand, rateFlag, stringFlag, timeFlag } from './args.ts';

export const CATALOG_USAGE = 'tsingest catalog backfill [--from T --to T] [--rate ROWS_PER_S] [--checkpoint FILE]   (T: epoch ms or ISO-8601)';

/** Exit code of a run stopped by SIGINT/SIGTERM (128 + SIGINT). */
const EXIT_INTERRUPTED = 130;
/** Seconds between progress lines on stderr. */
const PROGRESS_EVERY_MS = 2000;

function abortOnSignals(): { signal: AbortSignal; release: () => void } {
  const ac = new AbortController();
  const handler = (sig: NodeJS.Signals): void => {
    if (ac.signal.aborted) process.exit(EXIT_INTERRUPTED);
    process.stderr.write(`tsingest catalog: ${sig}: stopping after the current page (again to exit at once)\n`);
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

function progressLine(p: CatalogBackfillProgress, startedAt: number, startFraction: number, now: number): string {
  const f = fractionOf(p.bucketsDone, p.bucketFraction, p.buckets);
  const eta = etaOf(startFraction, f, now - startedAt);
  return `catalog backfill: ${(f * 100).toFixed(1)}% (bucket ${Math.min(p.bucketsDone + 1, p.buckets)}/${p.buckets}), rows scanned ${p.rowsScanned}, series written ${p.seriesWritten}, skipped ${p.rowsSkipped}, eta ${formatDuration(eta)}\n`;
}

function describe(r: CatalogBackfillResult, checkpoint: string | undefined, ms: number): string {
  const head =
    r.status === 'finished'
      ? 'catalog backfill finished'
      : `catalog backfill stopped${checkpoint === undefined ? '' : ` (rerun the same command to continue from ${checkpoint})`}`;
  return `${head}: rows scanned ${r.rowsScanned}, series rows written ${r.seriesWritten}, rows skipped ${r.rowsSkipped}, duration ${(ms / 1000).toFixed(2)}s`;
}

export async function catalogCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, {
    from: { type: 'string' },
    to: { type: 'string' },
    rate: { type: 'string' },
    checkpoint: { type: 'string' },
  });
  if (positionals.length !== 1 || positionals[0] !== 'backfill') throw new UsageError(`usage: ${CATALOG_USAGE}`);
  const from = stringFlag(values, 'from') === undefined ? undefined : timeFlag(values, 'from');
  const to = stringFlag(values, 'to') === undefined ? undefined : timeFlag(values, 'to');
  if (from !== undefined && to !== undefined && from >= to) throw new UsageError('--from must be before --to');
  const rate = rateFlag(values);
  const checkpoint = stringFlag(values, 'checkpoint');
  if (checkpoint === '') throw new UsageError('--checkpoint needs a file path');
  const cfg = configOf(values);
  const tables = tablesOf(cfg);
  const hbase = createHBaseClient(cfg, 'tool');
  const { signal, release } = abortOnSignals();
  const startedAt = Date.now();
  let startFraction: number | undefined;
  let lastLine = 0;
  try {
    const result = await runCatalogBackfill({
      port: hbase,
      settings: {
        keyspace: keyspaceOf(cfg),
        dataTable: tables.data.name,
        dataFamily: tables.data.family,
        metaTable: tables.meta.name,
        metaFamily: tables.meta.family,
        from,
        to,
        cacheSize: cfg.catalog.cacheSize,
      },
      checkpoint: checkpoint === undefined ? undefined : catalogCheckpointFile(checkpoint),
      throttle: rate === undefined ? undefined : createThrottle({ ratePerSec: rate, burst: Math.max(rate, 1000) }),
      onProgress: (p) => {
        const now = Date.now();
        startFraction ??= fractionOf(p.bucketsDone, 0, p.buckets);
        if (now - lastLine < PROGRESS_EVERY_MS) return;
        lastLine = now;
        process.stderr.write(progressLine(p, startedAt, startFraction, now));
      },
      signal,
    });
    if (result.status === 'already_finished') {
      out(
        `catalog backfill already finished according to ${checkpoint ?? 'the checkpoint'}: nothing to do (rows scanned ${result.rowsScanned}, series rows written ${result.seriesWritten}); remove the file to run it again`,
      );
      return 0;
    }
    out(describe(result, checkpoint, Date.now() - startedAt));
    return result.status === 'finished' ? 0 : EXIT_INTERRUPTED;
  } finally {
    release();
    await hbase.close();
  }
}
