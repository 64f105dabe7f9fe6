// The public door of src/spread/ (docs/ARCHITECTURE.md, "Public doors"): promotion sizing, and the
// registry's port (the in-memory HBase of the tests implements it).
export { sizeK } from './load.ts';
export type { RegistryPort } from './store.ts';
