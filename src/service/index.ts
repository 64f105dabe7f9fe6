// The public door of src/service/ (docs/ARCHITECTURE.md, "Public doors"): the service itself, and the
// construction helpers of the composition root (the Keyspace, the Tables, the registry store, the HBase
// client, the ingest's settings and observers), so a tool or benchmark builds what the service builds.
export { createHBaseClient } from './clients.ts';
export { hotIdsOptions } from './ingest-side.ts';
export { keyspaceOf, openKeyspace, registryStore, tablesOf } from './keyspace.ts';
export { ingestObserver, writeObserver } from './observers.ts';
export { startService, type Service } from './service.ts';
export { catalogMarks, planSettings, rollupMarks, touches } from './service-settings.ts';
