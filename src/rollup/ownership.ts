/**
 * Which salt buckets' rollup markers this runner works on. Every instance of a cluster runs the rollup
 * job; each takes the buckets it owns, so the work is divided instead of repeated (docs/ROLLUPS.md,
 * "Ownership"). Ownership is advisory: two runners that briefly both own a bucket (while ownership
 * moves) stay exact, because every window is recomputed from its sources and every marker row goes with
 * a check-and-delete; they only repeat work.
 */

export interface BucketOwnership {
  /** the buckets owned now (asked before each bucket and each page of its markers) */
  owned(): ReadonlySet<number>;
}

/** Every bucket, always: one runner alone (`rollup.owners.mode = "all"`). */
export function ownAll(buckets: number): BucketOwnership {
  const all = new Set(Array.from({ length: buckets }, (_v, b) => b));
  return { owned: () => all };
}

/**
 * The buckets that assigned partitions stand for: bucket b belongs to partition b mod P (P = the
 * ownership topic's partition count; created with P = B, so partition p is bucket p). A partition ≥ B
 * stands for no bucket when P > B.
 */
export function bucketsOfPartitions(partitions: Iterable<number>, partitionCount: number, buckets: number): Set<number> {
  if (!(partitionCount > 0)) throw new RangeError(`the ownership topic has no partitions (${partitionCount})`);
  const mine = new Set(partitions);
  const out = new Set<number>();
  for (let b = 0; b < buckets; b++) if (mine.has(b % partitionCount)) out.add(b);
  return out;
}
