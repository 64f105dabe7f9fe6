// The public door of src/series-http/ (docs/ARCHITECTURE.md, "Public doors"): the series API as a
// route handler of the service's HTTP server.
export { createSeriesApi } from './http-api.ts';
