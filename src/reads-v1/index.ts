// The public door of src/reads-v1/ (docs/ARCHITECTURE.md, "Public doors"): the v1 read API and its queries,
// and the port they read through (the in-memory HBase of the tests implements it).
export { createReadApi } from './http-api.ts';
export type { QueryKind } from './meters.ts';
export type { RawParams } from './params.ts';
export { collectPage, createQueries } from './queries.ts';
export type { QueryStore } from './types.ts';
