// What one side of the live phase's dashboard answered (series-live.ts): per panel the times, points,
// plans, Server-Timing phases and statuses other than 200, and their figures.
import { parseServerTiming } from '../../../src/series-query/index.ts';
import { percentile } from './load.ts';

export interface SideFigures {
  readonly p50: number;
  readonly p99: number;
  readonly n: number;
  readonly points: number;
  readonly failed: Readonly<Record<string, number>>;
}

export const stats = (xs: readonly number[]): { p50: number; p99: number } => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p99: percentile(s, 99) };
};

export interface SideAcc {
  ms: Map<string, number[]>;
  points: Map<string, number>;
  plans: Map<string, Set<string>>;
  /** by panel, phase (Server-Timing) → ms of each answer */
  phases: Map<string, Map<string, number[]>>;
  /** answers other than 200, by panel and status */
  failed: Map<string, Map<number, number>>;
}

export const newAcc = (): SideAcc => ({ ms: new Map(), points: new Map(), plans: new Map(), phases: new Map(), failed: new Map() });

/** A 200's Server-Timing phases into `acc`, with `other`: the time its phases do not account for. */
export function addPhases(acc: SideAcc, panel: string, r: { readonly ms: number; readonly timing: string | null }): void {
  const phases = parseServerTiming(r.timing);
  if (phases.size === 0) return;
  const byPhase = acc.phases.get(panel) ?? acc.phases.set(panel, new Map()).get(panel);
  let named = 0;
  for (const [name, ms] of phases) {
    named += ms;
    if (byPhase !== undefined) push(byPhase, name, ms);
  }
  if (byPhase !== undefined) push(byPhase, 'other', Math.max(0, r.ms - named));
}

export function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list === undefined) m.set(k, [v]);
  else list.push(v);
}

/** One panel's figures on one side: p50 / p99 over every request, points per 200, statuses other than 200. */
export function sideFigures(acc: SideAcc, panel: string): SideFigures {
  const ms = acc.ms.get(panel) ?? [];
  const failed = Object.fromEntries([...(acc.failed.get(panel) ?? [])].map(([k, v]) => [String(k), v]));
  const ok = ms.length - Object.values(failed).reduce((a, b) => a + b, 0);
  return { ...stats(ms), n: ms.length, points: (acc.points.get(panel) ?? 0) / Math.max(1, ok), failed };
}

/** One panel's median ms per Server-Timing phase (and `other`). */
export function phasesP50(acc: SideAcc, panel: string): Record<string, number> {
  return Object.fromEntries([...(acc.phases.get(panel) ?? [])].map(([k, v]) => [k, Math.round(stats(v).p50)]));
}
