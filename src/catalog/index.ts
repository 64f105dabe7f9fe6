// The public door of src/catalog/ (docs/ARCHITECTURE.md, "Public doors"): the catalog's rows and the
// in-memory SeriesIndex (bench:catalog measures its look-ups).
export { SERIES_QUALIFIER, seriesRow } from './rows.ts';
export { SeriesIndex } from './series-index.ts';
