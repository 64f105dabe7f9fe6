// How much work the series API request under way is (the series it matched), carried with its async
// context (AsyncLocalStorage), so the read client's gate (src/hbase/priority-transport.ts) lets a light
// request's scans ahead of a heavy one's, as the slices let its computation resume first (slices.ts).
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestWeight {
  /** the series the request matched; 0 until its series are known */
  weight: number;
}

const current = new AsyncLocalStorage<RequestWeight>();

/** Runs `fn` as one weighed request: what it sets on its RequestWeight is what its HBase calls carry. */
export function weighed<T>(fn: (w: RequestWeight) => Promise<T>): Promise<T> {
  const w: RequestWeight = { weight: 0 };
  return current.run(w, () => fn(w));
}

/** The weight of the request whose async context this is; undefined outside one (a rollup run, the read API). */
export function currentRequestWeight(): number | undefined {
  return current.getStore()?.weight;
}
