// The public door of src/metrics/ (docs/ARCHITECTURE.md, "Public doors"). Inside src/ only the wiring
// (src/service/) imports the metrics; outside, bench:encode and the benchmarks' services measure the
// paths with their metrics on, as the service runs them.
export { registerHotIdMetrics } from './hot-id-metrics.ts';
export { METRIC_NAMES, createMetrics } from './ingest-metrics.ts';
export { createReadMetrics } from './read-metrics.ts';
export { registerQueryLimitMetrics } from './query-limit-metrics.ts';
export { meteredRegionWrites, regionMapObserver } from './region-writes-metrics.ts';
