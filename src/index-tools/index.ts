// The public door of src/index-tools/ (docs/ARCHITECTURE.md, "Public doors"): the port its passes read
// and write through (the in-memory HBase of the tests implements it).
export type { IndexStore } from './passes.ts';
