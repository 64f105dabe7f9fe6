/**
 * Service lifecycle: an explicit state machine (starting, running, degraded, draining, stopped,
 * failed) that /healthz, /readyz and the state gauges reflect. Signals: signals.ts.
 * Design notes: docs/DECISIONS.md#lifecycle
 */
import type { Logger } from 'pino';
import { ServiceError, type CauseOptions, type LIFECYCLE_ERROR_CODES } from '../errors.ts';

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

export { LIFECYCLE_ERROR_CODES } from '../errors.ts';
export type LifecycleErrorCode = (typeof LIFECYCLE_ERROR_CODES)[number];

export class LifecycleError extends ServiceError<LifecycleErrorCode> {
  override readonly name = 'LifecycleError';

  constructor(code: LifecycleErrorCode, message: string, options: CauseOptions = {}) {
    super({ code, message, retriable: false, cause: options.cause });
  }
}

export interface Transition {
  readonly from: LifecycleState;
  readonly to: LifecycleState;
  readonly reason: string;
}

export type TransitionListener = (transition: Transition) => void;

/**
 * What the lifecycle reports, declared here so that it never imports the metrics: the service's
 * `tsingest_ready` and `tsingest_state` gauges have these calls.
 */
export interface LifecycleMeters {
  readonly ready: { set(value: number): void };
  readonly state: { set(labels: { state: LifecycleState }, value: number): void };
}

export interface LifecycleOptions {
  readonly log: Pick<Logger, 'info' | 'error'>;
  readonly metrics?: LifecycleMeters;
}

export function canTransition(from: LifecycleState, to: LifecycleState): boolean {
  return ALLOWED_TRANSITIONS[from].includes(to);
}

export class Lifecycle {
  readonly #log: Pick<Logger, 'info' | 'error'>;
  readonly #metrics: LifecycleMeters | undefined;
  readonly #listeners = new Set<TransitionListener>();
  #state: LifecycleState = 'starting';
  #reason = 'starting up';
  /** failing health conditions: name → why (a function: rendered each time it is read, e.g. an age) */
  readonly #failing = new Map<string, string | (() => string)>();

  constructor(options: LifecycleOptions) {
    this.#log = options.log;
    this.#metrics = options.metrics;
    this.#publish();
  }

  get state(): LifecycleState {
    return this.#state;
  }

  /** Why the service entered the current state (while degraded: the failing conditions as of now). */
  get reason(): string {
    return this.#state === 'degraded' && this.#failing.size > 0 ? this.#failingReason() : this.#reason;
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
   * and returns false; an illegal transition throws `LifecycleError('ILLEGAL_TRANSITION')`.
   */
  transition(to: LifecycleState, reason: string): boolean {
    const from = this.#state;
    if (to === from) {
      this.#reason = reason;
      return false;
    }
    if (!canTransition(from, to)) {
      throw new LifecycleError('ILLEGAL_TRANSITION', `illegal lifecycle transition ${from} → ${to} (${reason})`);
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

  /** Failing health conditions (name → reason as of now). */
  get failing(): ReadonlyMap<string, string> {
    return new Map([...this.#failing].map(([name, why]) => [name, typeof why === 'string' ? why : why()]));
  }

  /**
   * Records a health condition (e.g. `hbase`, `kafka-consumer`). While any fails, `running` becomes
   * `degraded` (not ready); when the last one recovers, `degraded` becomes `running` again. In other
   * states it is only recorded (`started` takes it into account).
   */
  setCondition(name: string, ok: boolean, reason: string | (() => string) = name): void {
    if (ok) {
      if (!this.#failing.delete(name)) return;
    } else {
      if (this.#failing.get(name) === reason) return;
      this.#failing.set(name, reason);
    }
    if (this.#state === 'running' && this.#failing.size > 0) this.transition('degraded', this.#failingReason());
    else if (this.#state === 'degraded' && this.#failing.size === 0) this.transition('running', `${name} recovered`);
    else if (this.#state === 'degraded') this.transition('degraded', this.#failingReason());
  }

  /** starting → running, or → degraded when a health condition already fails. */
  started(reason: string): void {
    this.transition(this.#failing.size > 0 ? 'degraded' : 'running', this.#failing.size > 0 ? this.#failingReason() : reason);
  }

  #failingReason(): string {
    return [...this.#failing.values()].map((why) => (typeof why === 'string' ? why : why())).join('; ');
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

// Signal handling moved to signals.ts; re-exported for existing importers.
export { EXIT_DRAINED, EXIT_DRAIN_FAILED, EXIT_FORCED, installSignalHandlers, type SignalHandlerOptions, type SignalSource } from './signals.ts';
