/** Shared helpers of the metrics unit tests (not a test file itself). */
import { createHash } from 'node:crypto';
import type { Counter, Gauge } from 'prom-client';
import type { RegionInfo, RegionSource } from '../../../src/load/region-source.ts';
import { createLogger } from '../../../src/runtime/logger.ts';

export const silentLog = createLogger({ level: 'silent' });

/** A region with an HBase-style name `table,start,id.ENCODED.` (ENCODED = md5 of the rest). */
export function region(table: string, start: number[], end: number[], at: { readonly server?: string; readonly id?: number } = {}): RegionInfo {
  const { server = 'rs1:16020', id = 1700000000000 } = at;
  const startKey = Buffer.from(start);
  const prefix = `${table},${startKey.toString('hex')},${id}`;
  const encoded = createHash('md5').update(prefix).digest('hex');
  return { name: `${prefix}.${encoded}.`, startKey, endKey: Buffer.from(end), server };
}

/** B regions pre-split on the salt boundaries [0x01] … [B−1], as the table planner creates them. */
export function saltedRegions(table: string, buckets: number, server = 'rs1:16020'): RegionInfo[] {
  return Array.from({ length: buckets }, (_, i) => region(table, i === 0 ? [] : [i], i === buckets - 1 ? [] : [i + 1], { server }));
}

/** A RegionSource whose answer the test sets, counting calls. */
export class FakeSource implements RegionSource {
  calls = 0;
  answer: readonly RegionInfo[] | Error = [];
  #waiters: (() => void)[] = [];

  regions(_table: string): Promise<readonly RegionInfo[]> {
    this.calls += 1;
    const answer = this.answer;
    for (const wake of this.#waiters.splice(0)) wake();
    return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
  }

  /** Resolves on the next call of `regions`. */
  nextCall(): Promise<void> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}

/** The value of one labelled series, or undefined when the series does not exist. */
export async function seriesValue(metric: Counter | Gauge, labels: Record<string, string>): Promise<number | undefined> {
  const { values } = await metric.get();
  const hit = values.find((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val));
  return hit?.value;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `condition` every few ms; rejects after `timeoutMs`. */
export async function waitFor(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(2);
  }
}
