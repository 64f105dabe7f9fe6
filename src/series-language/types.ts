// Pure: the shapes of the OpenTSDB-compatible series API (docs/SERIES-API.md), shared by the query
// language (parse.ts and its neighbours: requests → TsdbQuery), the computation (compute/: series
// points → result series) and the HTTP side. OpenTSDB 2.4.1 is the reference for every rule; Grafana's
// built-in OpenTSDB datasource is the client whose requests must work.

/** OpenTSDB 2.4.1's aggregators (`/api/aggregators`, net.opentsdb.core.Aggregators). */
export const AGGREGATOR_NAMES = [
  'sum',
  'min',
  'max',
  'avg',
  'none',
  'median',
  'mult',
  'dev',
  'diff',
  'count',
  'zimsum',
  'mimmin',
  'mimmax',
  'first',
  'last',
  'pfsum',
  'squareSum',
  'p999',
  'p99',
  'p95',
  'p90',
  'p75',
  'p50',
  'ep999r3',
  'ep99r3',
  'ep95r3',
  'ep90r3',
  'ep75r3',
  'ep50r3',
  'ep999r7',
  'ep99r7',
  'ep95r7',
  'ep90r7',
  'ep75r7',
  'ep50r7',
] as const;
export type AggregatorName = (typeof AGGREGATOR_NAMES)[number];

/** The tag-value filters of OpenTSDB 2.4 (`/api/config/filters`). */
export const FILTER_TYPES = ['literal_or', 'iliteral_or', 'not_literal_or', 'not_iliteral_or', 'wildcard', 'iwildcard', 'regexp'] as const;
export type FilterType = (typeof FILTER_TYPES)[number];

export interface TagFilter {
  readonly type: FilterType;
  readonly tagk: string;
  /** the filter expression as given, e.g. `web01|web02`, `web*`, `^web[0-9]+$` */
  readonly filter: string;
  readonly groupBy: boolean;
  /**
   * Added for the query language: true only for the legacy shortcut `host=web*` (a `tags` value or
   * `{…}` group with an asterisk and no `type(…)`), for which OpenTSDB builds a CASE-INSENSITIVE
   * wildcard that still reports type `wildcard`. Absent otherwise (the type alone says it).
   */
  readonly caseInsensitive?: boolean;
}

export const FILL_POLICIES = ['none', 'nan', 'null', 'zero'] as const;
export type FillPolicy = (typeof FILL_POLICIES)[number];

/** A calendar or fixed downsample interval unit: ms, s, m, h, d, w, n (months), y. */
export type IntervalUnit = 'ms' | 's' | 'm' | 'h' | 'd' | 'w' | 'n' | 'y';

export interface Downsample {
  /** as given, e.g. `1h-avg-zero`, `0all-count`, `1dc-max` */
  readonly spec: string;
  /** `0all`: one bucket over the whole query range */
  readonly all: boolean;
  /** the interval's count and unit (`1h` → 1, 'h'); for `all`, 0 and 'ms' */
  readonly count: number;
  readonly unit: IntervalUnit;
  /** fixed length in ms (count × unit); months and years have none (0): calendar only */
  readonly intervalMs: number;
  /** `c` suffix or the query's useCalendar: buckets on the timezone's calendar boundaries */
  readonly calendar: boolean;
  /** IANA zone for calendar buckets (the query's `timezone`, default UTC) */
  readonly timezone: string;
  /** the downsample aggregator (`none` is refused by the parser, as OpenTSDB does) */
  readonly aggregator: AggregatorName;
  readonly fill: FillPolicy;
}

export interface RateOptions {
  readonly counter: boolean;
  /** the counter's maximum before it rolls over (default Long.MAX_VALUE as a double) */
  readonly counterMax: number;
  /** a rate above this is reported as 0 (0 = off) */
  readonly resetValue: number;
  /** drop the point at a counter reset instead of reporting a computed value */
  readonly dropResets: boolean;
}

export interface SubQuery {
  /** position in the request (`query.index` in showQuery output) */
  readonly index: number;
  readonly metric: string;
  /** cross-series aggregator (`none`: every series on its own) */
  readonly aggregator: AggregatorName;
  readonly downsample: Downsample | undefined;
  readonly rate: boolean;
  readonly rateOptions: RateOptions;
  /** legacy `tags` and `{…}` groups become filters (literal_or / wildcard with groupBy) */
  readonly filters: readonly TagFilter[];
  readonly explicitTags: boolean;
}

export interface TsdbQuery {
  /** resolved start and end, epoch ms; end defaults to now */
  readonly startMs: number;
  readonly endMs: number;
  /** whether `end` was given (showQuery echoes it) */
  readonly endGiven: boolean;
  readonly queries: readonly SubQuery[];
  /** ms timestamps in dps (msResolution / ms) */
  readonly msResolution: boolean;
  readonly showQuery: boolean;
  /** `arrays` query parameter (presence-only, as OpenTSDB): dps as [[ts, v], …] */
  readonly arrays: boolean;
  readonly timezone: string;
  readonly useCalendar: boolean;
}

/** One stored series as the computation takes it: points ascending by ts (epoch ms). */
export interface RawSeries {
  readonly kind: 'raw';
  /** every tag of the series, the id under its configured key included */
  readonly tags: Readonly<Record<string, string>>;
  readonly ts: readonly number[];
  readonly values: readonly number[];
}

/**
 * One series already downsampled (from rollup summaries): one value per downsample bucket start
 * (ascending, epoch ms), the downsample aggregator's value of that bucket. Missing buckets are filled
 * by the computation as the fill policy says, exactly as for raw points.
 */
export interface BucketedSeries {
  readonly kind: 'buckets';
  readonly tags: Readonly<Record<string, string>>;
  readonly ts: readonly number[];
  readonly values: readonly number[];
}

export type SeriesInput = RawSeries | BucketedSeries;

/** One result series, as OpenTSDB's /api/query returns it (before JSON rendering). */
export interface ResultSeries {
  readonly metric: string;
  readonly tags: Readonly<Record<string, string>>;
  readonly aggregateTags: readonly string[];
  /** [ts ms, value]; a value may be NaN (nan fill) or null (null fill) */
  readonly dps: readonly (readonly [number, number | null])[];
}
