/**
 * Service lifecycle: an explicit state machine that `/healthz`, `/readyz` and the `tsingest_ready` /
 * `tsingest_state` gauges reflect, plus the SIGTERM/SIGINT handling that starts a graceful drain.
 *
 *   starting ─► running ◄─► degraded        degraded = running but not ready (e.g. HBase down past its
 *      │           │           │             deadline: consumption paused, nothing skipped)
 *      └───────────┴───────────┴─► draining ─► stopped
 *   any non-terminal state ─► failed          stopped and failed are terminal
 */
import type { Logger } from 'pino';
import type { Metrics } from '../metrics/registry.ts';

export const LIFECYCLE_STATES = ['starting', 'running', 'degraded', 'draining', 'stopped', 'failed'] as const;
export type LifecycleState = (typeof LIFECYCLE_STATES)[number];

export const ALLOWED_TRANSITIONS: Readonly<Record<LifecycleState, readonly LifecycleState[]>> = {
  starting: ['running', 'degraded', 'draining', 'failed'],
  running: ['degraded', 'draining', 'failed'],
  degraded: ['running', 'draining', 'failed'],
  draining: ['stopped', 'failed'],
  stopped: [],
  failed: [],
};

export const LIFECYCLE_ERROR_CODES = ['illegal_transition'] as const;
export type LifecycleErrorCode = (typeof LIFECYCLE_ERROR_CODES)[number];

export class LifecycleError extends Error {
  readonly code: LifecycleErrorCode;
  readonly retriable = false;

  constructor(code: LifecycleErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LifecycleError';
    this.code = code;
  }
}

export interface Transition {
  readonly from: LifecycleState;
  readonly to: LifecycleState;
  readonly reason: string;
}

export type TransitionListener = (transition: Transition) => void;

export interface LifecycleOptions {
  readonly log: Pick<Logger, 'info' | 'error'>;
  readonly metrics?: Pick<Metrics, 'ready' | 'state'>;
}

export function canTransition(from: LifecycleState, to: LifecycleState): boolean {
  return ALLOWED_TRANSITIONS[from].includes(to);
}

export class Lifecycle {
  readonly #log: Pick<Logger, 'info' | 'error'>;
  readonly #metrics: Pick<Metrics, 'ready' | 'state'> | undefined;
  readonly #listeners = new Set<TransitionListener>();
  #state: LifecycleState = 'starting';
  #reason = 'starting up';

  constructor(options: LifecycleOptions) {
    this.#log = options.log;
    this.#metrics = options.metrics;
    this.#publish();
  }

  get state(): LifecycleState {
    return this.#state;
  }

  /** Why the service entered the current state. */
  get reason(): string {
    return this.#reason;
  }

  /** Ready to take work: only in `running`. */
  get ready(): boolean {
    return this.#state === 'running';
  }

  /** The process is alive and useful: false only in `failed` and `stopped`. */
  get live(): boolean {
    return this.#state !== 'failed' && this.#state !== 'stopped';
  }

  /**
   * Moves to `to`. A transition to the current state only updates the reason (no listeners called)
   * and returns false; an illegal transition throws `LifecycleError('illegal_transition')`.
   */
  transition(to: LifecycleState, reason: string): boolean {
    const from = this.#state;
    if (to === from) {
      this.#reason = reason;
      return false;
    }
    if (!canTransition(from, to)) {
      throw new LifecycleError('illegal_transition', `illegal lifecycle transition ${from} → ${to} (${reason})`);
    }
    this.#state = to;
    this.#reason = reason;
    this.#publish();
    this.#log.info({ from, to, reason }, `lifecycle ${from} → ${to}`);
    for (const listener of this.#listeners) {
      try {
        listener({ from, to, reason });
      } catch (err) {
        this.#log.error({ err, from, to }, 'lifecycle listener failed');
      }
    }
    return true;
  }

  /** Subscribes to state changes; returns the unsubscribe function. */
  onTransition(listener: TransitionListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  #publish(): void {
    if (this.#metrics === undefined) return;
    this.#metrics.ready.set(this.ready ? 1 : 0);
    for (const state of LIFECYCLE_STATES) this.#metrics.state.set({ state }, state === this.#state ? 1 : 0);
  }
}

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

export const EXIT_DRAINED = 0;
export const EXIT_DRAIN_FAILED = 1;
export const EXIT_FORCED = 130;

/**
 * First SIGTERM/SIGINT: start `onDrain()` with an unref'd watchdog that forces exit(1) after
 * `drainTimeoutMs`; the drain resolving exits 0 (explicitly, so a stray handle cannot keep the process
 * up), rejecting exits 1. A second signal exits 130 at once. `exit` is called at most once.
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
        finish(EXIT_DRAIN_FAILED);
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
