// Pure: OpenTSDB 2.4.1's /api/query answer as JSON text, one result series at a time (the HTTP side
// streams them: `[`, series joined by `,`, `]`), as HttpJsonSerializer.formatQueryAsyncV1 writes it:
//   {"metric":…,"tags":{…},"aggregateTags":[…],("query":{…},)"dps":{"<ts>":v,…}}
// or, with the `arrays` query parameter, "dps":[[ts,v],…]. Timestamps are seconds unless the query
// asked for msResolution (integer division, so points within one second repeat a key in the object
// form, as the TSD's do). NaN is the JSON string "NaN" (Jackson quotes non-numeric numbers), ±Infinity
// likewise; a null (null fill) is null. `query` (showQuery) echoes the sub-query as the TSD's Jackson
// serialisation of TSSubQuery names its fields; Grafana reads `query.index` from it.
import type { ResultSeries, SubQuery, TsdbQuery } from '../series-language/types.ts';

export interface RenderOptions {
  readonly msResolution: boolean;
  readonly arrays: boolean;
}

function num(v: number | null): string {
  if (v === null) return 'null';
  if (Number.isFinite(v)) return String(v);
  return Number.isNaN(v) ? '"NaN"' : v > 0 ? '"Infinity"' : '"-Infinity"';
}

function stamp(ts: number, o: RenderOptions): number {
  return o.msResolution ? ts : Math.trunc(ts / 1000);
}

export function dpsJson(dps: ResultSeries['dps'], o: RenderOptions): string {
  return [...dpsJsonParts(dps, o)].join('');
}

/** Points rendered per part of dpsJsonParts. */
const PART_POINTS = 8192;

/** dpsJson in parts of at most PART_POINTS points (joined, they are dpsJson), so a writer can give the event loop back between two. */
export function* dpsJsonParts(dps: ResultSeries['dps'], o: RenderOptions): Generator<string> {
  yield o.arrays ? '[' : '{';
  for (let from = 0; from < dps.length; from += PART_POINTS) {
    const to = Math.min(dps.length, from + PART_POINTS);
    const parts = new Array<string>(to - from);
    for (let i = from; i < to; i++) {
      const [ts, v] = dps[i] as readonly [number, number | null];
      parts[i - from] = o.arrays ? `[${stamp(ts, o)},${num(v)}]` : `"${stamp(ts, o)}":${num(v)}`;
    }
    yield (from === 0 ? '' : ',') + parts.join(',');
  }
  yield o.arrays ? ']' : '}';
}

/**
 * The `query` echo of showQuery: TSSubQuery's bean properties in the order the TSD serialises them.
 * `filterTagKs` holds UIDs, which we do not have (empty); `rollupTable` says where the points came
 * from: `raw`, as OpenTSDB says for its raw table, or `rollup:<window>s` (our planner's choice).
 */
export function subQueryEcho(sub: SubQuery, plan = 'raw'): Record<string, unknown> {
  const groupBy = Object.fromEntries(sub.filters.filter((f) => f.groupBy).map((f) => [f.tagk, `${f.type}(${f.filter})`]));
  return {
    aggregator: sub.aggregator,
    metric: sub.metric,
    tsuids: null,
    downsample: sub.downsample?.spec ?? null,
    rate: sub.rate,
    filters: sub.filters.map((f) => ({ tagk: f.tagk, filter: f.filter, group_by: f.groupBy, type: f.type })),
    percentiles: null,
    index: sub.index,
    rateOptions: sub.rate
      ? {
          counter: sub.rateOptions.counter,
          counterMax: sub.rateOptions.counterMax,
          resetValue: sub.rateOptions.resetValue,
          dropResets: sub.rateOptions.dropResets,
        }
      : null,
    filterTagKs: [],
    explicitTags: sub.explicitTags,
    useFuzzyFilter: true,
    preAggregate: false,
    rollupUsage: null,
    rollupTable: plan,
    showHistogramBuckets: false,
    useMultiGets: true,
    tags: groupBy,
    histogramQuery: false,
  };
}

/** How a series is rendered: its points as arrays or as an object; `plan` (default raw) goes to the echo's rollupTable. */
export interface SeriesJsonHow {
  readonly arrays: boolean;
  readonly plan?: string;
}

/** One result series as a JSON object (no separator); `how.plan` goes to the echo's rollupTable. */
export function seriesJson(s: ResultSeries, sub: SubQuery, q: Pick<TsdbQuery, 'msResolution' | 'showQuery'>, how: SeriesJsonHow): string {
  return [...seriesJsonParts(s, sub, q, how)].join('');
}

/** seriesJson in parts (its points in parts of dpsJsonParts). */
export function* seriesJsonParts(s: ResultSeries, sub: SubQuery, q: Pick<TsdbQuery, 'msResolution' | 'showQuery'>, how: SeriesJsonHow): Generator<string> {
  const { arrays, plan = 'raw' } = how;
  const head = `{"metric":${JSON.stringify(s.metric)},"tags":${JSON.stringify(s.tags)},"aggregateTags":${JSON.stringify(s.aggregateTags)}`;
  const query = q.showQuery ? `,"query":${JSON.stringify(subQueryEcho(sub, plan))}` : '';
  yield `${head}${query},"dps":`;
  yield* dpsJsonParts(s.dps, { msResolution: q.msResolution, arrays });
  yield '}';
}
