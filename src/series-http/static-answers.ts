// Pure: the fixed answers of OpenTSDB 2.4.1's `GET /api/aggregators`, `/api/config/filters` and
// `/api/version`. OpenTSDB builds each from a java.util.HashMap and Jackson writes it in the map's
// iteration order, so we reproduce that order (javaHashMapOrder) rather than our declaration order:
// a client comparing bytes sees what a real 2.4.1 TSD (Java 8+ HashMap) sends.

import { AGGREGATOR_NAMES, type FilterType } from '../series-language/types.ts';

/** java.lang.String.hashCode */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/**
 * The iteration order of a java.util.HashMap (Java 8+) built with `initialCapacity` (16 when
 * `new HashMap()`) and these keys put in this order: by bucket (hash ^ hash>>>16) & (capacity − 1),
 * insertion order within a bucket (resizes keep it). Treeified buckets (8+ collisions) not modelled.
 */
export function javaHashMapOrder(keys: readonly string[], initialCapacity = 16): string[] {
  let cap = 1;
  while (cap < initialCapacity) cap *= 2;
  while (keys.length > Math.floor(cap * 0.75)) cap *= 2;
  const bucket = (k: string): number => {
    const h = javaStringHash(k);
    return (h ^ (h >>> 16)) & (cap - 1);
  };
  return keys
    .map((k, i) => ({ k, i, b: bucket(k) }))
    .sort((a, b) => a.b - b.b || a.i - b.i)
    .map((e) => e.k);
}

/** `GET /api/aggregators`: Aggregators.set(), a HashMap(8) keyset filled in source order. */
export function aggregatorsAnswer(): string[] {
  return javaHashMapOrder(AGGREGATOR_NAMES, 8);
}

/** Each filter's description() and examples(), copied from the 2.4.1 sources (src/query/filter). */
const FILTER_META: Readonly<Record<FilterType, { readonly description: string; readonly examples: string }>> = {
  literal_or: {
    description:
      'Accepts one or more exact values and matches if the series contains any of them. Multiple values can be included and must be separated by the | (pipe) character. The filter is case sensitive and will not allow characters that TSDB does not allow at write time.',
    examples: 'host=literal_or(web01),  host=literal_or(web01|web02|web03)  {"type":"literal_or","tagk":"host","filter":"web01|web02|web03","groupBy":false}',
  },
  iliteral_or: {
    description:
      'Accepts one or more exact values and matches if the series contains any of them. Multiple values can be included and must be separated by the | (pipe) character. The filter is case insensitive and will not allow characters that TSDB does not allow at write time.',
    examples:
      'host=iliteral_or(web01),  host=iliteral_or(web01|web02|web03)  {"type":"iliteral_or","tagk":"host","filter":"web01|web02|web03","groupBy":false}',
  },
  not_literal_or: {
    description:
      'Accepts one or more exact values and matches if the series does NOT contain any of them. Multiple values can be included and must be separated by the | (pipe) character. The filter is case sensitive and will not allow characters that TSDB does not allow at write time.',
    examples:
      'host=not_literal_or(web01),  host=not_literal_or(web01|web02|web03)  {"type":"not_literal_or","tagk":"host","filter":"web01|web02|web03","groupBy":false}',
  },
  not_iliteral_or: {
    description:
      'Accepts one or more exact values and matches if the series does NOT contain any of them. Multiple values can be included and must be separated by the | (pipe) character. The filter is case insensitive and will not allow characters that TSDB does not allow at write time.',
    examples:
      'host=not_iliteral_or(web01),  host=not_iliteral_or(web01|web02|web03)  {"type":"not_iliteral_or","tagk":"host","filter":"web01|web02|web03","groupBy":false}',
  },
  wildcard: {
    description:
      'Performs pre, post and in-fix glob matching of values. The globs are case sensitive and multiple wildcards can be used. The wildcard character is the * (asterisk). At least one wildcard must be present in the filter value. A wildcard by itself can be used as well to match on any value for the tag key.',
    examples: 'host=wildcard(web*),  host=wildcard(web*.tsdb.net)  {"type":"wildcard","tagk":"host","filter":"web*.tsdb.net","groupBy":false}',
  },
  iwildcard: {
    description:
      'Performs pre, post and in-fix glob matching of values. The globs are case insensitive and multiple wildcards can be used. The wildcard character is the * (asterisk). Case insensitivity is achieved by dropping all values to lower case. At least one wildcard must be present in the filter value. A wildcard by itself can be used as well to match on any value for the tag key.',
    examples: 'host=iwildcard(web*),  host=iwildcard(web*.tsdb.net)  {"type":"iwildcard","tagk":"host","filter":"web*.tsdb.net","groupBy":false}',
  },
  regexp: {
    description:
      'Provides full, POSIX compliant regular expression using the built in Java Pattern class. Note that an expression containing curly braces {} will not parse properly in URLs. If the pattern is not a valid regular expression then an exception will be raised.',
    examples: 'host=regexp(.*)  {"type":"regexp","tagk":"host","filter":".*","groupBy":false}',
  },
};

/** TagVFilter's static map, in its `put` order (literal_or, iliteral_or, not_…, regexp, wildcard, iwildcard). */
const FILTER_PUT_ORDER: readonly FilterType[] = ['literal_or', 'iliteral_or', 'not_literal_or', 'not_iliteral_or', 'regexp', 'wildcard', 'iwildcard'];

/**
 * `GET /api/config/filters`: TagVFilter.loadedFilters(): a HashMap(7) of name → HashMap(1) with
 * `description` then `examples` put. Object key order here is the JSON order.
 */
export function filtersAnswer(): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const name of javaHashMapOrder(FILTER_PUT_ORDER, 7)) {
    const meta = FILTER_META[name as FilterType];
    const inner: Record<string, string> = {};
    for (const k of javaHashMapOrder(['description', 'examples'], 1)) inner[k] = k === 'description' ? meta.description : meta.examples;
    out[name] = inner;
  }
  return out;
}

export interface BuildInfo {
  readonly shortRevision?: string;
  readonly fullRevision?: string;
  /** build time, epoch seconds (BuildData.timestamp) */
  readonly timestamp?: number;
  readonly repoStatus?: string;
  readonly user?: string;
  readonly host?: string;
  readonly branch?: string;
}

/**
 * `GET /api/version`: VersionRpc's nine string fields in HashMap order. Choice: `version` is "2.4.1",
 * the OpenTSDB release whose API we answer (clients such as Grafana gate features on it); `repo`
 * names this project (`ts-hbase-ingest`) so anyone looking can tell it is not a real TSD; the rest
 * describe our build when the caller knows it, else empty strings / "0".
 */
export function versionAnswer(info: BuildInfo = {}): Record<string, string> {
  const values: Record<string, string> = {
    version: '2.4.1',
    short_revision: info.shortRevision ?? '',
    full_revision: info.fullRevision ?? '',
    timestamp: String(info.timestamp ?? 0),
    repo_status: info.repoStatus ?? 'UNKNOWN',
    user: info.user ?? '',
    host: info.host ?? '',
    repo: 'ts-hbase-ingest',
    branch: info.branch ?? '',
  };
  const out: Record<string, string> = {};
  for (const k of javaHashMapOrder(Object.keys(values))) out[k] = values[k] ?? '';
  return out;
}
