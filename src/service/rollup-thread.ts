/**
 * The rollup job on a worker thread of its own (rollup.thread): the main thread's scheduler asks it
 * for each run, and the thread does the run with its own HBase client, spread registry and keyspace
 * (built from the configuration, as the service builds its own: src/service/rollup-thread-main.ts).
 * Its scans, folds and garbage collection are then on another isolate and never hold the ingest's
 * event loop. Its meter calls come back as messages onto the service's meters (the rollup meters, and
 * the gateway meters as client "rollup"); its log lines go to the same stdout.
 *
 * A run is started with the buckets owned at that moment; while it runs, a change of ownership is
 * sent within OWNERSHIP_POLL_MS (ownership is advisory: docs/ROLLUPS.md, "Ownership"). A thread that
 * ends unexpectedly fails its run (the scheduler logs it) and is started again for the next one.
 * Design notes: docs/DECISIONS.md#the-job-on-a-thread-of-its-own
 */
import { once } from 'node:events';
import { extname } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { errorMessage } from '../errors.ts';
import type { GatewayMetrics } from '../metrics/gateway-metrics.ts';
import type { RollupMeters } from '../rollup/meters.ts';
import type { BucketOwnership } from '../rollup/ownership.ts';
import type { RunReport } from '../rollup/run-report.ts';
import type { RunnableJob } from '../rollup/scheduler.ts';
import type { Config } from '../runtime/config.ts';
import { meterSink, type MeterCall } from '../toolkit/meter-relay.ts';

/** What the thread is started with. */
export interface RollupThreadData {
  readonly cfg: Config;
}

/** Main thread → rollup thread. `owned`: the buckets to work on; null: every bucket (no ownership). */
export type ToRollupThread =
  | { readonly kind: 'run'; readonly owned: readonly number[] | null }
  | { readonly kind: 'owned'; readonly owned: readonly number[] | null }
  | { readonly kind: 'abort'; readonly reason: string }
  | { readonly kind: 'close' };

/** Rollup thread → main thread. */
export type FromRollupThread =
  | { readonly kind: 'meter'; readonly call: MeterCall }
  | { readonly kind: 'gateway'; readonly call: MeterCall }
  | { readonly kind: 'report'; readonly report: RunReport }
  | { readonly kind: 'failed'; readonly message: string }
  | { readonly kind: 'closed' };

/** How often a run in progress checks whether the owned buckets changed. */
export const OWNERSHIP_POLL_MS = 1000;
/** How long close() waits for the thread to close its client and end before it stops it. */
export const THREAD_CLOSE_MS = 5000;

export interface RollupThreadOptions {
  readonly cfg: Config;
  readonly meters: RollupMeters;
  readonly gatewayMetrics?: GatewayMetrics | undefined;
  readonly ownership?: BucketOwnership | undefined;
  readonly log: Logger;
}

interface Waiting {
  resolve(report: RunReport): void;
  reject(err: Error): void;
}

/** The thread's entry, beside this file, with this file's extension (.ts from the sources, .js once built). */
function entryUrl(): URL {
  return new URL(`./rollup-thread-main${extname(new URL(import.meta.url).pathname)}`, import.meta.url);
}

function ownedList(ownership: BucketOwnership | undefined): number[] | null {
  return ownership === undefined ? null : [...ownership.owned()].sort((a, b) => a - b);
}

export class RollupThread implements RunnableJob {
  readonly #o: RollupThreadOptions;
  readonly #meters: ReturnType<typeof meterSink>;
  readonly #gateway: ReturnType<typeof meterSink> | undefined;
  #worker: Worker | undefined;
  #waiting: Waiting | undefined;
  #closing: Promise<void> | undefined;

  constructor(options: RollupThreadOptions) {
    this.#o = options;
    this.#meters = meterSink(options.meters);
    this.#gateway = options.gatewayMetrics === undefined ? undefined : meterSink(options.gatewayMetrics);
  }

  #start(): Worker {
    const data: RollupThreadData = { cfg: this.#o.cfg };
    const worker = new Worker(entryUrl(), { workerData: data, name: 'rollup' });
    worker.on('message', (m: FromRollupThread) => {
      this.#receive(m);
    });
    worker.on('error', (err) => {
      this.#o.log.error({ err }, 'rollup thread failed');
      this.#settle(new Error(`the rollup thread failed: ${errorMessage(err)}`));
    });
    worker.on('exit', (code) => {
      if (this.#worker === worker) this.#worker = undefined;
      this.#meters.clear();
      this.#gateway?.clear();
      this.#settle(new Error(`the rollup thread ended (exit code ${code}) during a run`));
    });
    return worker;
  }

  #receive(m: FromRollupThread): void {
    switch (m.kind) {
      case 'meter':
        this.#meters.apply(m.call);
        return;
      case 'gateway':
        this.#gateway?.apply(m.call);
        return;
      case 'report':
        this.#settle(undefined, m.report);
        return;
      case 'failed':
        this.#settle(new Error(m.message));
        return;
      case 'closed':
        return;
    }
  }

  #settle(err: Error | undefined, report?: RunReport): void {
    const w = this.#waiting;
    if (w === undefined) return;
    this.#waiting = undefined;
    if (report !== undefined) w.resolve(report);
    else w.reject(err ?? new Error('the rollup thread answered nothing'));
  }

  #post(m: ToRollupThread): void {
    this.#worker?.postMessage(m);
  }

  run(signal?: AbortSignal): Promise<RunReport> {
    if (this.#closing !== undefined) return Promise.reject(new Error('the rollup thread is closed'));
    if (this.#waiting !== undefined) return Promise.reject(new Error('a rollup run is already in progress'));
    this.#worker ??= this.#start();
    const { ownership } = this.#o;
    let sent = JSON.stringify(ownedList(ownership));
    const poll = setInterval(() => {
      const owned = ownedList(ownership);
      const now = JSON.stringify(owned);
      if (now === sent) return;
      sent = now;
      this.#post({ kind: 'owned', owned });
    }, OWNERSHIP_POLL_MS);
    poll.unref();
    const onAbort = (): void => {
      this.#post({ kind: 'abort', reason: errorMessage(signal?.reason) });
    };
    const done = new Promise<RunReport>((resolve, reject) => {
      this.#waiting = { resolve, reject };
    });
    this.#post({ kind: 'run', owned: ownedList(ownership) });
    if (signal?.aborted === true) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    return done.finally(() => {
      clearInterval(poll);
      signal?.removeEventListener('abort', onAbort);
    });
  }

  /** Stops a run in progress (it fails), closes the thread's HBase client and ends the thread (stopped after THREAD_CLOSE_MS). */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      const worker = this.#worker;
      if (worker === undefined) return;
      const ended = once(worker, 'exit');
      worker.postMessage({ kind: 'close' } satisfies ToRollupThread);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => {
          resolve('late');
        }, THREAD_CLOSE_MS);
      });
      const how = await Promise.race([ended.then(() => 'ended' as const), late]);
      clearTimeout(timer);
      if (how === 'late') {
        this.#o.log.warn({ waitMs: THREAD_CLOSE_MS }, 'the rollup thread did not end in time: stopped');
        await worker.terminate();
      }
    })();
    return this.#closing;
  }
}
