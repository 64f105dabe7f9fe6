// Pure: every rule over the facts → the sorted findings (doctor/gather.ts collects the facts).
import type { ClusterFacts } from './facts.ts';
import { sortFindings, type Finding } from './finding.ts';
import { familyFindings } from './rules/families.ts';
import { footprintFindings } from './rules/footprint.ts';
import { keyspaceFindings } from './rules/keyspace.ts';
import { serverFindings, tableRegionFindings } from './rules/regions.ts';
import { retentionFindings } from './rules/retention.ts';
import { sampleFindings } from './rules/sample.ts';
import { spreadFindings } from './rules/spread.ts';
import { codecProbeFindings, storageFindings } from './rules/storage.ts';
import { versionFindings } from './rules/versions.ts';

export function diagnose(facts: ClusterFacts): Finding[] {
  const servers = facts.servers.length;
  const perTable = facts.tables.flatMap((t) => [
    ...familyFindings(t, facts.settings),
    ...versionFindings(t),
    ...storageFindings(t, facts),
    ...tableRegionFindings(t),
    ...keyspaceFindings(t, servers),
    ...spreadFindings(t),
    ...sampleFindings(t),
  ]);
  const perServer = facts.servers.flatMap((s) => serverFindings(s, facts));
  return sortFindings([...perTable, ...perServer, ...retentionFindings(facts), ...footprintFindings(facts), ...codecProbeFindings(facts)]);
}
