// Ordered shutdown: parts register a closer as they are built; closeAll() runs them in reverse order
// (last built, first closed), each once, logging failures instead of stopping the sequence.
import type { Logger } from 'pino';

export class Closers {
  readonly #list: { readonly name: string; readonly close: () => unknown }[] = [];
  readonly #log: Pick<Logger, 'warn'>;
  #closing: Promise<void> | undefined;

  constructor(log: Pick<Logger, 'warn'>) {
    this.#log = log;
  }

  add(name: string, close: () => unknown): void {
    this.#list.push({ name, close });
  }

  /** Idempotent: every call returns the same promise. */
  closeAll(): Promise<void> {
    this.#closing ??= (async () => {
      for (const { name, close } of this.#list.splice(0).reverse()) {
        try {
          await close();
        } catch (err) {
          this.#log.warn({ err, part: name }, 'error while closing');
        }
      }
    })();
    return this.#closing;
  }
}

/** Runs `fn` with `abort` fired `graceMs` in, so in-flight work is abandoned before a hard deadline. */
export async function withGrace<T>(graceMs: number, abort: AbortController, fn: () => Promise<T>): Promise<T> {
  const timer = setTimeout(() => {
    abort.abort(new Error('drain deadline reached: abandoning in-flight writes'));
  }, graceMs);
  timer.unref();
  try {
    return await fn();
  } finally {
    clearTimeout(timer);
  }
}
