// The one entry point of the schema doctor, used by `tsingest doctor` (src/cli/doctor.ts) and by the
// service's periodic run (src/service/doctor-side.ts): gather the facts through the REST gateway,
// apply every rule. The options go to gatherFacts as they are, so a new gathering option (a probe)
// reaches both users without a change here.
import type { HBaseRestClient } from '../hbase/index.ts';
import { diagnose } from './diagnose.ts';
import type { ClusterFacts } from './facts.ts';
import type { Finding } from './finding.ts';
import { gatherFacts, type GatherOptions } from './gather.ts';

/** What a run looked at: the tables and how many region servers the cluster status listed. */
export interface Checked {
  readonly tables: readonly string[];
  readonly servers: number;
}

export interface CheckResult {
  /** sorted: errors first, then by rule and subject */
  readonly findings: Finding[];
  readonly checked: Checked;
  /** what the rules read (the CLI keeps the write counters for --since) */
  readonly facts: ClusterFacts;
}

/** HBase's defaults for the sizing formula (hbase.hregion.memstore.flush.size, hbase.regionserver.global.memstore.size). */
export const HBASE_DEFAULTS = { memstoreFlushSizeMB: 128, globalMemstoreFraction: 0.4 } as const;

/** GatherOptions.previousWrites from write counters as `writeCounters` (gather.ts) returns them and --since FILE keeps them. */
export function previousWritesOf(writes: Readonly<Record<string, Readonly<Record<string, number>>>>): Map<string, Map<string, number>> {
  return new Map(Object.entries(writes).map(([t, m]) => [t, new Map(Object.entries(m))]));
}

export async function checkCluster(rest: HBaseRestClient, options: GatherOptions): Promise<CheckResult> {
  const facts = await gatherFacts(rest, options);
  return { findings: diagnose(facts), checked: { tables: options.tables, servers: facts.servers.length }, facts };
}
