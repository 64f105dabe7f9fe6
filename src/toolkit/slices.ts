// Work in slices: a request's synchronous work (a query's computation, the catalog's look-ups and
// rebuilds, the window cache's keeping) runs in slices of at most `sliceMs`, giving the event
// loop back between them, lightest request first (docs/SERIES-API.md, "Limits").
// Design notes: docs/DECISIONS.md#work-in-slices
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Default slice of synchronous work (ms). */
export const SLICE_MS = 20;

export interface SlicesOptions {
  readonly sliceMs?: number;
  /** how much work the request is (the series it matched); lighter ones resume first (default 0) */
  readonly weight?: number;
  readonly signal?: AbortSignal | undefined;
  readonly now?: () => number;
  /** how a pause gives the event loop back (tests count pauses without waiting) */
  readonly yieldTurn?: () => Promise<unknown>;
}

export class Slices {
  readonly #sliceMs: number;
  readonly #signal: AbortSignal | undefined;
  readonly #now: () => number;
  readonly #yield: () => Promise<unknown>;
  #started: number;
  #pauses = 0;
  /** how much work the request is: lighter ones resume first (lightestFirst) */
  weight: number;

  constructor(options: SlicesOptions = {}) {
    this.#sliceMs = options.sliceMs ?? SLICE_MS;
    this.#signal = options.signal;
    this.#now = options.now ?? (() => performance.now());
    this.weight = options.weight ?? 0;
    this.#yield = options.yieldTurn ?? (() => lightestFirst(this.weight));
    this.#started = this.#now();
  }

  /** True when this slice's time is spent: the caller should `await pause()` (one reading of the clock: call it between steps of some work, not per item of a tight loop). */
  due(): boolean {
    return this.#now() - this.#started >= this.#sliceMs;
  }

  /** Gives the event loop back, then starts a new slice; rejects with the signal's reason once it has aborted. */
  async pause(): Promise<void> {
    this.#pauses++;
    this.check();
    await this.#yield();
    this.check();
    this.#started = this.#now();
  }

  /** Throws the signal's reason when it has aborted. */
  check(): void {
    const s = this.#signal;
    if (s?.aborted === true) throw s.reason instanceof Error ? s.reason : new Error('aborted', { cause: s.reason });
  }

  /** Pauses taken so far. */
  get pauses(): number {
    return this.#pauses;
  }
}

const waiting: { readonly weight: number; readonly resume: () => void }[] = [];
let turnScheduled = false;

/** One waiter resumed per turn of the event loop: the lightest (the earliest of equal weights). */
function resumeLightest(): void {
  turnScheduled = false;
  let best = 0;
  for (let i = 1; i < waiting.length; i++) if ((waiting[i] as { weight: number }).weight < (waiting[best] as { weight: number }).weight) best = i;
  const [next] = waiting.splice(best, 1);
  if (waiting.length > 0) {
    turnScheduled = true;
    void nextTurn().then(resumeLightest);
  }
  next?.resume();
}

/** Resolves at a later turn of the event loop, after every lighter waiter has had its turn. */
export function lightestFirst(weight: number): Promise<void> {
  return new Promise<void>((resume) => {
    waiting.push({ weight, resume });
    if (!turnScheduled) {
      turnScheduled = true;
      void nextTurn().then(resumeLightest);
    }
  });
}

/** Runs `step(i)` for i in [0, n), pausing when a slice is spent. */
export async function eachSliced(n: number, slices: Slices, step: (i: number) => void): Promise<void> {
  for (let i = 0; i < n; i++) {
    step(i);
    if (slices.due()) await slices.pause();
  }
}

/**
 * The items of `source`, the event loop given back between two of them whenever a slice is spent: a
 * scan's rows folded as they come (the rollup job's) otherwise run page after buffered page in one
 * chain of microtasks, with no timer, socket or heartbeat served meanwhile.
 */
export async function* slicedItems<T>(source: AsyncIterable<T>, slices: Slices): AsyncGenerator<T, void, undefined> {
  for await (const item of source) {
    yield item;
    if (slices.due()) await slices.pause();
  }
}

/** A pause that only gives the event loop back (one turn), for work that is no request's: no lightest-first queue. */
export function nextTurnOnly(): Promise<unknown> {
  return nextTurn();
}

/**
 * Drives a generator that yields at points where it may pause (its own count of work between yields
 * keeps each step short: well under a millisecond) to its return value, pausing when a slice is spent.
 */
export async function runSliced<T>(steps: Generator<unknown, T>, slices: Slices): Promise<T> {
  for (;;) {
    const r = steps.next();
    if (r.done === true) return r.value;
    if (slices.due()) await slices.pause();
  }
}
