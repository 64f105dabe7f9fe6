/**
 * SIGTERM/SIGINT handling. Installed before anything starts (src/cli/run.ts), so a signal during
 * start-up aborts the start cleanly instead of killing the process half-started: the first signal
 * starts `onDrain()` (abort the start, or drain the running service), a second one forces the exit.
 */
import type { Logger } from 'pino';
import { EXIT, exitCodeOf } from './exit-codes.ts';

/** Where signals come from (`process` by default; an EventEmitter in tests). */
export interface SignalSource {
  on(event: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  off(event: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
}

export interface SignalHandlerOptions {
  /** Graceful drain: stop consuming, flush, commit, close. Resolves when everything is done. */
  readonly onDrain: () => Promise<void>;
  /** After this long, a drain still running forces exit(1). */
  readonly drainTimeoutMs: number;
  readonly log: Pick<Logger, 'info' | 'warn' | 'error'>;
  readonly exit: (code: number) => void;
  readonly signals?: readonly NodeJS.Signals[];
  readonly source?: SignalSource;
}

export const EXIT_DRAINED = EXIT.OK;
export const EXIT_DRAIN_FAILED = EXIT.DRAIN_FAILED;
export const EXIT_FORCED = EXIT.FORCED;

/**
 * First SIGTERM/SIGINT: start `onDrain()` with an unref'd watchdog that forces exit(1) after
 * `drainTimeoutMs`; the drain resolving exits 0 (explicitly, so a stray handle cannot keep the process
 * up), rejecting exits with the error's code (1 for a drain that left work uncommitted; see
 * exit-codes.ts). A second signal exits 130 at once. `exit` is called at most once.
 * Returns a function that removes the handlers (and the watchdog).
 */
export function installSignalHandlers(options: SignalHandlerOptions): () => void {
  const { onDrain, drainTimeoutMs, log, exit } = options;
  const signals = options.signals ?? (['SIGTERM', 'SIGINT'] as const);
  const source: SignalSource = options.source ?? process;
  let draining = false;
  let exited = false;
  let watchdog: NodeJS.Timeout | undefined;

  const finish = (code: number): void => {
    if (watchdog !== undefined) clearTimeout(watchdog);
    watchdog = undefined;
    if (exited) return;
    exited = true;
    exit(code);
  };

  const handler = (signal: NodeJS.Signals): void => {
    if (draining) {
      log.warn({ signal }, 'second signal during drain: forcing exit');
      finish(EXIT_FORCED);
      return;
    }
    draining = true;
    log.info({ signal, drainTimeoutMs }, 'signal received: draining (send again to force)');
    watchdog = setTimeout(() => {
      log.error({ drainTimeoutMs }, 'drain timed out: forcing exit');
      finish(EXIT_DRAIN_FAILED);
    }, drainTimeoutMs);
    watchdog.unref();
    let drain: Promise<void>;
    try {
      drain = onDrain();
    } catch (err) {
      drain = Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    drain.then(
      () => {
        log.info('drain complete');
        finish(EXIT_DRAINED);
      },
      (err: unknown) => {
        log.error({ err }, 'drain failed');
        // A classified fatal failure during the drain (a table gone, the consumer lost) keeps its own
        // code; anything else is a failed drain (1).
        const code = exitCodeOf(err);
        finish(code === EXIT.OK || code === EXIT.INTERNAL ? EXIT_DRAIN_FAILED : code);
      },
    );
  };

  for (const signal of signals) source.on(signal, handler);
  return () => {
    for (const signal of signals) source.off(signal, handler);
    if (watchdog !== undefined) clearTimeout(watchdog);
    watchdog = undefined;
  };
}
