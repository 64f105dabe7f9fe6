// The public door of src/rollup/ (docs/ARCHITECTURE.md, "Public doors"): windows, settings, the job, the
// marker and summary rows, and the port the job reads through (the in-memory HBase implements it).
export { putRowOf } from './fold.ts';
export { RollupJob } from './job.ts';
export { markerPuts } from './marker.ts';
export { rollupSettings } from './rollup-settings.ts';
export type { RollupStore } from './store.ts';
export { parseWindows } from './windows.ts';
export { decodePointsBlock, encodePointsBlock, type PointRun } from './points-block.ts';
