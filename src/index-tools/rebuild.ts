// `tsingest index rebuild`: first the data buckets (write the index rows, or the qualifiers of them,
// that the data rows call for — same rows as ingest, cell timestamp = event ts, so reruns rewrite the
// same cells), then the index buckets per tag (delete index rows whose data row is gone or no longer
// carries the tag value, and qualifiers naming metrics the data row lacks — only for events older
// than now − grace, so a write in flight is not mistaken for a dangling one). Throttled on rows
// scanned; after every chunk the unit's last key goes to the checkpoint, so a rerun continues.
import { column } from '../hbase/codec.ts';
import type { RowCells } from '../hbase/types.ts';
import { CheckpointError, CheckpointWriter, type CheckpointStore } from '../toolkit/checkpoint-store.ts';
import { runLimited } from '../toolkit/pool.ts';
import type { Throttle } from '../toolkit/throttle.ts';
import type { Checkpoint, UnitPosition } from './index-checkpoint.ts';
import { finished, newCheckpoint, runMismatch, runOf, withUnit } from './index-checkpoint.ts';
import type { Dangling, Missing } from './compare.ts';
import { unitChunks, type IndexStore } from './passes.ts';
import type { ProgressTracker } from './index-progress.ts';
import { dataUnits, indexUnits, type IndexToolSettings, type ScanUnit } from './index-settings.ts';
import { Tally, type Counts, type Samples } from './tally.ts';
import { tallyChunk } from './verify.ts';

export interface RebuildOptions {
  readonly chunkSize: number;
  readonly concurrency: number;
  /** Dangling rows of events newer than now − graceMs are kept (counted, not deleted). */
  readonly graceMs: number;
  readonly sampleSize: number;
  readonly now: () => number;
  /** Takes the rows each chunk scanned; resolves when the run may go on (`--rate`). */
  readonly throttle?: Throttle | undefined;
  readonly checkpoint?: CheckpointStore<Checkpoint> | undefined;
  /** Minimum ms between checkpoint writes within a unit (a finished unit is always written). */
  readonly checkpointEveryMs?: number | undefined;
  /** Deletes run at once per chunk. */
  readonly deleteConcurrency?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly progress?: ProgressTracker | undefined;
}

export type RebuildStatus = 'finished' | 'already_finished' | 'interrupted';

export interface RebuildReport {
  readonly status: RebuildStatus;
  readonly unitsTotal: number;
  /** Units an earlier run (per the checkpoint) had already completed. */
  readonly unitsResumed: number;
  /** What this run found (missing = index rows written, dangling = deleted + kept). */
  readonly found: Readonly<Counts>;
  readonly samples: Samples;
  readonly indexRowsWritten: number;
  readonly danglingDeleted: number;
  readonly danglingKept: number;
}

const EMPTY = Buffer.alloc(0);

/** The run's checkpoint state; its writes spaced out and serialised (CheckpointWriter). */
class CheckpointKeeper {
  #c: Checkpoint;
  readonly #writer: CheckpointWriter<Checkpoint> | undefined;

  constructor(c: Checkpoint, store: CheckpointStore<Checkpoint> | undefined, everyMs: number) {
    this.#c = c;
    this.#writer = store === undefined ? undefined : new CheckpointWriter(store, everyMs);
  }

  get current(): Checkpoint {
    return this.#c;
  }

  /** A finished unit is always written. */
  update(unitId: string, pos: UnitPosition, now: number): Promise<void> {
    this.#c = withUnit(this.#c, unitId, pos, now);
    return this.#write(now, pos.done);
  }

  finish(now: number): Promise<void> {
    this.#c = finished(this.#c, now);
    return this.save(now);
  }

  save(now: number): Promise<void> {
    return this.#write(now, true);
  }

  #write(now: number, force: boolean): Promise<void> {
    return this.#writer?.write(this.#c, now, force) ?? Promise.resolve();
  }
}

function putsOf(missing: readonly Missing[], family: string): RowCells[] {
  return missing.map((m) => ({
    row: m.key,
    cells: m.metrics.map((metric) => ({ column: column(family, metric), value: EMPTY, timestamp: m.entry.ts })),
  }));
}

async function deleteDangling(
  store: IndexStore,
  s: IndexToolSettings,
  list: readonly Dangling[],
  opts: RebuildOptions,
): Promise<{ deleted: number; kept: number }> {
  const cutoff = opts.now() - opts.graceMs;
  const old = list.filter((d) => d.entry.ts < cutoff);
  await runLimited(old, opts.deleteConcurrency ?? 8, async (d) => {
    // Only the stale qualifiers when the tag still matches; the whole row otherwise.
    const columns = d.reason === 'metrics_missing' ? d.extraMetrics.map((m) => column(s.indexFamily, m)) : undefined;
    await store.deleteRow(s.indexTable, d.key, columns === undefined ? {} : { columns });
  });
  return { deleted: old.length, kept: list.length - old.length };
}

export async function rebuildIndex(store: IndexStore, s: IndexToolSettings, opts: RebuildOptions): Promise<RebuildReport> {
  const units: ScanUnit[] = [...dataUnits(s), ...indexUnits(s)];
  const run = runOf(s);
  const saved = (await opts.checkpoint?.load()) ?? null;
  if (saved !== null) {
    const why = runMismatch(saved.run, run);
    if (why !== null)
      throw new CheckpointError(
        'CHECKPOINT_OTHER_RUN',
        `checkpoint ${opts.checkpoint?.where ?? ''} belongs to another run (${why}); use another --checkpoint file or delete it`,
      );
  }
  const keeper = new CheckpointKeeper(saved ?? newCheckpoint(run, opts.now()), opts.checkpoint, opts.checkpointEveryMs ?? 1000);
  const tally = new Tally(opts.sampleSize);
  const acted = { written: 0, deleted: 0, kept: 0 };
  const report = (status: RebuildStatus, resumed: number): RebuildReport => ({
    status,
    unitsTotal: units.length,
    unitsResumed: resumed,
    found: { ...tally.counts },
    samples: tally.samples,
    indexRowsWritten: acted.written,
    danglingDeleted: acted.deleted,
    danglingKept: acted.kept,
  });
  const positions = keeper.current.units;
  const resumed = units.filter((u) => positions[u.id]?.done === true).length;
  if (saved?.finishedAt != null) return report('already_finished', resumed);
  opts.progress?.alreadyDone(resumed);

  const { signal, progress } = opts;
  const work = async (unit: ScanUnit): Promise<void> => {
    let position = keeper.current.units[unit.id]?.after ?? null;
    const after = position === null ? null : Buffer.from(position, 'hex');
    for await (const chunk of unitChunks(store, s, unit, { after, chunkSize: opts.chunkSize })) {
      tallyChunk(tally, chunk);
      let written = 0;
      let deleted = 0;
      if (chunk.missing.length > 0) {
        await store.put(s.indexTable, putsOf(chunk.missing, s.indexFamily));
        written = chunk.missing.length;
      }
      if (chunk.dangling.length > 0) {
        const d = await deleteDangling(store, s, chunk.dangling, opts);
        deleted = d.deleted;
        acted.kept += d.kept;
      }
      acted.written += written;
      acted.deleted += deleted;
      position = chunk.lastKey?.toString('hex') ?? position;
      await keeper.update(unit.id, { done: chunk.done, after: position }, opts.now());
      progress?.add({
        rowsScanned: chunk.scanned,
        indexRowsWritten: written,
        danglingDeleted: deleted,
        dangling: chunk.dangling.length,
        missing: chunk.missing.length,
      });
      progress?.advance(unit.id, chunk.position);
      if (chunk.done) progress?.unitDone(unit.id);
      await opts.throttle?.take(chunk.scanned, signal);
      if (signal?.aborted === true) return;
    }
  };
  // Data buckets first (backfill), then index buckets (prune); each phase with bounded parallelism.
  try {
    for (const phase of [units.filter((u) => u.kind === 'data'), units.filter((u) => u.kind === 'index')]) {
      await runLimited(
        phase.filter((u) => positions[u.id]?.done !== true),
        opts.concurrency,
        work,
        signal,
      );
    }
  } catch (err) {
    // Keep what was completed, so a rerun continues from there.
    await keeper.save(opts.now()).catch(() => undefined);
    throw err;
  }
  if (signal?.aborted === true) {
    await keeper.save(opts.now());
    return report('interrupted', resumed);
  }
  await keeper.finish(opts.now());
  return report('finished', resumed);
}
