/**
 * Pure: the load reports the instances publish about their writes, and the promotions their sum
 * calls for.
 * Design notes: docs/DECISIONS.md#cluster-load
 */

export interface LoadReport {
  /** the reporting instance (unique per process) */
  readonly instance: string;
  /** when the report was made (epoch ms, the reporter's clock) */
  readonly at: number;
  readonly windowMs: number;
  /** events the instance wrote in the window */
  readonly total: number;
  /** [id, events] of its top ids: lower bounds (sketch count − error), largest first */
  readonly top: readonly (readonly [string, number])[];
}

export const LOAD_VERSION = 1;

export function encodeLoad(r: LoadReport): Buffer {
  return Buffer.from(JSON.stringify({ v: LOAD_VERSION, instance: r.instance, at: r.at, windowMs: r.windowMs, total: r.total, top: r.top }), 'utf8');
}

const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0;

/** A load report from its cell, or undefined when it is not one (skipped: another version, damage). */
export function decodeLoad(bytes: Uint8Array): LoadReport | undefined {
  let o: unknown;
  try {
    o = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch {
    return undefined;
  }
  const r = o as Partial<Record<keyof LoadReport | 'v', unknown>>;
  if (
    typeof o !== 'object' ||
    o === null ||
    r.v !== LOAD_VERSION ||
    typeof r.instance !== 'string' ||
    !isCount(r.at) ||
    !isCount(r.windowMs) ||
    !isCount(r.total) ||
    !Array.isArray(r.top)
  )
    return undefined;
  const top: [string, number][] = [];
  for (const p of r.top as unknown[]) {
    if (!Array.isArray(p) || typeof p[0] !== 'string' || !isCount(p[1])) return undefined;
    top.push([p[0], p[1]]);
  }
  return { instance: r.instance, at: r.at, windowMs: r.windowMs, total: r.total, top };
}

export interface ClusterLoad {
  /** events over all fresh reports */
  readonly total: number;
  /** id → events (sum of the lower bounds over the instances that list it) */
  readonly counts: ReadonlyMap<string, number>;
  /** reports used */
  readonly instances: number;
}

/** Sums the reports made within `maxAgeMs` of `now` (older ones are from stopped instances). */
export function clusterLoad(reports: readonly LoadReport[], now: number, maxAgeMs: number): ClusterLoad {
  const counts = new Map<string, number>();
  let total = 0;
  let instances = 0;
  for (const r of reports) {
    if (now - r.at > maxAgeMs) continue;
    instances++;
    total += r.total;
    for (const [id, n] of r.top) counts.set(id, (counts.get(id) ?? 0) + n);
  }
  return { total, counts, instances };
}

export interface PromotionPolicy {
  readonly minShare: number;
  readonly minEvents: number;
  readonly kFactor: number;
  readonly buckets: number;
  /** most buckets an id may get (≤ B) */
  readonly maxK: number;
}

/** K for an id of this share: the smallest power of two ≥ share × B × kFactor, at least 2, at most maxK (1 when maxK < 2). */
export function sizeK(share: number, p: Pick<PromotionPolicy, 'buckets' | 'kFactor' | 'maxK'>): number {
  const cap = Math.min(p.maxK, p.buckets);
  if (cap < 2) return 1;
  const want = Math.max(2, share * p.buckets * p.kFactor);
  return Math.min(cap, 2 ** Math.ceil(Math.log2(want)));
}

export interface Promotion {
  readonly id: string;
  readonly k: number;
  /** the id's share of all writes that called for it */
  readonly share: number;
}

/** Ids whose share calls for more buckets than they have (`currentK`: the largest K of the id's epochs). */
export function promotionsFor(load: ClusterLoad, p: PromotionPolicy, currentK: (id: string) => number): Promotion[] {
  if (load.total < p.minEvents) return [];
  const out: Promotion[] = [];
  for (const [id, n] of load.counts) {
    const share = n / load.total;
    if (share < p.minShare) continue;
    const k = sizeK(share, p);
    if (k > currentK(id)) out.push({ id, k, share });
  }
  return out.sort((a, b) => b.share - a.share || (a.id < b.id ? -1 : 1));
}
