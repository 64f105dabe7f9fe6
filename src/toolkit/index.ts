// The public door of src/toolkit/ (docs/ARCHITECTURE.md, "Public doors"): the pool of the walks and the
// retry with capped backoff (the benchmarks' loaders write with it, as the ingest does).
export { runLimited } from './pool.ts';
export { retrying } from './retry.ts';
