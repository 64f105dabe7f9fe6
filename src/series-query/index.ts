// The public door of src/tsdb/ (docs/ARCHITECTURE.md, "Public doors"): the query language, the filters
// and the computation, which the compatibility suite's offline check runs against OpenTSDB's answers,
// and the reading of a Server-Timing header (the live benchmark reports our phases from it).
export { computeSubQuery, type ComputeOptions } from '../series-compute/compute.ts';
export type { SeriesOrder } from '../series-compute/group.ts';
export { TsdbQueryError } from '../series-language/errors.ts';
export { buildFilter, matches } from '../series-language/filters.ts';
export { parseQueryString } from '../series-language/parse-m.ts';
export { parseQueryBody } from '../series-language/parse-query.ts';
export { parseServerTiming } from './phase-clock.ts';
export type { RawSeries, TagFilter } from '../series-language/types.ts';
