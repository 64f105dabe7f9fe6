// Pure: how OpenTSDB 2.4.1 splits the matching series of a sub-query into groups
// (TsdbQuery.GroupByAndAggregateCB) and names each group (SpanGroup.computeTags).

import type { SeriesInput, TagFilter } from '../types.ts';

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

/**
 * One group per distinct combination of the group-by tag values; all series in one group when there
 * is no group-by. A series lacking a group-by tag is dropped (2.4.1 logs "WTF? Dropping span"). With
 * the `none` aggregator, every series is its own group (group-bys are skipped).
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
