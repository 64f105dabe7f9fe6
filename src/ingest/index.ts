// The public door of src/ingest/ (docs/ARCHITECTURE.md, "Public doors"). The parts of the write path
// the service assembles are public too: bench:encode assembles them without Kafka or HBase and
// measures them, and the benchmarks' loaders plan their rows with the ingest's own batch plan.
export { planBatch, rowBytes, type BatchPlan, type PlanSettings, type SourceRecord } from './batch-plan.ts';
export { EventWriter } from './event-writer.ts';
export { OutagePolicy } from './outage-policy.ts';
export { RollupMarks } from './rollup-marks.ts';
