/**
 * One rollup job run: per window size, finest first, the closed marker rows of every salt bucket read
 * a page at a time and their windows recomputed in batches (docs/ROLLUPS.md, "The job").
 * Design notes: docs/DECISIONS.md#one-job-run
 */
import type { Logger } from 'pino';
import type { RollupErrorStage, RollupMeters } from './meters.ts';
import { scanPages } from '../scans/paged-scan.ts';
import { createLimiter, type Limiter } from '../toolkit/limiter.ts';
import { runLimited } from '../toolkit/pool.ts';
import { recomputeBatch } from './batch.ts';
import { stampClock } from './marker.ts';
import type { BucketOwnership } from './ownership.ts';
import { closedMarkerRange, lagSeconds, parseMarkerRow, type FoundMarker, type FoundMarkerRow } from './plan.ts';
import { RollupStageError, removeMarkerRow, type RecomputeContext, type RecomputeOutcome } from './recompute.ts';
import type { RollupSettings } from './rollup-settings.ts';
import { bucketRuns, formatRunReport, type RunReport, type SizeReport } from './run-report.ts';
import type { RollupStore } from './store.ts';
import type { WindowSize } from './windows.ts';

/** Per-window requests (single recomputes, marker row deletes) in flight per unit of rollup.concurrency. */
export const REQUESTS_PER_SLOT = 4;
/** Marker scans: cells per HTTP response, and (partial) rows per response, so wide rows stay bounded. */
const MARKER_SCAN_BATCH = 1000;
const MARKER_FETCH_ROWS = 16;

function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/** A marker row being worked on: removed once its last taken window is done, unless one failed. */
interface RowWork {
  readonly row: FoundMarkerRow;
  /** delete the family up to this timestamp: every cell taken, none of the settling ones */
  readonly upTo: number;
  readonly taken: number;
  open: number;
  failed: boolean;
}

/** One size's pass (#runSize): its size, its report, and where it notes a window left for the next run. */
interface SizeRun {
  readonly w: WindowSize;
  readonly rep: SizeReport;
  readonly left: (start: number) => void;
}

export interface RollupJobOptions {
  readonly store: RollupStore;
  readonly settings: RollupSettings;
  readonly metrics: RollupMeters;
  readonly log: Logger;
  readonly now?: () => number;
  /** the buckets this runner works on (every bucket when omitted); asked per bucket and per page */
  readonly ownership?: BucketOwnership | undefined;
}

export class RollupJob {
  readonly #o: RollupJobOptions;
  readonly #now: () => number;
  readonly #ctx: RecomputeContext;
  /** marker deletes and single-window recomputes in flight over the whole run */
  readonly #limiter: Limiter;

  constructor(options: RollupJobOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#ctx = { store: options.store, settings: options.settings, now: this.#now, stamp: stampClock(this.#now) };
    this.#limiter = createLimiter(options.settings.concurrency * REQUESTS_PER_SLOT);
  }

  /** Owned buckets now (every bucket without an ownership), reported as tsingest_rollup_bucket_owned. */
  #ownedBuckets(): number[] {
    const { settings: s, metrics, ownership } = this.#o;
    const owned = ownership?.owned();
    const all = s.keyspace.allBuckets();
    for (const b of all) metrics.rollupBucketOwned.set({ bucket: String(b) }, owned === undefined || owned.has(b) ? 1 : 0);
    return owned === undefined ? [...all] : all.filter((b) => owned.has(b));
  }

  /** the signal of the run under way (one at a time: the scheduler never overlaps runs) */
  #signal: AbortSignal | undefined;

  #owns(bucket: number): boolean {
    return this.#o.ownership?.owned().has(bucket) ?? true;
  }

  async run(signal?: AbortSignal): Promise<RunReport> {
    this.#signal = signal;
    const { metrics, settings, log } = this.#o;
    const startedAt = this.#now();
    const buckets = this.#ownedBuckets();
    metrics.rollupBucketsWorked.set(buckets.length);
    const stop = metrics.rollupRunDuration.startTimer();
    const lagKnown = await this.#measureLag(startedAt, buckets);
    const sizes: SizeReport[] = [];
    for (const w of settings.windows) {
      if (signal?.aborted === true) break;
      sizes.push(await this.#runSize(w, buckets, lagKnown, signal));
    }
    stop();
    const sum = (k: 'written' | 'remarked' | 'errors'): number => sizes.reduce((n, s) => n + s[k], 0);
    const errors = sum('errors') + (lagKnown.size < settings.windows.length ? 1 : 0);
    const aborted = signal?.aborted === true;
    const report: RunReport = {
      startedAt,
      durationMs: this.#now() - startedAt,
      buckets,
      saltBuckets: settings.keyspace.allBuckets().length,
      sizes,
      written: sum('written'),
      remarked: sum('remarked'),
      errors,
      aborted,
      ok: errors === 0 && !aborted,
    };
    metrics.rollupRuns.inc({ outcome: errors === 0 ? 'ok' : 'error' });
    const level = errors > 0 ? 'warn' : report.written + report.remarked > 0 ? 'info' : 'debug';
    log[level]({ buckets: bucketRuns(buckets), sizes, durationMs: report.durationMs, aborted }, formatRunReport(report));
    return report;
  }

  #error(stage: RollupErrorStage, err: unknown, what: Record<string, unknown>): void {
    this.#o.metrics.rollupErrors.inc({ stage });
    // After a stop, calls still in flight fail as the HBase client closes: one per window of the
    // batch, all for the same reason, which the run's closing line (aborted) already says.
    const level = isAborted(this.#signal) ? 'debug' : 'warn';
    this.#o.log[level]({ err, stage, ...what }, 'rollup error (left for the next run)');
  }

  /** Lag at the start of the run: the oldest closed marker of each size (one 1-row scan per owned bucket). */
  async #measureLag(now: number, buckets: readonly number[]): Promise<Set<string>> {
    const { store, settings: s, metrics } = this.#o;
    const known = new Set<string>();
    const mine = new Set(buckets);
    for (const w of s.windows) {
      for (const b of s.keyspace.allBuckets()) if (!mine.has(b)) metrics.rollupBucketLag.remove({ window: w.name, bucket: String(b) });
      let oldest: number | undefined;
      const scan = { failed: false };
      await runLimited(buckets, s.concurrency, async (salt) => {
        try {
          let first: number | undefined;
          // only the key matters: the first cell of the first row (a marker row may be wide)
          for await (const row of store.scan(s.rollupTable, {
            ...closedMarkerRange(salt, w, now, s),
            limit: 1,
            filter: { type: 'FirstKeyOnlyFilter' },
          })) {
            first = s.keyspace.decodeMarkerKey(row.row).windowStart;
          }
          if (first !== undefined) oldest = Math.min(oldest ?? Infinity, first);
          metrics.rollupBucketLag.set({ window: w.name, bucket: String(salt) }, lagSeconds(now, first, w));
        } catch (err) {
          scan.failed = true;
          this.#error('scan_markers', err, { window: w.name, salt });
        }
      });
      if (!scan.failed) {
        known.add(w.name);
        metrics.rollupLag.set({ window: w.name }, lagSeconds(now, oldest, w));
      }
    }
    return known;
  }

  async #runSize(w: WindowSize, buckets: readonly number[], lagKnown: ReadonlySet<string>, signal: AbortSignal | undefined): Promise<SizeReport> {
    const { store, settings: s, metrics, log } = this.#o;
    const now = this.#now();
    const rep: SizeReport = { window: w.name, pending: 0, settling: 0, written: 0, empty: 0, remarked: 0, errors: 0 };
    let oldestLeft: number | undefined;
    const left = (start: number): void => {
      oldestLeft = Math.min(oldestLeft ?? Infinity, start);
    };
    const run: SizeRun = { w, rep, left };
    let complete = lagKnown.has(w.name);
    // Ingest marks only the finest size and skips re-marks for the settle period (src/ingest/rollup-marks.ts):
    // its mark is taken only once it is that old. Coarser marks are the job's own.
    const settleMs = w === s.windows[0] ? s.markerSettleMs : 0;
    const cutoff = settleMs > 0 ? now - settleMs : Infinity;
    // batches' single windows in flight (at most rollup.concurrency), and marker row deletes
    const outstanding = new Set<Promise<void>>();
    const removals = new Set<Promise<void>>();
    const track = (set: Set<Promise<void>>, p: Promise<void>): void => {
      set.add(p);
      void p.then(() => set.delete(p));
    };
    const finish = (work: RowWork): void => {
      track(removals, this.#remove(run, work));
    };
    const range = (salt: number): ReturnType<typeof closedMarkerRange> => closedMarkerRange(salt, w, now, s);
    await runLimited(buckets, s.concurrency, async (salt) => {
      try {
        const pages = scanPages(store, s.rollupTable, {
          ...range(salt),
          pageRows: s.pageRows,
          pageCells: s.pageRows,
          rowsPerFetch: MARKER_FETCH_ROWS,
          batch: MARKER_SCAN_BATCH,
        });
        for await (const page of pages) {
          // stopped, or the bucket moved to another owner (it takes the rest; what is in flight finishes)
          if (signal?.aborted === true || !this.#owns(salt)) {
            complete = false;
            return;
          }
          const windows: FoundMarker[] = [];
          const rowOf = new Map<FoundMarker, RowWork>();
          for (const r of page) {
            const work = this.#take(run, r, cutoff);
            if (work === undefined) continue;
            if (work.taken === 0) finish(work);
            for (const m of work.row.windows)
              if (m.stamp <= cutoff) {
                windows.push(m);
                rowOf.set(m, work);
              }
          }
          for (let i = 0; i < windows.length; i += s.pageRows) {
            while (outstanding.size >= s.concurrency) await Promise.race(outstanding);
            // stopped: no next batch (a wide marker row makes a page of many batches); the rows not
            // finished keep their markers for the next run (asked again: the signal may fire meanwhile)
            if (isAborted(signal)) {
              complete = false;
              return;
            }
            const { rest } = await recomputeBatch(this.#ctx, windows.slice(i, i + s.pageRows), {
              limiter: this.#limiter,
              done: (m, out) => {
                this.#count(run, m, out);
                const work = rowOf.get(m) as RowWork;
                if ('error' in out) work.failed = true;
                if (--work.open === 0) finish(work);
              },
              onBatchError: (err, n) => {
                log.warn({ err, window: w.name, salt, windows: n }, 'rollup batch failed: its windows are redone one by one');
              },
            });
            track(outstanding, rest);
          }
        }
      } catch (err) {
        complete = false;
        rep.errors++;
        this.#error('scan_markers', err, { window: w.name, salt });
      }
    });
    // every row of this size is settled before the next size reads the cascade markers
    while (outstanding.size + removals.size > 0) await Promise.all([...outstanding, ...removals]);
    metrics.rollupPendingMarkers.set({ window: w.name }, rep.pending);
    if (complete) metrics.rollupLag.set({ window: w.name }, lagSeconds(this.#now(), oldestLeft, w));
    return rep;
  }

  /** A marker row as read → the work on it (what is taken, what to delete up to); undefined: nothing to do. */
  #take(
    run: SizeRun,
    r: { readonly row: Buffer; readonly cells: readonly { qualifier: Buffer; value: Buffer; timestamp: number }[] },
    cutoff: number,
  ): RowWork | undefined {
    const { w, rep, left } = run;
    let row: FoundMarkerRow | undefined;
    try {
      row = parseMarkerRow(r.row, r.cells, this.#o.settings.keyspace);
    } catch (err) {
      rep.errors++;
      this.#error('scan_markers', err, { window: w.name, row: r.row.toString('hex') });
      return undefined;
    }
    if (row === undefined) return undefined;
    let taken = 0;
    let newestTaken = -Infinity;
    for (const m of row.windows) {
      if (m.stamp > cutoff) continue;
      taken++;
      newestTaken = Math.max(newestTaken, m.stamp);
    }
    const settling = row.windows.length - taken;
    rep.pending += row.windows.length;
    rep.settling += settling;
    if (settling > 0) {
      left(row.windows[0]?.parts.windowStart ?? 0);
      // nothing ready: the row waits whole for a later run
      if (taken === 0) return undefined;
    }
    // (a row with no window at all, only its version cell, is removed as it is)
    return { row, upTo: settling === 0 ? row.newest : newestTaken, taken, open: taken, failed: false };
  }

  /** Deletes a row whose windows are all done (checked: false = re-marked since the read; its windows are counted re-marked and left for the next run). */
  async #remove(run: SizeRun, work: RowWork): Promise<void> {
    const { w, rep, left } = run;
    const start = work.row.windows[0]?.parts.windowStart;
    const keep = (): void => {
      if (start !== undefined) left(start);
    };
    if (work.failed) {
      keep(); // a window of it failed (counted): the row stays, the next run redoes it
      return;
    }
    try {
      const deleted = await this.#limiter.run(() => removeMarkerRow(this.#ctx, work.row, work.upTo));
      if (deleted) return;
      rep.remarked += work.taken;
      this.#o.metrics.rollupMarkersRemarked.inc({ window: w.name }, work.taken);
      keep();
    } catch (err) {
      rep.errors++;
      keep();
      this.#error('delete_marker', err, { window: w.name, row: work.row.key.toString('hex') });
    }
  }

  #count(run: SizeRun, m: FoundMarker, out: RecomputeOutcome | { readonly error: unknown }): void {
    const { w, rep, left } = run;
    const { metrics } = this.#o;
    if ('error' in out) {
      rep.errors++;
      left(m.parts.windowStart);
      const err = out.error;
      this.#error(err instanceof RollupStageError ? err.stage : 'compute', err, { window: w.name, id: m.parts.id, windowStart: m.parts.windowStart });
      return;
    }
    if (out.written) {
      rep.written++;
      metrics.rollupWindowsWritten.inc({ window: w.name });
    } else {
      rep.empty++;
    }
  }
}
