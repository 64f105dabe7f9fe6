// Pure: raw points as the series API's reads hand them on (a tag set's points of one id and metric,
// and a tag set's identity), the raw read asked, and the point budget every read counts against.

/** The points of one id and metric under one tag set, ascending by ts. */
export interface TaggedPoints {
  /** the tag set's identity (tagSetKey) */
  readonly tagsJson: string;
  readonly ts: number[];
  readonly values: number[];
}

/** Keys of frozen tag objects (the catalog's series: the same few thousand asked by every panel of a refresh), made once. */
const keysOfFrozen = new WeakMap<object, { readonly idTagKey: string; readonly key: string }>();

/** A tag set's identity: its pairs sorted by key, without the key the API shows the id under. */
export function tagSetKey(tags: Readonly<Record<string, string>>, idTagKey: string): string {
  const frozen = Object.isFrozen(tags);
  const kept = frozen ? keysOfFrozen.get(tags) : undefined;
  if (kept?.idTagKey === idTagKey) return kept.key;
  const key = JSON.stringify(
    Object.keys(tags)
      .filter((k) => k !== idTagKey)
      .sort()
      .map((k) => [k, tags[k]]),
  );
  if (frozen) keysOfFrozen.set(tags, { idTagKey, key });
  return key;
}

/** A raw read asked: the points of each of `metrics` with from ≤ ts < to of every id. */
export interface RawAsk {
  readonly ids: readonly string[];
  readonly metrics: readonly string[];
  readonly from: number;
  readonly to: number;
  /**
   * Ids read from a later time of their own (at or after `from`; an id absent: from `from`): one read
   * where the tail cache's ids, each kept up to a different time, were one read per time. Only the
   * series store reads by it; a reader in front of the store passes it on or returns more points.
   */
  readonly fromOf?: ReadonlyMap<string, number>;
}

/** Counts points read, and refuses to go past the query's budget or its deadline (take throws). */
export interface PointBudget {
  take(n: number): void;
}

/**
 * The budget of one read shared by several asks (`live`, those still waiting): what it takes is
 * charged to each; an ask whose budget refuses is rejected and leaves `live`; once none is left the
 * read stops (take throws, naming `what`).
 */
export function sharedBudget(live: Set<{ readonly budget: PointBudget; readonly reject: (err: unknown) => void }>, what: string): PointBudget {
  return {
    take(n) {
      for (const a of live) {
        try {
          a.budget.take(n);
        } catch (err) {
          live.delete(a);
          a.reject(err);
        }
      }
      if (live.size === 0) throw new Error(`every query of a shared ${what} stopped`);
    },
  };
}

/** The first index of ascending `a` whose value is ≥ `x` (a.length when none is). */
export function lowerBound(a: readonly number[], x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((a[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
