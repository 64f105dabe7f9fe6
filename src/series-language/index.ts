// The public door of src/series-language/ (docs/ARCHITECTURE.md, "Public doors"): a query parsed from
// POST or m=, the tag-value filters built and matched (the catalog's look-ups, bench:catalog),
// OpenTSDB's error, and the query's types.
export { TsdbQueryError } from './errors.ts';
export { buildFilter, matches } from './filters.ts';
export { parseQueryString } from './parse-m.ts';
export { parseQueryBody } from './parse-query.ts';
export type { RawSeries, TagFilter } from './types.ts';
