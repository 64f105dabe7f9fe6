// Bounded parallelism over a list: at most `limit` calls of `fn` at once, in list order.
export async function forEachLimit<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}

export function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}
