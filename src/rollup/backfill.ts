/**
 * Backfill: the summaries of every window overlapping [from, to) computed directly from the data
 * table (docs/ROLLUPS.md, "Backfill"). Resumable, throttled.
 * Design notes: docs/DECISIONS.md#rollup-backfill
 */
import type { ScanRange } from '../keys/index.ts';
import type { TimeRange } from '../hbase/index.ts';
import { CheckpointError, CheckpointWriter, identityDiff, memoryCheckpointStore, type CheckpointStore } from '../toolkit/checkpoint-store.ts';
import { mergedRows } from '../scans/merged-scan.ts';
import { pagesOf, scanPages } from '../scans/paged-scan.ts';
import { UNTHROTTLED, type Throttle } from '../toolkit/throttle.ts';
import { backfillIdentity, idWindowRows } from './backfill-plan.ts';
import type { Checkpoint } from './rollup-checkpoint.ts';
import { wholeWindows } from './plan.ts';
import { EXPIRY_MARGIN_MS, sourceMayLack } from './expired-source.ts';
import { InputError } from '../errors.ts';
import { keyFraction, type BackfillProgress } from './rollup-progress.ts';
import type { RollupSettings } from './rollup-settings.ts';
import type { RollupStore } from './store.ts';
import { WindowContent } from './window-content.ts';
import { putWindowRows } from './generations.ts';
import { windowStartOf, type WindowSize } from './windows.ts';

export interface BackfillParams {
  readonly from: number;
  readonly to: number;
  /** omitted or empty: every id (one scan per salt bucket) */
  readonly ids?: readonly string[] | undefined;
}

export interface BackfillOptions {
  readonly store: RollupStore;
  readonly settings: RollupSettings;
  readonly params: BackfillParams;
  readonly checkpoint?: CheckpointStore<Checkpoint> | undefined;
  readonly throttle?: Throttle | undefined;
  readonly onProgress?: ((p: BackfillProgress) => void) | undefined;
  /** after each id's summaries are written (tests use it to stop a run part-way) */
  readonly onIdDone?: ((id: string) => void) | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly now?: (() => number) | undefined;
}

export interface BackfillResult {
  readonly from: number;
  readonly to: number;
  /** [from, to) had to grow to whole windows of the coarsest size */
  readonly widened: boolean;
  readonly status: 'finished' | 'already_finished' | 'aborted';
  readonly resumed: boolean;
  /** over every run of this checkpoint */
  readonly rowsScanned: number;
  readonly windowsWritten: number;
  /** windows written by this run, per size name */
  readonly written: Readonly<Record<string, number>>;
  readonly idsDone: number;
  readonly durationMs: number;
}

const SAVE_EVERY_MS = 1000;
const PUT_ROWS = 200;

/**
 * The finest windows of one id being read, within one window of the coarsest size at a time: rows
 * come newest first, so when a row of an older coarsest window arrives the windows held are complete
 * and are written (memory holds one coarsest window of one id, point blocks included).
 */
class IdWindows {
  readonly fine = new Map<number, WindowContent>();
  readonly id: string;
  /** when reading this id's rows started: the summary cell timestamp */
  readonly readAt: number;
  /** start of the coarsest window the held windows are in */
  coarse: number | undefined;

  constructor(id: string, readAt: number) {
    this.id = id;
    this.readAt = readAt;
  }
}

export async function runBackfill(o: BackfillOptions): Promise<BackfillResult> {
  return new Backfill(o).run();
}

class Backfill {
  readonly #o: BackfillOptions;
  readonly #s: RollupSettings;
  readonly #now: () => number;
  readonly #finest: WindowSize;
  readonly #coarsest: WindowSize;
  readonly #range: { from: number; to: number };
  readonly #ids: readonly string[] | undefined;
  /** bucket mode: the spread ids (their own units after the buckets; bucket scans skip their rows) */
  readonly #spreadIds: readonly string[];
  readonly #cp: CheckpointStore<Checkpoint>;
  readonly #writer: CheckpointWriter<Checkpoint>;
  readonly #throttle: Throttle;
  #state!: Checkpoint;
  readonly #written: Record<string, number> = {};
  #idsDone = 0;
  #rowsThisRun = 0;
  #startedAt = 0;
  #startFraction = 0;

  constructor(o: BackfillOptions) {
    this.#o = o;
    this.#s = o.settings;
    this.#now = o.now ?? Date.now;
    this.#finest = o.settings.windows[0] as WindowSize;
    const coarsest = o.settings.windows[o.settings.windows.length - 1] as WindowSize;
    this.#coarsest = coarsest;
    this.#range = wholeWindows(o.params.from, o.params.to, coarsest);
    const ids = o.params.ids === undefined || o.params.ids.length === 0 ? undefined : [...new Set(o.params.ids)];
    this.#ids = ids;
    this.#spreadIds = ids === undefined ? this.#s.keyspace.spreadIdsBefore(this.#range.to) : [];
    this.#cp = o.checkpoint ?? memoryCheckpointStore<Checkpoint>();
    this.#writer = new CheckpointWriter(this.#cp, SAVE_EVERY_MS);
    this.#throttle = o.throttle ?? UNTHROTTLED;
    for (const w of o.settings.windows) this.#written[w.name] = 0;
  }

  /**
   * A backfill rewrites each window from its raw rows alone: before the raw rows' retention that would
   * turn a window whose stored blocks hold every point into what is left (expired-source.ts), so such
   * a range is refused, naming the earliest start it may have.
   */
  #refuseExpired(): void {
    const r = this.#s.retention;
    if (this.#s.blocks === null || r?.rawTtlMs === null || r === undefined) return;
    if (!sourceMayLack(r, true, this.#range.from, this.#startedAt)) return;
    const size = this.#coarsest.ms;
    const earliest = Math.ceil((this.#startedAt - r.rawTtlMs + EXPIRY_MARGIN_MS) / size) * size;
    throw new InputError(
      `--from: the backfill's first window (${new Date(this.#range.from).toISOString()}) starts before the raw rows' retention (tables.data.ttlSeconds = ${r.rawTtlMs / 1000} s) reaches back; its stored blocks are the long-term copy and a backfill would rewrite it from the rows left. Start at or after ${new Date(earliest).toISOString()}`,
      { field: '--from' },
    );
  }

  get #units(): number {
    return this.#ids === undefined ? this.#s.keyspace.buckets + this.#spreadIds.length : this.#ids.length;
  }

  /** The id a unit stands for (id mode, or a spread id after the buckets); undefined for a bucket. */
  #idOfUnit(unit: number): string | undefined {
    return this.#ids === undefined ? this.#spreadIds[unit - this.#s.keyspace.buckets] : this.#ids[unit];
  }

  async run(): Promise<BackfillResult> {
    this.#startedAt = this.#now();
    this.#refuseExpired();
    const identity = backfillIdentity(this.#s, this.#range, this.#ids, this.#spreadIds);
    const saved = await this.#cp.load();
    if (saved !== undefined) {
      const d = identityDiff(saved.identity, identity);
      if (d !== undefined) {
        const diff = `${d.field}: checkpoint ${d.saved ?? 'absent'} ≠ now ${d.now ?? 'absent'}`;
        throw new CheckpointError(
          'CHECKPOINT_OTHER_RUN',
          `--checkpoint ${this.#cp.where} belongs to a backfill with other parameters (${diff}); use another file or remove it`,
        );
      }
    }
    const resumed = saved !== undefined;
    this.#state = saved ?? {
      version: 1,
      identity,
      unit: 0,
      lastId: null,
      finished: false,
      rowsScanned: 0,
      windowsWritten: 0,
      updatedAt: new Date(this.#startedAt).toISOString(),
    };
    if (this.#state.finished) return this.#result('already_finished', resumed);
    this.#startFraction = this.#state.unit / this.#units;
    let completed = true;
    while (completed && this.#state.unit < this.#units) {
      const id = this.#idOfUnit(this.#state.unit);
      // id mode: a checkpoint taken right after the id's summaries were written names it as lastId
      if (id !== undefined && this.#state.lastId === id) completed = true;
      else completed = id === undefined ? await this.#bucket(this.#state.unit) : await this.#id(this.#state.unit, id);
      if (completed) this.#state = { ...this.#state, unit: this.#state.unit + 1, lastId: null };
    }
    if (completed) this.#state = { ...this.#state, finished: true };
    await this.#save(true);
    return this.#result(completed ? 'finished' : 'aborted', resumed);
  }

  #result(status: BackfillResult['status'], resumed: boolean): BackfillResult {
    const { from, to } = this.#range;
    return {
      from,
      to,
      widened: from !== this.#o.params.from || to !== this.#o.params.to,
      status,
      resumed,
      rowsScanned: this.#state.rowsScanned,
      windowsWritten: this.#state.windowsWritten,
      written: { ...this.#written },
      idsDone: this.#idsDone,
      durationMs: this.#now() - this.#startedAt,
    };
  }

  #bucket(salt: number): Promise<boolean> {
    const { keyspace } = this.#s;
    const whole = keyspace.bucketRange(salt);
    const range = this.#state.lastId === null ? whole : keyspace.bucketRangeAfter(salt, this.#state.lastId);
    const skip = new Set(this.#spreadIds);
    const scan = { ranges: [range], timeRange: { from: this.#range.from, to: this.#range.to }, skip };
    return this.#stream(salt, scan, (key) => keyFraction(key, whole.startRow, whole.stopRow));
  }

  #id(index: number, id: string): Promise<boolean> {
    const { from, to } = this.#range;
    const ranges = this.#s.keyspace.dataRanges(id, from, to - 1).map((b) => b.range);
    // Newest first: the position is how far back from `to` the scan got.
    return this.#stream(index, { ranges }, (_key, ts) => (to - ts) / (to - from));
  }

  /** Streams one unit's rows; false when aborted (the id in progress is dropped, redone on resume). */
  async #stream(
    unit: number,
    scan: { readonly ranges: readonly ScanRange[]; readonly timeRange?: TimeRange; readonly skip?: ReadonlySet<string> },
    where: (key: Buffer, ts: number) => number,
  ): Promise<boolean> {
    const { ranges, timeRange, skip } = scan;
    const { signal } = this.#o;
    const { keyspace } = this.#s;
    let cur: IdWindows | undefined;
    let readAt = this.#now();
    const pages =
      ranges.length === 1
        ? scanPages(this.#o.store, this.#s.dataTable, {
            ...(ranges[0] as ScanRange),
            pageRows: this.#s.pageRows,
            batch: 1000,
            ...(timeRange === undefined ? {} : { timeRange }),
          })
        : pagesOf(mergedRows(this.#o.store, this.#s.dataTable, ranges, { saltBytes: keyspace.dataSaltBytes, shape: { batch: 1000 } }), this.#s.pageRows);
    for await (const page of pages) {
      for (const row of page) {
        await this.#throttle.take(1, signal);
        if (signal?.aborted === true) return false;
        const k = keyspace.decodeDataKey(row.row);
        if (skip?.has(k.id) === true) continue;
        if (cur?.id !== k.id) {
          if (cur !== undefined) await this.#finishId(unit, cur);
          cur = new IdWindows(k.id, readAt);
        }
        const coarse = windowStartOf(k.ts, this.#coarsest);
        if (cur.coarse !== coarse) {
          await this.#writeWindows(cur);
          cur.coarse = coarse;
        }
        const start = windowStartOf(k.ts, this.#finest);
        let acc = cur.fine.get(start);
        if (acc === undefined) cur.fine.set(start, (acc = new WindowContent(this.#s.blocks)));
        acc.addDataRow(k.ts, row.cells);
        this.#rowsThisRun++;
        this.#state = { ...this.#state, rowsScanned: this.#state.rowsScanned + 1 };
        if (this.#rowsThisRun % 100 === 0) this.#progress(unit, where(row.row, k.ts));
      }
      readAt = this.#now();
    }
    if (cur !== undefined) await this.#finishId(unit, cur);
    this.#progress(unit + 1, 0);
    return true;
  }

  /** Writes the windows held (one coarsest window of the id) and lets them go. */
  async #writeWindows(w: IdWindows): Promise<void> {
    if (w.fine.size === 0) return;
    const { rows, counts } = idWindowRows(w.id, w.fine, this.#s, w.readAt);
    w.fine.clear();
    for (let i = 0; i < rows.length; i += PUT_ROWS) await putWindowRows(this.#o.store, this.#s, rows.slice(i, i + PUT_ROWS));
    this.#s.windows.forEach((size, i) => {
      this.#written[size.name] = (this.#written[size.name] ?? 0) + (counts[i] ?? 0);
    });
    this.#state = { ...this.#state, windowsWritten: this.#state.windowsWritten + rows.length };
  }

  async #finishId(unit: number, w: IdWindows): Promise<void> {
    await this.#writeWindows(w);
    this.#idsDone++;
    this.#state = { ...this.#state, unit, lastId: w.id };
    await this.#save(false);
    this.#o.onIdDone?.(w.id);
  }

  #progress(unitsDone: number, unitFraction: number): void {
    this.#o.onProgress?.({
      rowsScanned: this.#state.rowsScanned,
      windowsWritten: this.#state.windowsWritten,
      unitsDone,
      unitsTotal: this.#units,
      unitFraction,
      elapsedMs: this.#now() - this.#startedAt,
      rowsThisRun: this.#rowsThisRun,
      startFraction: this.#startFraction,
    });
  }

  async #save(force: boolean): Promise<void> {
    const now = this.#now();
    this.#state = { ...this.#state, updatedAt: new Date(now).toISOString() };
    await this.#writer.write(this.#state, now, force);
  }
}
