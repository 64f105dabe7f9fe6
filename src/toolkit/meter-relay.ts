/**
 * Meters used on a worker thread and kept on the main thread's registry: on the worker, a stand-in
 * object of meters posts every call as a message (postMessage keeps their order); on the main
 * thread, each call is applied to the real meter of the same name. Only the calls meters take are
 * relayed (set, remove, inc, dec, observe, and startTimer with the function that ends it).
 */

/** One meter call, as it travels between threads (structured-clone data only). */
export interface MeterCall {
  /** the meter's property name in the object of meters */
  readonly meter: string;
  readonly method: string;
  readonly args: readonly unknown[];
  /** startTimer / endTimer: which timer */
  readonly timer?: number;
}

const CALLS = new Set(['set', 'remove', 'inc', 'dec', 'observe']);
const START = 'startTimer';
const END = 'endTimer';

/**
 * An object of meters shaped like `T` (its properties named by `names`) whose every call is handed
 * to `post`. A method a meter does not relay reads as undefined.
 */
export function relayedMeters<T extends object>(names: readonly (keyof T & string)[], post: (call: MeterCall) => void): T {
  let timers = 0;
  const out: Record<string, unknown> = {};
  for (const meter of names) {
    out[meter] = new Proxy(
      {},
      {
        get: (_target, method) => {
          if (method === START) {
            return (...args: unknown[]) => {
              const timer = ++timers;
              post({ meter, method: START, args, timer });
              return () => {
                post({ meter, method: END, args: [], timer });
              };
            };
          }
          if (typeof method !== 'string' || !CALLS.has(method)) return undefined;
          return (...args: unknown[]) => {
            post({ meter, method, args });
          };
        },
      },
    );
  }
  return out as T;
}

/** Applies relayed calls to `meters` (the real ones); a call naming no meter or method it relays is dropped. */
export function meterSink(meters: object): { apply(call: MeterCall): void; clear(): void } {
  const ends = new Map<number, () => unknown>();
  return {
    apply(call) {
      if (call.method === END) {
        if (call.timer === undefined) return;
        ends.get(call.timer)?.();
        ends.delete(call.timer);
        return;
      }
      const meter: unknown = (meters as Record<string, unknown>)[call.meter];
      if (typeof meter !== 'object' || meter === null) return;
      if (call.method !== START && !CALLS.has(call.method)) return;
      const fn: unknown = (meter as Record<string, unknown>)[call.method];
      if (typeof fn !== 'function') return;
      const out: unknown = Reflect.apply(fn, meter, call.args);
      if (call.method === START && call.timer !== undefined && typeof out === 'function') ends.set(call.timer, out as () => unknown);
    },
    /** forgets the timers still open (their thread ended) */
    clear() {
      ends.clear();
    },
  };
}
