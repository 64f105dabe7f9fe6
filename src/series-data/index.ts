// The public door of src/series-data/ (docs/ARCHITECTURE.md, "Public doors"): what the series API
// reads, as the planner, the readers, the caches and the store all see it.
export { tagSetKey, type PointBudget, type RawAsk, type TaggedPoints } from './points.ts';
export type { MarkedWindow, MarkSpan, StoredWindow, WindowsAsk, WindowSpan, WindowsRead } from './windows.ts';
