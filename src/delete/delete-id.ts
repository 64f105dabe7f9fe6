// `tsingest delete`: removes one id's rows from every place (plan.ts), resumably. Data buckets first,
// a few at once: each page of data rows has its index rows deleted before the rows themselves (so a
// kill never leaves an index row whose data row, the only way to find it, is gone), then the page's
// last key goes to the checkpoint. Then the summaries, the markers (the id's cell only), and for a
// whole-id delete the catalog rows and, last, the registry entry. Every step is a delete of what a
// scan found now, at a timestamp that covers the newest cell found (remove.ts: a future event time
// too), so a rerun is idempotent: it finds less, or nothing. The counts are of rows (marker cells)
// found before the delete and no longer found by a read after it, not of requests answered.
import { column } from '../hbase/codec.ts';
import { rollupWindowFamily, type RollupKeyParts } from '../keys/index.ts';
import { bumpGenerations } from '../rollup/generations.ts';
import type { CheckedDelete } from '../hbase/row-ops.ts';
import type { Row, RowCells } from '../hbase/types.ts';
import { SERIES_RANGE, seriesKeyId } from '../catalog/rows.ts';
import { putRowOf } from '../rollup/fold.ts';
import { markerPuts, stampClock } from '../rollup/marker.ts';
import { trimStoredRow } from '../rollup/expired-source.ts';
import { mayLackSource } from '../rollup/recompute.ts';
import { ENTRY_QUALIFIER, entryRow } from '../spread/rows.ts';
import { RegistryConflictError } from '../spread/store.ts';
import { CheckpointWriter, memoryCheckpointStore, type CheckpointStore } from '../toolkit/checkpoint-store.ts';
import { createLimiter } from '../toolkit/limiter.ts';
import { scanPages, type ScanPort } from '../scans/paged-scan.ts';
import { classifyError } from '../errors.ts';
import { RetryAbortedError, retrying } from '../toolkit/retry.ts';
import { runLimited } from '../toolkit/pool.ts';
import type { Throttle } from '../toolkit/throttle.ts';
import {
  continueRun,
  finishedCheckpoint,
  mergeSeen,
  newDeleteCheckpoint,
  withUnit,
  type DeleteCheckpoint,
  type DeleteUnit,
  type Seen,
} from './delete-checkpoint.ts';
import { dataScans, indexRowsOf, markerAction, markerScan, recomputeMarks, summaryScans, type IndexedValue } from './plan.ts';
import type { DeleteProgress } from './delete-progress.ts';
import { existingRows, removeRows, stampOf, type Doomed, type RemovePort } from './remove.ts';
import { deleteRunOf, type DeleteSettings } from './delete-settings.ts';

/** The HBase calls a delete makes (HBaseRestClient fits). */
export interface DeletePort extends ScanPort, RemovePort {
  put(table: string, rows: readonly RowCells[]): Promise<void>;
  get(table: string, row: Buffer, opts?: { columns?: readonly Buffer[] }): Promise<Row | null>;
  checkAndDelete(table: string, del: CheckedDelete): Promise<boolean>;
}

export interface DeleteOptions {
  /** data rows per page (one checkpoint position each) */
  readonly pageRows: number;
  /** row deletes in flight at once, over all buckets */
  readonly concurrency: number;
  /** data buckets walked at once */
  readonly bucketConcurrency: number;
  readonly now: () => number;
  readonly throttle?: Throttle | undefined;
  readonly checkpoint?: CheckpointStore<DeleteCheckpoint> | undefined;
  readonly checkpointEveryMs?: number | undefined;
  /** retries of a unit that failed on a retriable error (default 8) */
  readonly retries?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly progress?: DeleteProgress | undefined;
}

export type DeleteStatus = 'finished' | 'interrupted';

/** Rows (cells, for markers) of the id per place: what a run deleted, or what the verification found left. */
export interface PlaceCounts {
  dataRows: number;
  indexRows: number;
  summaries: number;
  markerCells: number;
  catalogRows: number;
  registryEntries: number;
}

export interface Deleted extends PlaceCounts {
  /** windows a range delete cut, marked for the rollup job */
  windowsMarked: number;
}

export interface DeleteReport {
  readonly status: DeleteStatus;
  readonly units: number;
  readonly unitsResumed: number;
  readonly deleted: Deleted;
  /** what the deleted rows told over all runs of this checkpoint (the verification's index scans) */
  readonly seen: Seen;
}

/** Unit names besides `data/<bucket>`, in the order they run. */
export const LATE_UNITS = ['rollup/summaries', 'rollup/markers', 'meta/catalog', 'meta/registry'] as const;

/** The units of a run: every data bucket, the rollup units, and the meta units for a whole-id delete. */
export function unitsOf(s: DeleteSettings): string[] {
  const late = s.range === null ? LATE_UNITS : LATE_UNITS.filter((u) => !u.startsWith('meta/'));
  return [...dataScans(s.keyspace, s.id, s.range).map((d) => d.unit), ...late];
}

/** What a page of data rows had: its index values and ts span (null: none). */
interface Found {
  readonly values: readonly IndexedValue[];
  readonly minTs: number | null;
  readonly maxTs: number | null;
}

const NOTHING_FOUND: Found = { values: [], minTs: null, maxTs: null };

class Keeper {
  #c: DeleteCheckpoint;
  readonly #writer: CheckpointWriter<DeleteCheckpoint>;

  constructor(c: DeleteCheckpoint, store: CheckpointStore<DeleteCheckpoint>, everyMs: number) {
    this.#c = c;
    this.#writer = new CheckpointWriter(store, everyMs);
  }

  get current(): DeleteCheckpoint {
    return this.#c;
  }

  update(unit: string, pos: DeleteUnit, found: Found, now: number): Promise<void> {
    this.#c = withUnit(this.#c, { unit, pos, seen: mergeSeen(this.#c.seen, found.values, found.minTs, found.maxTs) }, now);
    return this.#writer.write(this.#c, now, pos.done);
  }

  finish(now: number): Promise<void> {
    this.#c = finishedCheckpoint(this.#c, now);
    return this.#writer.write(this.#c, now, true);
  }

  save(now: number): Promise<void> {
    return this.#writer.write(this.#c, now, true);
  }
}

export async function deleteId(port: DeletePort, s: DeleteSettings, opts: DeleteOptions): Promise<DeleteReport> {
  const store = opts.checkpoint ?? memoryCheckpointStore<DeleteCheckpoint>();
  const saved = continueRun(await store.load(), deleteRunOf(s), store.where, opts.now());
  // A finished checkpoint starts a new pass (rows written since are deleted too); what it saw is kept.
  const start = saved.finishedAt === null ? saved : { ...newDeleteCheckpoint(saved.run, opts.now()), seen: saved.seen };
  const keeper = new Keeper(start, store, opts.checkpointEveryMs ?? 1000);
  const units = unitsOf(s);
  const done = (u: string): boolean => keeper.current.units[u]?.done === true;
  const resumed = units.filter(done).length;
  const deleted: Deleted = { dataRows: 0, indexRows: 0, summaries: 0, markerCells: 0, catalogRows: 0, registryEntries: 0, windowsMarked: 0 };
  const report = (status: DeleteStatus): DeleteReport => ({
    status,
    units: units.length,
    unitsResumed: resumed,
    deleted: { ...deleted },
    seen: keeper.current.seen,
  });
  const { signal, progress } = opts;
  progress?.start(units.length, resumed);
  const remover = { port, limiter: createLimiter(opts.concurrency) };
  const stopped = (): boolean => signal?.aborted === true;

  const dataUnit = async (scan: ReturnType<typeof dataScans>[number]): Promise<void> => {
    const after = keeper.current.units[scan.unit]?.after ?? null;
    const startRow = after === null ? scan.range.startRow : Buffer.concat([Buffer.from(after, 'hex'), Buffer.from([0x00])]);
    let last = after;
    for await (const page of scanPages(port, s.data.name, { startRow, stopRow: scan.range.stopRow, pageRows: opts.pageRows })) {
      const values: IndexedValue[] = [];
      const indexKeys: Buffer[] = [];
      let minTs: number | null = null;
      let maxTs: number | null = null;
      for (const row of page) {
        const r = indexRowsOf(s.keyspace, s.indexTags, row.row, row.cells);
        indexKeys.push(...r.keys);
        values.push(...r.values);
        minTs = Math.min(minTs ?? r.ts, r.ts);
        maxTs = Math.max(maxTs ?? r.ts, r.ts);
      }
      const now = opts.now();
      const indexRemoved = await removeRows(remover, s.index.name, await existingRows(port, s.index.name, indexKeys), now);
      const dataRemoved = await removeRows(remover, s.data.name, page, now);
      deleted.indexRows += indexRemoved;
      deleted.dataRows += dataRemoved;
      last = (page.at(-1) as Row).row.toString('hex');
      await keeper.update(scan.unit, { done: false, after: last }, { values, minTs, maxTs }, opts.now());
      progress?.add({ dataRows: dataRemoved, indexRows: indexRemoved });
      await opts.throttle?.take(page.length, signal);
      if (stopped()) return;
    }
    await keeper.update(scan.unit, { done: true, after: last }, NOTHING_FOUND, opts.now());
    progress?.unitDone();
  };

  const lateUnit: Record<(typeof LATE_UNITS)[number], () => Promise<void>> = {
    'rollup/summaries': async () => {
      for (const range of summaryScans(s.keyspace, s.id, s.windows, s.range)) {
        for await (const page of scanPages(port, s.rollup.name, { ...range, pageRows: opts.pageRows })) {
          const n = await removeRows(remover, s.rollup.name, page, opts.now());
          deleted.summaries += n;
          progress?.add({ summaries: n });
        }
      }
      // the series API's window caches drop this bucket's windows (src/rollup/generations.ts); also
      // on a rerun that found nothing left, in case the run before stopped between its deletes and this
      await bumpGenerations(port, s.meta, [s.keyspace.baseSalt(s.id)]);
    },
    'rollup/markers': async () => {
      const range = markerScan(s.keyspace, s.id);
      for await (const page of scanPages(port, s.rollup.name, { ...range, pageRows: opts.pageRows })) {
        const doomed: Doomed[] = [];
        for (const row of page) {
          const action = markerAction(s, row);
          if (action === null) continue;
          // The id's cell only: the version cell and other ids' cells stay, and the rollup job removes
          // a row left with its version cell alone (docs/ROLLUPS.md).
          if (action.kind === 'row') doomed.push(row);
          else {
            const columns = [column(s.rollup.family, action.qualifier)];
            doomed.push({ row: row.row, cells: row.cells.filter((c) => c.qualifier.equals(action.qualifier)), columns });
          }
        }
        deleted.markerCells += await removeRows(remover, s.rollup.name, doomed, opts.now());
        progress?.add({ markers: page.length });
      }
      if (s.range !== null) await markCutWindows(port, s, deleted, opts.now());
    },
    'meta/catalog': async () => {
      for await (const page of scanPages(port, s.meta.name, { ...SERIES_RANGE, pageRows: opts.pageRows, columns: [column(s.meta.family, 't')] })) {
        const own = page.filter((r) => seriesKeyId(r.row) === s.id);
        deleted.catalogRows += await removeRows(remover, s.meta.name, own, opts.now());
      }
    },
    'meta/registry': async () => {
      const n = await deleteEntry(port, s);
      deleted.registryEntries += n;
    },
  };

  // A unit that fails on a retriable error (a gateway answering 503, a deadline) runs again from its
  // checkpoint position, a few times with backoff: every step is idempotent.
  const again = (unit: () => Promise<void>): Promise<void> => {
    let attempts = 0;
    const isRetriable = (err: unknown): boolean => classifyError(err).retriable && ++attempts <= (opts.retries ?? 8);
    return retrying(unit, { baseMs: 250, maxMs: 5000, isRetriable, signal });
  };
  try {
    await runLimited(
      dataScans(s.keyspace, s.id, s.range).filter((d) => !done(d.unit)),
      opts.bucketConcurrency,
      (d) => again(() => dataUnit(d)),
      signal,
    );
    for (const unit of LATE_UNITS) {
      if (stopped() || !units.includes(unit) || done(unit)) continue;
      await again(lateUnit[unit]);
      await keeper.update(unit, { done: true, after: null }, NOTHING_FOUND, opts.now());
      progress?.unitDone();
    }
  } catch (err) {
    await keeper.save(opts.now()).catch(() => undefined);
    if (!(err instanceof RetryAbortedError)) throw err;
  }
  if (stopped()) {
    await keeper.save(opts.now());
    return report('interrupted');
  }
  await keeper.finish(opts.now());
  return report('finished');
}

/** A range delete leaves the windows it cuts marked, so the rollup job recomputes them from the rows left. */
async function markCutWindows(port: DeletePort, s: DeleteSettings, deleted: Deleted, now: number): Promise<void> {
  if (s.range === null) return;
  const marks = recomputeMarks(s.id, s.windows, s.range);
  for (const m of marks) await trimCutWindow(port, s, m, now);
  const rows = markerPuts(marks, { keyspace: s.keyspace, family: s.rollup.family, stamp: stampClock()() }).map((m) => putRowOf(m.row));
  if (rows.length > 0) await port.put(s.rollup.name, rows);
  deleted.windowsMarked += marks.length;
}

/**
 * A cut window whose source may have lost points to a TTL keeps its long-term copy in its stored
 * blocks, which the job's recompute unions its source with: their points in the range go first
 * (expired-source.ts), so nothing deleted comes back.
 */
async function trimCutWindow(port: DeletePort, s: DeleteSettings, m: RollupKeyParts, now: number): Promise<void> {
  const blocks = s.blocks ?? null;
  if (blocks === null || s.range === null) return;
  const w = { id: m.id, windowSec: m.windowSec, start: m.windowStart };
  if (!mayLackSource({ windows: s.windows, retention: s.retention, blocks }, w, now)) return;
  const key = s.keyspace.rollupKey(m);
  const row = await port.get(s.rollup.name, key);
  if (row === null) return;
  const at = { start: m.windowStart, ms: m.windowSec * 1000, family: rollupWindowFamily(m.windowSec), mainFamily: s.rollup.family };
  const timestamp = stampOf(now, row.cells) + 1;
  const trimmed = trimStoredRow({ key, cells: row.cells }, at, blocks, { ...s.range, timestamp });
  if (trimmed.put !== undefined) await port.put(s.rollup.name, [trimmed.put]);
  if (trimmed.drop.length > 0) await port.deleteRow(s.rollup.name, key, { columns: trimmed.drop, timestamp });
}

/** Deletes the id's registry entry with a check on the bytes read (a promotion in between is read again). */
async function deleteEntry(port: DeletePort, s: DeleteSettings): Promise<number> {
  const col = column(s.meta.family, ENTRY_QUALIFIER);
  for (let attempt = 0; attempt < 10; attempt++) {
    const row = await port.get(s.meta.name, entryRow(s.id), { columns: [col] });
    const cell = row?.cells.find((c) => c.column.equals(col));
    if (cell === undefined) return 0;
    if (await port.checkAndDelete(s.meta.name, { row: entryRow(s.id), check: { column: col, value: cell.value } })) {
      const after = await port.get(s.meta.name, entryRow(s.id), { columns: [col] });
      return after?.cells.some((c) => c.column.equals(col)) === true ? 0 : 1;
    }
  }
  throw new RegistryConflictError(
    `the spread registry entry of ${JSON.stringify(s.id)} kept changing under 10 check-and-delete attempts; run the delete again`,
  );
}
