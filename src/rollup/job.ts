/**
 * One rollup job run: for each window size, finest first, the closed markers of every salt bucket
 * (bucket scans in parallel, at most `rollup.concurrency` at once, oldest window first) are read a
 * page at a time and each page is recomputed as one batch (batch.ts: one scan of the windows'
 * sources, one put, then one check-and-delete per marker, REQUESTS_PER_SLOT × rollup.concurrency in
 * flight over the run). A bucket reads its next page while the deletes of its last batch run (at most
 * rollup.concurrency batches' deletes outstanding); a size ends when all its deletes are done. A failing window never stops the others: it is counted by stage, its marker
 * stays, and the next run redoes it. Safe to run on several instances at once and to kill at any
 * point (docs/ROLLUPS.md).
 */
import type { Logger } from 'pino';
import type { ReadMetrics, RollupErrorStage } from '../metrics/read-metrics.ts';
import { scanPages } from '../walk/paged-scan.ts';
import { createLimiter, type Limiter } from '../walk/limiter.ts';
import { runLimited } from '../walk/pool.ts';
import { recomputeBatch } from './batch.ts';
import { stampClock } from './marker.ts';
import { closedMarkerRange, lagSeconds, parseMarker, type FoundMarker } from './plan.ts';
import { RollupStageError, type RecomputeContext, type RecomputeOutcome } from './recompute.ts';
import type { RollupSettings } from './settings.ts';
import type { RollupStore } from './store.ts';
import type { WindowSize } from './windows.ts';

/** Per-window requests (marker deletes) in flight per unit of rollup.concurrency. */
export const REQUESTS_PER_SLOT = 4;

export interface SizeReport {
  readonly window: string;
  /** closed markers found */
  pending: number;
  /** of those, ingest markers younger than rollup.markerSettleMs: left for a later run */
  settling: number;
  /** summary rows written */
  written: number;
  /** windows without data (nothing written, marker removed) */
  empty: number;
  superseded: number;
  errors: number;
}

export interface RunReport {
  readonly startedAt: number;
  readonly durationMs: number;
  readonly sizes: readonly SizeReport[];
  readonly written: number;
  readonly superseded: number;
  readonly errors: number;
  /** stopped early by the AbortSignal (markers left for the next run) */
  readonly aborted: boolean;
  /** no errors and not aborted */
  readonly ok: boolean;
}

export interface RollupJobOptions {
  readonly store: RollupStore;
  readonly settings: RollupSettings;
  readonly metrics: ReadMetrics;
  readonly log: Logger;
  readonly now?: () => number;
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

  async run(signal?: AbortSignal): Promise<RunReport> {
    const { metrics, settings, log } = this.#o;
    const startedAt = this.#now();
    const stop = metrics.rollupRunDuration.startTimer();
    const lagKnown = await this.#measureLag(startedAt);
    const sizes: SizeReport[] = [];
    for (const w of settings.windows) {
      if (signal?.aborted === true) break;
      sizes.push(await this.#runSize(w, lagKnown, signal));
    }
    stop();
    const sum = (k: 'written' | 'superseded' | 'errors'): number => sizes.reduce((n, s) => n + s[k], 0);
    const errors = sum('errors') + (lagKnown.size < settings.windows.length ? 1 : 0);
    const aborted = signal?.aborted === true;
    const report: RunReport = { startedAt, durationMs: this.#now() - startedAt, sizes, written: sum('written'), superseded: sum('superseded'), errors, aborted, ok: errors === 0 && !aborted };
    metrics.rollupRuns.inc({ outcome: errors === 0 ? 'ok' : 'error' });
    const level = errors > 0 ? 'warn' : report.written + report.superseded > 0 ? 'info' : 'debug';
    log[level]({ sizes, durationMs: report.durationMs, aborted }, 'rollup run finished');
    return report;
  }

  #error(stage: RollupErrorStage, err: unknown, what: Record<string, unknown>): void {
    this.#o.metrics.rollupErrors.inc({ stage });
    this.#o.log.warn({ err, stage, ...what }, 'rollup error (left for the next run)');
  }

  /** Lag at the start of the run: the oldest closed marker of each size (one 1-row scan per bucket). */
  async #measureLag(now: number): Promise<Set<string>> {
    const { store, settings: s, metrics } = this.#o;
    const known = new Set<string>();
    for (const w of s.windows) {
      let oldest: number | undefined;
      const scan = { failed: false };
      await runLimited(s.keyspace.allBuckets(), s.concurrency, async (salt) => {
        try {
          for await (const row of store.scan(s.rollupTable, { ...closedMarkerRange(salt, w, s.graceMs, now, s.keyspace), limit: 1 })) {
            const m = parseMarker(row.row, row.cells, s.keyspace);
            if (m !== undefined) oldest = Math.min(oldest ?? Infinity, m.parts.windowStart);
          }
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

  async #runSize(w: WindowSize, lagKnown: ReadonlySet<string>, signal: AbortSignal | undefined): Promise<SizeReport> {
    const { store, settings: s, metrics, log } = this.#o;
    const now = this.#now();
    const rep: SizeReport = { window: w.name, pending: 0, settling: 0, written: 0, empty: 0, superseded: 0, errors: 0 };
    let oldestLeft: number | undefined;
    const left = (start: number): void => { oldestLeft = Math.min(oldestLeft ?? Infinity, start); };
    let complete = lagKnown.has(w.name);
    // Ingest marks only the finest size and skips re-marks for the settle period (src/ingest/rollup-marks.ts):
    // such a marker is taken only once it is that old. Coarser markers are the job's own.
    const settleMs = w === s.windows[0] ? s.markerSettleMs : 0;
    const settling = (m: FoundMarker): boolean => settleMs > 0 && m.stamp > now - settleMs;
    const outstanding = new Set<Promise<void>>();
    await runLimited(s.keyspace.allBuckets(), s.concurrency, async (salt) => {
      try {
        for await (const page of scanPages(store, s.rollupTable, { ...closedMarkerRange(salt, w, s.graceMs, now, s.keyspace), pageRows: s.pageRows })) {
          if (signal?.aborted === true) {
            complete = false;
            return;
          }
          const ready: FoundMarker[] = [];
          for (const row of page) {
            let m: FoundMarker | undefined;
            try {
              m = parseMarker(row.row, row.cells, s.keyspace);
            } catch (err) {
              rep.errors++;
              this.#error('scan_markers', err, { window: w.name, row: row.row.toString('hex') });
              continue;
            }
            if (m === undefined) continue;
            rep.pending++;
            if (settling(m)) {
              rep.settling++;
              left(m.parts.windowStart);
            } else {
              ready.push(m);
            }
          }
          // At most rollup.concurrency batches' deletes outstanding: then wait for the oldest to finish.
          while (outstanding.size >= s.concurrency) await Promise.race(outstanding);
          const { rest } = await recomputeBatch(this.#ctx, ready, {
            limiter: this.#limiter,
            done: (m, out) => { this.#count(w, m, out, rep, left); },
            onBatchError: (err, windows) => { log.warn({ err, window: w.name, salt, windows }, 'rollup batch failed: its windows are redone one by one'); },
          });
          outstanding.add(rest);
          void rest.then(() => outstanding.delete(rest));
        }
      } catch (err) {
        complete = false;
        rep.errors++;
        this.#error('scan_markers', err, { window: w.name, salt });
      }
    });
    // every delete of this size is done before the next size reads the cascade markers
    await Promise.all(outstanding);
    metrics.rollupPendingMarkers.set({ window: w.name }, rep.pending);
    if (complete) metrics.rollupLag.set({ window: w.name }, lagSeconds(this.#now(), oldestLeft, w));
    return rep;
  }

  #count(w: WindowSize, m: FoundMarker, out: RecomputeOutcome | { readonly error: unknown }, rep: SizeReport, left: (start: number) => void): void {
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
      metrics.rollupWindows.inc({ window: w.name });
    } else {
      rep.empty++;
    }
    if (!out.deleted) {
      rep.superseded++;
      metrics.rollupSuperseded.inc({ window: w.name });
      left(m.parts.windowStart);
    }
  }
}

/** One line for logs and `tsingest rollup run`. */
export function formatRunReport(r: RunReport): string {
  const per = r.sizes.map((s) => `${s.window} ${s.written}`).join(', ');
  const found = r.sizes.reduce((n, s) => n + s.pending, 0);
  const settling = r.sizes.reduce((n, s) => n + s.settling, 0);
  return `rollup run: windows written ${r.written}${per === '' ? '' : ` (${per})`}, superseded ${r.superseded}, errors ${r.errors}, markers found ${found}${settling > 0 ? ` (${settling} left to settle, rollup.markerSettleMs)` : ''}, duration ${(r.durationMs / 1000).toFixed(2)}s${r.aborted ? ', stopped early' : ''}`;
}
