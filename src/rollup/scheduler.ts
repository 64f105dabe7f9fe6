/**
 * Runs the rollup job every `rollup.intervalMs` inside the service: the first run right after
 * start(), each next one `intervalMs` after the previous one started (or at once when a run took
 * longer), never two at a time. stop() cancels the current run through its AbortSignal (it takes no
 * next batch; the batches in flight finish) and resolves when it is over, or after the wait it is
 * given (the service's drain deadline).
 */
import type { Logger } from 'pino';
import type { HBaseRestClient } from '../hbase/index.ts';
import type { Keyspace, Tables } from '../keys/index.ts';
import type { Config } from '../runtime/config.ts';
import { RollupJob } from './job.ts';
import type { RunReport } from './run-report.ts';
import { quietRollupMeters, type RollupMeters } from './meters.ts';
import type { BucketOwnership } from './ownership.ts';
import { rollupSettings } from './rollup-settings.ts';
import type { RollupStore } from './store.ts';

export interface RunnableJob {
  run(signal?: AbortSignal): Promise<RunReport>;
}

export interface RollupSchedulerOptions {
  readonly job: RunnableJob;
  /** awaited before each run: the job's keyspace looks ids up in a fresh spread registry snapshot */
  readonly before?: ((signal: AbortSignal) => Promise<void>) | undefined;
  readonly intervalMs: number;
  readonly log: Logger;
  /** called after each run (tests, status) */
  readonly onRun?: (report: RunReport) => void;
}

export class RollupScheduler {
  readonly #o: RollupSchedulerOptions;
  readonly #abort = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #current: Promise<void> | undefined;
  #started = false;
  #runs = 0;

  constructor(options: RollupSchedulerOptions) {
    if (!(options.intervalMs > 0)) throw new RangeError(`rollup.intervalMs must be > 0, got ${options.intervalMs}`);
    this.#o = options;
  }

  /** Runs completed so far. */
  get runs(): number {
    return this.#runs;
  }

  get running(): boolean {
    return this.#current !== undefined;
  }

  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#schedule(0);
  }

  #schedule(delayMs: number): void {
    if (this.#abort.signal.aborted) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      const began = Date.now();
      this.#current = this.#runOnce().finally(() => {
        this.#current = undefined;
        this.#schedule(Math.max(0, this.#o.intervalMs - (Date.now() - began)));
      });
    }, delayMs);
    this.#timer.unref();
  }

  async #runOnce(): Promise<void> {
    try {
      await this.#o.before?.(this.#abort.signal);
      const report = await this.#o.job.run(this.#abort.signal);
      this.#runs++;
      this.#o.onRun?.(report);
    } catch (err) {
      // The job reports its own errors; this is only an unexpected failure. The next run retries.
      this.#o.log.error({ err }, 'rollup run failed');
    }
  }

  /**
   * Cancels the current run (if any), schedules no more, and waits for the run to end: at most
   * `waitMs` (default: no limit), so a shutdown stays bounded whatever is in flight. A run still going
   * then is left to end alone (its requests fail once the client closes; its markers stay for the
   * next run); resolves false in that case. Idempotent.
   */
  async stop(waitMs?: number): Promise<boolean> {
    this.#abort.abort(new Error('rollup scheduler stopped'));
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const current = this.#current;
    if (current === undefined) return true;
    if (waitMs === undefined) {
      await current;
      return true;
    }
    let timer: NodeJS.Timeout | undefined;
    const ended = await Promise.race([
      current.then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => {
          resolve(false);
        }, waitMs);
      }),
    ]);
    clearTimeout(timer);
    if (!ended) this.#o.log.warn({ waitMs }, 'rollup run still in flight at shutdown: left to end alone (its markers stay for the next run)');
    return ended;
  }
}

export interface RollupSchedulerDeps {
  readonly cfg: Config;
  readonly hbase: HBaseRestClient | RollupStore;
  readonly keyspace: Keyspace;
  readonly tables: Tables;
  /** the spread registry the keyspace looks ids up in (a fresh snapshot before each run) */
  readonly spread?: { ready(signal?: AbortSignal): Promise<void> } | undefined;
  /** the service's read metrics; nothing is kept when omitted */
  readonly metrics?: RollupMeters | undefined;
  readonly log: Logger;
  /** the buckets this runner works on (every bucket when omitted); each run waits for its first assignment */
  readonly owners?: (BucketOwnership & { ready(signal?: AbortSignal): Promise<void> }) | undefined;
  /**
   * the job to run instead of one built here on this thread (the rollup thread, src/service/rollup-thread.ts):
   * it waits for its own spread registry snapshot, so only the owners are waited for here
   */
  readonly job?: RunnableJob | undefined;
}

/** The scheduler the service runs (not started: call start()). */
export function createRollupScheduler(deps: RollupSchedulerDeps): RollupScheduler {
  const { cfg, log } = deps;
  const metrics = deps.metrics ?? quietRollupMeters();
  const { owners } = deps;
  const spread = deps.job === undefined ? deps.spread : undefined;
  const job =
    deps.job ??
    new RollupJob({
      store: deps.hbase,
      settings: rollupSettings(cfg, deps.keyspace, deps.tables),
      metrics,
      log: log.child({ module: 'rollup' }),
      ownership: owners,
    });
  const before =
    spread === undefined && owners === undefined
      ? undefined
      : async (signal: AbortSignal): Promise<void> => {
          await owners?.ready(signal);
          await spread?.ready(signal);
        };
  return new RollupScheduler({ job, intervalMs: cfg.rollup.intervalMs, log, before });
}
