/**
 * Pure: bounded parallelism over a list. `fn` runs over the items in list order with at most `limit`
 * calls in flight. No new item starts once `signal` aborts or a call has failed; the calls already
 * running are let finish, then the first failure is rethrown. Next to the limiter (limiter.ts), which
 * bounds tasks that are not known up front.
 */
export async function runLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>, signal?: AbortSignal): Promise<void> {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`concurrency must be a positive integer, got ${limit}`);
  let next = 0;
  const failures: unknown[] = [];
  const worker = async (): Promise<void> => {
    while (failures.length === 0 && signal?.aborted !== true && next < items.length) {
      const item = items[next++] as T;
      try {
        await fn(item);
      } catch (err) {
        failures.push(err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failures.length > 0) throw failures[0];
}
