// Pure: where each sub-query's points come from, `raw` or `rollup` at one window size
// (docs/SERIES-API.md, "The planner").
// Design notes: docs/DECISIONS.md#the-planner
import { isRollupExact } from '../series-compute/rollup-exact.ts';
import { scanRange, type ScanRange } from '../series-compute/range.ts';
import type { SubQuery } from '../series-language/types.ts';

export interface RollupTier {
  /** configured window sizes, finest first (ms) */
  readonly windowsMs: readonly number[];
  readonly graceMs: number;
  /** each window size's summary TTL (ms) by size (ms); null or absent: kept forever */
  readonly ttlMsByWindow: ReadonlyMap<number, number | null>;
  /** the data table's TTL (ms), or null for none */
  readonly rawTtlMs: number | null;
  /** the point blocks' TTL (ms, counted from when the job wrote them), or null for none: tables.rollup.pointsTtlSeconds */
  readonly blocksTtlMs: number | null;
  /** the job writes point blocks (rollup.pointBlocks.enabled) */
  readonly blocks: boolean;
  /** the sizes the job writes blocks for (rollup.pointBlocks.everySize), finest first; absent: every size */
  readonly blockSizesMs?: readonly number[];
}

/**
 * The earliest window start whose summary of size `windowMs` is surely still kept at `now`. A summary's
 * TTL counts from its cell timestamp, the time the job (or backfill) wrote it, which is never before
 * the window's start (in practice after its end and grace), so a window starting at or after
 * now − TTL is kept. -Infinity without a TTL.
 */
export function keptSince(tier: RollupTier, windowMs: number, now: number): number {
  const ttl = tier.ttlMsByWindow.get(windowMs) ?? null;
  return ttl === null ? Number.NEGATIVE_INFINITY : now - ttl;
}

/** Of the sizes dividing the interval (any order), the one to read: see the file comment. */
export function chooseWindow(tier: RollupTier, dividing: readonly number[], scanStartMs: number, now: number): number {
  const largestFirst = [...dividing].sort((a, b) => b - a);
  const firstWindow = (w: number): number => scanStartMs - (((scanStartMs % w) + w) % w);
  const holdsAll = largestFirst.find((w) => firstWindow(w) >= keptSince(tier, w, now));
  if (holdsAll !== undefined) return holdsAll;
  let best = largestFirst[0] as number;
  for (const w of largestFirst) if (keptSince(tier, w, now) < keptSince(tier, best, now)) best = w;
  return best;
}

export type SubQueryPlan =
  | { readonly path: 'raw'; readonly scan: ScanRange; readonly reason: string }
  | { readonly path: 'rollup'; readonly scan: ScanRange; readonly windowMs: number; readonly intervalMs: number };

export function planSubQuery(
  sub: SubQuery,
  range: { readonly startMs: number; readonly endMs: number },
  tier: RollupTier | undefined,
  now: number,
): SubQueryPlan {
  const scan = scanRange(sub.downsample, range.startMs, range.endMs);
  if (tier === undefined) return { path: 'raw', scan, reason: 'rollups off' };
  const choice = isRollupExact(sub, tier.windowsMs);
  if (!choice.exact) return { path: 'raw', scan, reason: choice.reason };
  const intervalMs = (sub.downsample as NonNullable<SubQuery['downsample']>).intervalMs;
  const dividing = tier.windowsMs.filter((w) => intervalMs % w === 0);
  return { path: 'rollup', scan, windowMs: chooseWindow(tier, dividing, scan.startMs, now), intervalMs };
}

/** The window sizes whose pending markers make a window of `windowMs` unsummarised: it and the finer ones. */
export function markerSizes(tier: RollupTier, windowMs: number): number[] {
  return tier.windowsMs.filter((w) => w <= windowMs && windowMs % w === 0);
}

/**
 * The downsample buckets (starts, ms) of a rollup plan that must come from raw points: those holding
 * a window that is open, marked (`marked`: starts of marked windows of any size in markerSizes), not
 * wholly in the scan range, or whose summary of the plan's size may have expired (keptSince). Every
 * other bucket in the scan range is answered
 * from summaries.
 */
export function rawBuckets(
  plan: Extract<SubQueryPlan, { path: 'rollup' }>,
  tier: RollupTier,
  marked: Iterable<{ readonly startMs: number; readonly sizeMs: number }>,
  now: number,
): Set<number> {
  const { scan, windowMs, intervalMs } = plan;
  const bucketOf = (ts: number): number => ts - (((ts % intervalMs) + intervalMs) % intervalMs);
  const raw = new Set<number>();
  for (const m of marked) {
    // A marked window of a finer size lies inside one window of this size, and so in one bucket.
    for (let t = m.startMs; t < m.startMs + m.sizeMs; t += windowMs) raw.add(bucketOf(t));
  }
  const firstBucket = bucketOf(scan.startMs);
  const kept = keptSince(tier, windowMs, now);
  for (let b = firstBucket; b < scan.endMs; b += intervalMs) {
    for (let w = b; w < b + intervalMs; w += windowMs) {
      const open = w + windowMs + tier.graceMs > now;
      const outside = w < scan.startMs || w + windowMs > scan.endMs;
      const expired = w < kept;
      if (open || outside || expired) {
        raw.add(b);
        break;
      }
    }
  }
  return raw;
}

/**
 * Of the buckets read raw, those the data table no longer holds whole (raw TTL counted from the event
 * ts: a bucket starting before now − TTL lost its oldest points): the answer there is what is left.
 */
export function expiredRawBuckets(raw: Iterable<number>, tier: RollupTier, now: number): number {
  if (tier.rawTtlMs === null) return 0;
  const since = now - tier.rawTtlMs;
  let n = 0;
  for (const b of raw) if (b < since) n++;
  return n;
}

/** Coalesces bucket starts into [from, to) ranges of consecutive buckets, ascending. */
export function bucketRanges(buckets: Iterable<number>, intervalMs: number): { from: number; to: number }[] {
  const sorted = [...buckets].sort((a, b) => a - b);
  const out: { from: number; to: number }[] = [];
  for (const b of sorted) {
    const last = out.at(-1);
    if (last !== undefined && last.to === b) last.to = b + intervalMs;
    else out.push({ from: b, to: b + intervalMs });
  }
  return out;
}
