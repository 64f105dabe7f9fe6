// Pure: region sizes and counts against the reference guide's rules of thumb, and the region server
// sizing formula (memstores that fit in the heap).
import type { ClusterFacts, ServerFacts, TableFacts } from '../facts.ts';
import { book, type Finding } from '../finding.ts';

export const REGION_MAX_GB = 50;
export const REGIONS_PER_TABLE_MAX = 100;
export const REGIONS_PER_SERVER = { low: 20, high: 200 } as const;
/** a table with more regions than this whose median region is under TINY_MB is sprawl */
export const SPRAWL_REGIONS = 100;
export const TINY_MB = 1024;

const gb = (mb: number): string => `${(mb / 1024).toFixed(1)} GB`;

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length === 0 ? 0 : s.length % 2 === 1 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

export function tableRegionFindings(t: TableFacts): Finding[] {
  const out: Finding[] = [];
  for (const r of t.regions) {
    if (r.storefileSizeMB === undefined || r.storefileSizeMB <= REGION_MAX_GB * 1024) continue;
    out.push({
      rule: 'regions.size',
      severity: 'warn',
      subject: `region ${r.name}`,
      measured: `${gb(r.storefileSizeMB)} of store files`,
      threshold: `10–${REGION_MAX_GB} GB per region`,
      source: book('table_schema_rules_of_thumb'),
      fix: `split it (split '${r.name}') and check hbase.hregion.max.filesize / the table's MAX_FILESIZE`,
    });
  }
  const families = Math.max(1, t.schema.families.length);
  const limit = families <= 2 ? REGIONS_PER_TABLE_MAX : Math.floor((REGIONS_PER_TABLE_MAX * 2) / families);
  if (t.regions.length > limit) {
    out.push({
      rule: 'regions.per-table',
      severity: 'warn',
      subject: `table ${t.name}`,
      measured: `${t.regions.length} regions with ${families} famil${families === 1 ? 'y' : 'ies'}`,
      threshold: `about 50–${REGIONS_PER_TABLE_MAX} regions for a table with 1 or 2 families (fewer with more families)`,
      source: book('table_schema_rules_of_thumb'),
      fix: 'merge small neighbouring regions (the region normalizer, or merge_region), or raise the region size',
    });
  }
  const sizes = t.regions.map((r) => r.storefileSizeMB).filter((x): x is number => x !== undefined);
  if (t.regions.length > SPRAWL_REGIONS && sizes.length === t.regions.length && median(sizes) < TINY_MB) {
    out.push({
      rule: 'regions.tiny-sprawl',
      severity: 'warn',
      subject: `table ${t.name}`,
      measured: `${t.regions.length} regions, median ${median(sizes).toFixed(0)} MB`,
      threshold: `regions of 10–${REGION_MAX_GB} GB; more than ${SPRAWL_REGIONS} regions under ${TINY_MB} MB is sprawl`,
      source: book('ops.capacity.regions.count'),
      fix: 'enable the region normalizer for the table (NORMALIZATION_ENABLED => true) or merge regions',
    });
  }
  return out;
}

/** Regions per server against 20–200, and its memstores against its heap (the sizing formula). */
export function serverFindings(s: ServerFacts, cluster: Pick<ClusterFacts, 'settings'>): Finding[] {
  const out: Finding[] = [];
  const subject = `server ${s.name}`;
  if (s.regions > REGIONS_PER_SERVER.high) {
    out.push({
      rule: 'servers.regions',
      severity: 'warn',
      subject,
      measured: `${s.regions} regions`,
      threshold: `${REGIONS_PER_SERVER.low}–${REGIONS_PER_SERVER.high} regions per server, about 100 best`,
      source: book('arch.regions.size'),
      fix: 'add region servers, merge small regions, or raise the region size',
    });
  }
  const { memstoreFlushSizeMB: flush, globalMemstoreFraction: fraction, source } = cluster.settings;
  const budgetMB = s.maxHeapMB * fraction;
  const fits = flush > 0 ? Math.floor(budgetMB / flush) : Infinity;
  if (s.maxHeapMB > 0 && s.stores > fits) {
    out.push({
      rule: 'servers.memstore-heap',
      severity: 'warn',
      subject,
      measured: `${s.stores} memstores (regions × families) × ${flush} MB flush size = ${gb(s.stores * flush)}, against ${gb(budgetMB)} of memstore (heap ${gb(s.maxHeapMB)} × ${fraction})`,
      threshold: `(heap × hbase.regionserver.global.memstore.size) / (hbase.hregion.memstore.flush.size × families) = ${fits} regions as a starting point (${source}); 2–3× that only if most regions are idle`,
      source: book('ops.capacity.regions.count'),
      fix: 'give the region servers more heap, add servers, or hold fewer regions (fewer salt buckets or pre-split regions per table)',
    });
  }
  return out;
}
