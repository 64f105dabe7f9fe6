// The public door of src/load/ (docs/ARCHITECTURE.md, "Public doors"): hot ids, the region map and the
// skew arithmetic of the region writes (the benchmarks report the same skew the service does).
export { HotIds } from './hot-ids.ts';
export { RegionMap, locateIn } from './region-map.ts';
export type { RegionInfo } from './region-source.ts';
export { computeSkew } from './region-writes.ts';
