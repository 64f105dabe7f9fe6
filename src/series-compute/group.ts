// Pure: how OpenTSDB 2.4.1 orders the matching series of a sub-query (its scan's row-key order),
// splits them into groups (TsdbQuery.GroupByAndAggregateCB) and names each group
// (SpanGroup.computeTags).

import { compareCodePoints } from '../events/cells.ts';
import type { AggregatorName, SeriesInput, TagFilter } from '../series-language/types.ts';

/** An order of the series of one sub-query (all of one metric): negative when `a` comes first. */
export type SeriesOrder = (a: SeriesInput, b: SeriesInput) => number;

export interface SeriesGroup {
  /** the group's values of the group-by tag keys (sorted keys), '' without group-by */
  readonly key: string;
  readonly series: readonly SeriesInput[];
}

/**
 * The group-by tag keys: every tag key with at least one `groupBy` filter (TsdbQuery.findGroupBys),
 * sorted (2.4.1 sorts them by UID; the order only shapes the group key, not the result).
 */
export function groupByKeys(filters: readonly TagFilter[]): string[] {
  return [...new Set(filters.filter((f) => f.groupBy).map((f) => f.tagk))].sort();
}

/** A series' tags as 2.4.1's row key lays them out: [k1, v1, k2, v2, …], keys ascending. */
function nameKey(tags: Readonly<Record<string, string>>): string[] {
  const keys = Object.keys(tags);
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) sorted = compareCodePoints(keys[i - 1] ?? '', keys[i] ?? '') < 0;
  if (!sorted) keys.sort(compareCodePoints);
  const out = new Array<string>(keys.length * 2);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] ?? '';
    out[2 * i] = k;
    out[2 * i + 1] = tags[k] ?? '';
  }
  return out;
}

function compareNameKeys(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareCodePoints(a[i] ?? '', b[i] ?? '');
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

/**
 * Name order: the tag pairs in tag-key order, compared key, value, key, value, … (code points), a
 * series whose pairs are a prefix of another's first. That is 2.4.1's row-key order (TsdbQuery.SpanCmp:
 * metric UID, then the tag pairs as [tagk UID, tagv UID] in tagk UID order) with names in place of
 * UIDs and no salt: the TSD's own order when it is unsalted (tsd.storage.salt.width 0, its default)
 * and assigned its UIDs in name order. Otherwise the TSD's order depends on its UIDs, which it assigns
 * in the order it first sees each name, and on the salt bucket (a hash of the UIDs) that leads every
 * salted row key: neither is known here (docs/SERIES-API.md, Divergences).
 */
export const nameOrder: SeriesOrder = (a, b) => compareNameKeys(nameKey(a.tags), nameKey(b.tags));

/** The aggregators whose result depends on which series comes first or last (not only on rounding). */
const ORDER_SENSITIVE: ReadonlySet<AggregatorName> = new Set<AggregatorName>(['first', 'last', 'diff']);

/**
 * The series in the order 2.4.1's SpanGroup holds them, for the aggregators that depend on it: first,
 * last and diff take the value of the first / last series with one at each timestamp (the
 * AggregationIterator walks its spans in order). `order` given: sorted by it. Otherwise, for those
 * three, name order (nameOrder; each series' key built once, no sort when the series already come in
 * that order, as from the catalog); for every other aggregator the given order is kept: it changes
 * nothing but the rounding of a sum, and costs nothing.
 */
export function orderSeries(series: readonly SeriesInput[], aggregator: AggregatorName, order?: SeriesOrder): readonly SeriesInput[] {
  if (order !== undefined) return [...series].sort(order);
  if (!ORDER_SENSITIVE.has(aggregator)) return series;
  const keys = series.map((s) => nameKey(s.tags));
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) sorted = compareNameKeys(keys[i - 1] ?? [], keys[i] ?? []) <= 0;
  if (sorted) return series;
  return keys
    .map((key, i) => ({ key, i }))
    .sort((x, y) => compareNameKeys(x.key, y.key) || x.i - y.i)
    .map(({ i }) => series[i] as SeriesInput);
}

/**
 * One group per distinct combination of the group-by tag values; all series in one group when there
 * is no group-by. Each group keeps the series in their given order (orderSeries first). A series
 * lacking a group-by tag is dropped (2.4.1 logs "WTF? Dropping span"). With the `none` aggregator,
 * every series is its own group (group-bys are skipped).
 */
export function groupSeries(series: readonly SeriesInput[], filters: readonly TagFilter[], none: boolean): SeriesGroup[] {
  if (none) return series.map((s, i) => ({ key: String(i), series: [s] }));
  const keys = groupByKeys(filters);
  if (keys.length === 0) return series.length === 0 ? [] : [{ key: '', series }];
  const groups = new Map<string, SeriesInput[]>();
  for (const s of series) {
    const values: string[] = [];
    for (const k of keys) {
      const v = s.tags[k];
      if (v === undefined) break;
      values.push(v);
    }
    if (values.length !== keys.length) continue;
    const key = JSON.stringify(values);
    const g = groups.get(key);
    if (g === undefined) groups.set(key, [s]);
    else g.push(s);
  }
  return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, members]) => ({ key, series: members }));
}

export interface GroupTags {
  readonly tags: Record<string, string>;
  readonly aggregateTags: string[];
}

/**
 * SpanGroup.computeTags: a tag key whose value differs between two series of the group goes to
 * aggregateTags; every other tag key seen goes to tags with its value — INCLUDING a key present in
 * only some of the series (2.4.1 only discards on a differing value, not on absence).
 * aggregateTags are in tag-key UID order in 2.4.1 (a ByteMap's key set); we have no UIDs and sort by
 * name, which equals the TSD's order only when the UIDs were assigned in name order.
 */
export function groupTags(series: readonly SeriesInput[]): GroupTags {
  const tagSet = new Map<string, string>();
  const discards = new Set<string>();
  for (const s of series) {
    for (const [k, v] of Object.entries(s.tags)) {
      if (discards.has(k)) continue;
      const seen = tagSet.get(k);
      if (seen === undefined) tagSet.set(k, v);
      else if (seen !== v) {
        discards.add(k);
        tagSet.delete(k);
      }
    }
  }
  const tags: Record<string, string> = {};
  for (const k of [...tagSet.keys()].sort()) tags[k] = tagSet.get(k) ?? '';
  return { tags, aggregateTags: [...discards].sort() };
}
