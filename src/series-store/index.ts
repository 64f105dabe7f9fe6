// The public door of src/series-store/ (docs/ARCHITECTURE.md, "Public doors"): the series store over
// its HBase port, and the window and tail caches the wiring puts in front of it.
export { fixedSpread, SeriesStore, type SeriesScanPort, type SpreadSource } from './series-store.ts';
export { TailCache } from './tail-cache.ts';
export { withTailCache } from './tail-reads.ts';
export { cachedReads, WindowCache } from './window-cache.ts';
