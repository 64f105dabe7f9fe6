// tsingest delete --id ID [--from T --to T]: one id's data, index rows, rollups, catalog and registry
// entry removed (src/delete/), then every place scanned again; exit 1 when anything of it is left, 2 on
// a wrong command line (an id the key layout refuses included) before any HBase call, 0 with "never
// seen" when a probe of every bucket, the summaries, the registry and the catalog finds nothing of it.
import { deleteCheckpointFile } from '../delete/delete-checkpoint.ts';
import { deleteId, type DeleteReport } from '../delete/delete-id.ts';
import { DeleteProgress, formatDeleteProgress } from '../delete/delete-progress.ts';
import { idSeen } from '../delete/probe.ts';
import { assertDeletableId, deleteSettings, type DeleteSettings } from '../delete/delete-settings.ts';
import { totalLeft, verifyDeleted, type Leftovers } from '../delete/verify.ts';
import { classifyError } from '../errors.ts';
import { retrying } from '../toolkit/retry.ts';
import { TOOL_EXIT } from '../runtime/exit-codes.ts';
import { createHBaseClient } from '../service/clients.ts';
import { keyspaceOf, openKeyspace, tablesOf } from '../service/keyspace.ts';
import { createThrottle } from '../toolkit/throttle.ts';
import { UsageError, configOf, interruptible, intFlag, out, parseCommand, rateFlag, requiredString, stringFlag, timeFlag, type FlagValues } from './args.ts';

export const DELETE_USAGE = 'tsingest delete --id ID [--from T --to T] [--checkpoint FILE] [--rate ROWS_PER_S] [--concurrency N] [--no-verify] [--json]';

const OPTIONS = {
  id: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  checkpoint: { type: 'string' },
  rate: { type: 'string' },
  concurrency: { type: 'string' },
  buckets: { type: 'string' },
  page: { type: 'string' },
  'no-verify': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

function bounded(values: FlagValues, name: string, fallback: number, max: number): number {
  const n = intFlag(name, stringFlag(values, name), fallback);
  if (n < 1 || n > max) throw new UsageError(`--${name} must be between 1 and ${max}, got ${n}`);
  return n;
}

function rangeOf(values: FlagValues): { from: number; to: number } | null {
  const hasFrom = stringFlag(values, 'from') !== undefined;
  const hasTo = stringFlag(values, 'to') !== undefined;
  if (hasFrom !== hasTo) throw new UsageError('--from and --to go together (a range [from, to)); give neither to delete all of the id');
  if (!hasFrom) return null;
  const range = { from: timeFlag(values, 'from'), to: timeFlag(values, 'to') };
  if (!(range.from < range.to)) throw new UsageError(`--from (${range.from}) must be before --to (${range.to})`);
  return range;
}

/** What is left, table by table: `tsdb-data: 25 data rows; tsdb-index: 12 index rows`. */
export function leftByTable(s: DeleteSettings, left: Leftovers): string {
  const places: [keyof Leftovers, string, string][] = [
    ['dataRows', s.data.name, 'data rows'],
    ['indexRows', s.index.name, 'index rows'],
    ['summaries', s.rollup.name, 'summaries'],
    ['markerCells', s.rollup.name, 'marker cells'],
    ['catalogRows', s.meta.name, 'catalog rows'],
    ['registryEntries', s.meta.name, 'registry entries'],
  ];
  const byTable = new Map<string, string[]>();
  for (const [key, table, what] of places) if (left[key] > 0) byTable.set(table, [...(byTable.get(table) ?? []), `${left[key]} ${what}`]);
  return [...byTable].map(([table, parts]) => `${table}: ${parts.join(', ')}`).join('; ');
}

function reportLines(r: DeleteReport, s: DeleteSettings, left: Leftovers | null, ms: number): string[] {
  const d = r.deleted;
  const what = s.range === null ? 'all of it' : `[${new Date(s.range.from).toISOString()}, ${new Date(s.range.to).toISOString()})`;
  const lines = [
    `delete ${JSON.stringify(s.id)}, ${what}: ${r.status} in ${(ms / 1000).toFixed(1)} s (${r.unitsResumed} of ${r.units} units done by an earlier run)`,
    `  deleted: ${d.dataRows} data rows, ${d.indexRows} index rows, ${d.summaries} summaries, ${d.markerCells} marker cells, ${d.catalogRows} catalog rows, ${d.registryEntries} registry entries` +
      (s.range === null ? '' : `; ${d.windowsMarked} cut windows marked for the rollup job`),
  ];
  if (left === null) lines.push('  not verified (--no-verify, or the run was interrupted)');
  else if (totalLeft(left) === 0)
    lines.push(
      `  verified: nothing of ${JSON.stringify(s.id)} is left${s.range === null ? '' : ' in the range'} (data, index, summaries, markers${s.range === null ? ', catalog, registry' : ''})`,
    );
  else
    lines.push(
      `  LEFT after the delete, by table: ${leftByTable(s, left)} (rows written for the id during the delete? a rerun removes them, whatever their time)`,
    );
  return lines;
}

export async function deleteCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, OPTIONS);
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0] ?? ''}"; usage: ${DELETE_USAGE}`);
  const id = requiredString(values, 'id');
  try {
    assertDeletableId(id);
  } catch (err) {
    throw new UsageError((err as Error).message, { cause: err });
  }
  const range = rangeOf(values);
  const cfg = configOf(values);
  const tables = tablesOf(cfg);
  const rate = rateFlag(values);
  const concurrency = bounded(values, 'concurrency', 64, 1024);
  const bucketConcurrency = bounded(values, 'buckets', 4, 256);
  const pageRows = bounded(values, 'page', 1000, 10_000);
  const checkpointPath = stringFlag(values, 'checkpoint');
  if (checkpointPath === '') throw new UsageError('--checkpoint needs a file path');
  let settings: DeleteSettings;
  try {
    settings = deleteSettings(cfg, keyspaceOf(cfg), tables, { id, range });
  } catch (err) {
    throw new UsageError((err as Error).message, { cause: err });
  }
  // one socket per delete in flight (up to the pool's bound)
  const rest = createHBaseClient({ ...cfg, hbase: { ...cfg.hbase, connections: Math.min(256, Math.max(cfg.hbase.connections, concurrency)) } }, 'tool');
  const started = Date.now();
  const progress = new DeleteProgress(started);
  const tty = process.stderr.isTTY;
  const timer = setInterval(
    () => {
      const line = `delete ${formatDeleteProgress(progress.snapshot(Date.now()))}`;
      process.stderr.write(tty ? `\r\x1b[2K${line}` : `${line}\n`);
    },
    tty ? 250 : 2000,
  );
  timer.unref();
  try {
    // The key layout over the registry as it is now (the data scans cover every bucket anyway).
    const s: DeleteSettings = { ...settings, keyspace: (await openKeyspace(cfg, tables, rest)).keyspace };
    if (!(await idSeen(rest, s, bucketConcurrency))) {
      clearInterval(timer);
      const ms = Date.now() - started;
      const where = 'no data row in any bucket, no summary, registry entry or catalog row';
      if (values['json'] === true) out(JSON.stringify({ id, range, status: 'never-seen', ms, neverSeen: true, deleted: null, left: null, clean: true }));
      else out(`delete ${JSON.stringify(id)}: id never seen (${where}): nothing to delete (${(ms / 1000).toFixed(1)} s)`);
      return TOOL_EXIT.OK;
    }
    const r = await interruptible((signal) =>
      deleteId(rest, s, {
        pageRows,
        concurrency,
        bucketConcurrency,
        now: Date.now,
        throttle: rate === undefined ? undefined : createThrottle({ ratePerSec: rate, burst: Math.max(rate, pageRows) }),
        checkpoint: checkpointPath === undefined ? undefined : deleteCheckpointFile(checkpointPath),
        signal,
        progress,
      }),
    );
    clearInterval(timer);
    if (tty) process.stderr.write('\n');
    let attempts = 0;
    const again = { baseMs: 500, maxMs: 5000, isRetriable: (err: unknown) => classifyError(err).retriable && ++attempts <= 5 };
    const left = r.status === 'interrupted' || values['no-verify'] === true ? null : await retrying(() => verifyDeleted(rest, s, r.seen), again);
    const ms = Date.now() - started;
    if (values['json'] === true)
      out(
        JSON.stringify({
          id,
          range,
          status: r.status,
          ms,
          units: r.units,
          unitsResumed: r.unitsResumed,
          deleted: r.deleted,
          left,
          leftByTable: left === null || totalLeft(left) === 0 ? null : leftByTable(s, left),
          neverSeen: false,
          clean: left === null ? null : totalLeft(left) === 0,
        }),
      );
    else for (const line of reportLines(r, s, left, ms)) out(line);
    if (r.status === 'interrupted') return TOOL_EXIT.INTERRUPTED;
    return left !== null && totalLeft(left) > 0 ? TOOL_EXIT.FOUND : TOOL_EXIT.OK;
  } finally {
    clearInterval(timer);
    await rest.close();
  }
}
