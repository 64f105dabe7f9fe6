// Pure: column families per table and the length of family and qualifier names. Every cell carries
// its family and qualifier, so long names cost memory and index space for every value stored.
// Every table is judged alike, this service's own included (issue 38). The count rule's reason in the
// reference guide is that a region's flush writes every family; HBase's default flush policy since
// 1.1 (FlushAllLargeStoresPolicy, HBASE-10201) flushes only the families whose memstore is above
// max(flush size / families, 16 MB), so with it the rule says what more families still cost, as info;
// with a policy that flushes every store it warns (docs/DOCTOR.md, "families.count").
import type { ClusterFacts, TableFacts } from '../facts.ts';
import { book, type Finding } from '../finding.ts';

export const MAX_FAMILIES = 3;
/** "preferably one character"; two or three are still short */
export const MAX_FAMILY_NAME = 3;
/** average qualifier length of a sample above this is worth shortening */
export const MAX_AVG_QUALIFIER = 16;
/** HBase's flush policy when neither the table (FLUSH_POLICY) nor the servers set one (FlushPolicyFactory) */
export const DEFAULT_FLUSH_POLICY = 'FlushAllLargeStoresPolicy';
/** hbase.hregion.percolumnfamilyflush.size.lower.bound.min's default (FlushLargeStoresPolicy) */
const LOWER_BOUND_MIN_MB = 16;
/** the policies that flush a region's families one by one (the large ones first) */
const PER_FAMILY = /FlushAllLargeStoresPolicy|FlushNonSloppyStoresFirstPolicy/;

type FlushSettings = Pick<ClusterFacts['settings'], 'memstoreFlushSizeMB' | 'flushPolicy'>;

/** The table's flush policy (its FLUSH_POLICY, else the servers', else HBase's default) and where it came from. */
function flushPolicyOf(t: TableFacts, settings: FlushSettings): { name: string; from: string } {
  const own = t.schema.attributes['FLUSH_POLICY'];
  if (own !== undefined && own !== '') return { name: own.split('.').at(-1) ?? own, from: "the table's FLUSH_POLICY" };
  if (settings.flushPolicy !== undefined) return { name: settings.flushPolicy.split('.').at(-1) ?? settings.flushPolicy, from: 'the servers (as given)' };
  return { name: DEFAULT_FLUSH_POLICY, from: "HBase's default" };
}

function countFinding(t: TableFacts, settings: FlushSettings): Finding | undefined {
  const families = t.schema.families;
  if (families.length <= MAX_FAMILIES) return undefined;
  const policy = flushPolicyOf(t, settings);
  const names = `${families.length} column families (${families.map((f) => f.name).join(', ')})`;
  const common = { rule: 'families.count', subject: `table ${t.name}`, source: book('number.of.cfs') } as const;
  const threshold = `1–${MAX_FAMILIES} per table; HBase "does not do well with anything above two or three"`;
  if (!PER_FAMILY.test(policy.name)) {
    return {
      ...common,
      severity: 'warn',
      measured: `${names}; flush policy ${policy.name} (${policy.from}): a flush of the region writes every family`,
      threshold,
      fix: `merge families that are read together into one; keep a second or third only for data read on its own; or flush per family (hbase.regionserver.flush.policy ${DEFAULT_FLUSH_POLICY}, HBase's default since 1.1)`,
    };
  }
  const boundMB = Math.max(settings.memstoreFlushSizeMB / families.length, LOWER_BOUND_MIN_MB);
  return {
    ...common,
    severity: 'info',
    measured: `${names}; flush policy ${policy.name} (${policy.from}): a region's flush takes only the families whose memstore is over max(${settings.memstoreFlushSizeMB} MB / ${families.length}, ${LOWER_BOUND_MIN_MB} MB) = ${boundMB.toFixed(0)} MB`,
    threshold,
    fix: 'nothing forced while flushes are per family; what each family still costs: a memstore and store files of its own (compacted on their own), a file per family whenever a region flushes with none over the bound (the hourly periodic flush, a region close), and a scanner per family for a read of several. Merge families read together',
  };
}

export function familyFindings(t: TableFacts, settings: FlushSettings): Finding[] {
  const out: Finding[] = [];
  const count = countFinding(t, settings);
  if (count !== undefined) out.push(count);
  for (const f of t.schema.families) {
    if (f.name.length <= MAX_FAMILY_NAME) continue;
    out.push({
      rule: 'families.name-length',
      severity: 'warn',
      subject: `table ${t.name} family ${f.name}`,
      measured: `family name of ${f.name.length} characters`,
      threshold: `≤ ${MAX_FAMILY_NAME} characters, preferably one ("d")`,
      source: book('keysize.cf'),
      fix: `use a one-character family (e.g. "${f.name.charAt(0)}"): the name is stored with every cell; renaming means a new table and a copy (this service's summary families are named by their window size: r1h, r1d; a size spelt in more characters, r15m, makes a longer one)`,
    });
  }
  const q = t.sample?.qualifierBytes;
  if (q !== undefined && t.sample !== undefined && t.sample.cells > 0 && q.avg > MAX_AVG_QUALIFIER) {
    out.push({
      rule: 'qualifiers.length',
      severity: 'warn',
      subject: `table ${t.name}`,
      measured: `qualifiers average ${q.avg.toFixed(1)} bytes (max ${q.max}) over ${t.sample.cells} sampled cells`,
      threshold: `average ≤ ${MAX_AVG_QUALIFIER} bytes ("prefer shorter attribute names")`,
      source: book('keysize.attributes'),
      fix: 'shorten qualifiers (e.g. "via" not "myVeryImportantAttribute"); each one is stored with every cell',
    });
  }
  return out;
}
