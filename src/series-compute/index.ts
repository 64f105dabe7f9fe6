// The public door of src/series-compute/ (docs/ARCHITECTURE.md, "Public doors"): one sub-query
// computed as OpenTSDB 2.4.1 computes it, which the compatibility suite's offline check runs against
// the TSD's recorded answers, with the series order it may give (the TSD's own, from its tsuids).
export { computeSubQuery, type ComputeOptions } from './compute.ts';
export type { SeriesOrder } from './group.ts';
