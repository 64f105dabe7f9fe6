/**
 * Runs the schema doctor periodically inside the service: the first run `firstDelayMs` after start(),
 * each next one `everyMs` after the previous one ended, never two at a time. It keeps what the page
 * shows (snapshot()): when the last run was and how it went, and the findings of the last run that
 * completed. A failed run is reported to `onRun` and kept as the last run with its reason; it changes
 * nothing else. stop() cancels the timer and aborts the run in flight through its signal, without
 * waiting for it: whatever that run still reports is dropped.
 */
import { errorMessage } from '../errors.ts';
import type { Checked } from './check.ts';
import { countBySeverity, type Finding, type Severity } from './finding.ts';

/** The findings of one completed run. */
export interface DoctorReport {
  /** when the run ended (epoch ms) */
  readonly at: number;
  readonly checked: Checked;
  readonly counts: Readonly<Record<Severity, number>>;
  readonly findings: readonly Finding[];
}

export interface DoctorRun {
  readonly startedAt: number;
  readonly finishedAt: number;
  readonly outcome: 'ok' | 'failed';
  /** why the run failed */
  readonly error?: string;
}

/** What /ui and /ui/data.json show of the service's doctor. */
export interface DoctorSnapshot {
  /** pause between runs (ms); 0: the doctor is off in this service */
  readonly everyMs: number;
  readonly running: boolean;
  /** when the next run is due (epoch ms), null while one runs or when off */
  readonly nextRunAt: number | null;
  /** the latest run that ended, ok or failed */
  readonly lastRun: DoctorRun | null;
  /** the findings of the latest run that completed (older than lastRun when that one failed) */
  readonly report: DoctorReport | null;
}

export type DoctorOutcome =
  | { readonly outcome: 'ok'; readonly run: DoctorRun; readonly report: DoctorReport }
  | { readonly outcome: 'failed'; readonly run: DoctorRun; readonly err: unknown };

export interface DoctorSchedulerOptions {
  /** one doctor run (checkCluster over the service's tables) */
  readonly check: (signal: AbortSignal) => Promise<{ readonly findings: readonly Finding[]; readonly checked: Checked }>;
  readonly everyMs: number;
  readonly firstDelayMs: number;
  /** told after each run that ended before stop() (logs, metrics) */
  readonly onRun?: (o: DoctorOutcome) => void;
  readonly now?: () => number;
}

/** A failure's reason as the page shows it: the message, bounded. */
const MAX_REASON = 500;

export const DOCTOR_OFF: DoctorSnapshot = { everyMs: 0, running: false, nextRunAt: null, lastRun: null, report: null };

export class DoctorScheduler {
  readonly #o: DoctorSchedulerOptions;
  readonly #now: () => number;
  readonly #abort = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #nextRunAt: number | null = null;
  #running = false;
  #lastRun: DoctorRun | null = null;
  #report: DoctorReport | null = null;

  constructor(options: DoctorSchedulerOptions) {
    if (!(options.everyMs > 0)) throw new RangeError(`doctor.everyMs must be > 0 to schedule runs, got ${options.everyMs}`);
    if (!(options.firstDelayMs >= 0)) throw new RangeError(`firstDelayMs must be ≥ 0, got ${options.firstDelayMs}`);
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  start(): void {
    if (this.#timer !== undefined || this.#running || this.#abort.signal.aborted) return;
    this.#schedule(this.#o.firstDelayMs);
  }

  snapshot(): DoctorSnapshot {
    return { everyMs: this.#o.everyMs, running: this.#running, nextRunAt: this.#nextRunAt, lastRun: this.#lastRun, report: this.#report };
  }

  /** Cancels the timer and aborts a run in flight (not waited for); no run starts afterwards. Idempotent. */
  stop(): void {
    this.#abort.abort(new Error('doctor scheduler stopped'));
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#nextRunAt = null;
  }

  #schedule(delayMs: number): void {
    if (this.#abort.signal.aborted) return;
    this.#nextRunAt = this.#now() + delayMs;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#nextRunAt = null;
      void this.#runOnce().then(() => {
        this.#schedule(this.#o.everyMs);
      });
    }, delayMs);
    this.#timer.unref();
  }

  async #runOnce(): Promise<void> {
    const signal = this.#abort.signal;
    const startedAt = this.#now();
    this.#running = true;
    let outcome: DoctorOutcome;
    try {
      const { findings, checked } = await this.#o.check(signal);
      const finishedAt = this.#now();
      const report: DoctorReport = { at: finishedAt, checked, counts: countBySeverity(findings), findings };
      outcome = { outcome: 'ok', run: { startedAt, finishedAt, outcome: 'ok' }, report };
    } catch (err) {
      outcome = { outcome: 'failed', run: { startedAt, finishedAt: this.#now(), outcome: 'failed', error: errorMessage(err).slice(0, MAX_REASON) }, err };
    } finally {
      this.#running = false;
    }
    if (signal.aborted) return;
    this.#lastRun = outcome.run;
    if (outcome.outcome === 'ok') this.#report = outcome.report;
    try {
      this.#o.onRun?.(outcome);
    } catch {
      // a reporting hook must not stop the schedule
    }
  }
}
