// Pure: bytes on disk per point of this service's tables (issue 38): the store files' size from the
// region loads over the points the rollup table's coarsest summaries count. Said as info: there is no
// line to cross, only a figure to watch against OpenTSDB's as measured beside this service.
import type { ClusterFacts, TableFacts } from '../facts.ts';
import { book, type Finding } from '../finding.ts';

const MB = 1024 * 1024;
/** OpenTSDB 2.4.1's total with its row compaction on, as the storage phase measured it (BENCHMARKS.md, "Storage"). */
const OPENTSDB =
  'OpenTSDB 2.4.1 with its row compaction on, measured beside this service: 13.9 bytes per point at 3.2 points a series-hour, 4.9 at 60 (BENCHMARKS.md, Storage)';
const FIX =
  'keep raw rows and index rows for less and the point blocks and summaries for longer (tables.data.ttlSeconds, tables.index.ttlSeconds, tables.rollup.pointsTtlSeconds; docs/RETENTION.md, "Point blocks as the long-term tier"), then tables apply';

/** Store file MB of a table from its regions' loads, or undefined when a region reported none. */
function storeMB(t: TableFacts): number | undefined {
  let mb = 0;
  for (const r of t.regions) {
    if (r.storefileSizeMB === undefined) return undefined;
    mb += r.storefileSizeMB;
  }
  return mb;
}

export function footprintFindings(facts: Pick<ClusterFacts, 'tables' | 'pointCount'>): Finding[] {
  const count = facts.pointCount;
  if (count === undefined) return [];
  const common = { rule: 'storage.bytes-per-point', severity: 'info', subject: 'cluster', threshold: OPENTSDB, source: book('keysize'), fix: FIX } as const;
  const points = count.points;
  if (points === undefined) {
    return [
      { ...common, measured: `not counted: table ${count.table} holds more than ${count.bound} ${count.family} summaries (--points-scan raises the bound)` },
    ];
  }
  const ours = facts.tables.filter((t) => t.layout !== undefined);
  const sizes = ours.map((t) => ({ t, mb: storeMB(t) }));
  const total = sizes.reduce((n, s) => n + (s.mb ?? 0), 0);
  const counted = `${points} points in ${count.summaries} ${count.family} summaries of table ${count.table} (closed windows: the open one's raw rows are in the bytes, not in the count)`;
  if (points === 0 || total === 0) {
    return [{ ...common, measured: `${counted}; store files ${total} MB: the region loads count whole MB per region, too coarse to divide yet` }];
  }
  const per = (mb: number): string => ((mb * MB) / points).toFixed(1);
  const parts = sizes.map((s) => `${s.t.layout?.role ?? s.t.name} ${s.mb === undefined ? 'unknown' : per(s.mb)}`).join(', ');
  return [{ ...common, measured: `${per(total)} bytes per point (${parts}) over ${counted}; store files from the region loads, whole MB per region` }];
}
