/**
 * A counting semaphore: at most `max` tasks run at once, the rest wait in FIFO order. The by-tag read
 * wraps each step of its per-bucket scanners in it, so no more than query.bucketConcurrency HTTP
 * requests to the gateway are in flight for one read (a scanner step issues its requests one after
 * the other).
 */
export interface Limiter {
  run<T>(task: () => Promise<T>): Promise<T>;
  /** tasks running now */
  readonly active: number;
}

export function createLimiter(max: number): Limiter {
  if (!Number.isSafeInteger(max) || max < 1) throw new RangeError(`limiter max must be a positive integer, got ${max}`);
  let active = 0;
  const waiting: (() => void)[] = [];
  const release = (): void => {
    const next = waiting.shift();
    if (next === undefined) active--;
    else next();
  };
  return {
    get active() {
      return active;
    },
    async run<T>(task: () => Promise<T>): Promise<T> {
      if (active < max) active++;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await task();
      } finally {
        release();
      }
    },
  };
}

/** The same iterator with every next() run through the limiter; return() is passed through as is. */
export function limitIterator<T>(it: AsyncIterator<T>, limiter: Limiter): AsyncIterator<T> {
  return {
    next: () => limiter.run(() => it.next()),
    return: async (value?: unknown) => (it.return === undefined ? { done: true, value: undefined } : it.return(value)),
  };
}
