// Pure: column families per table and the length of family and qualifier names. Every cell carries
// its family and qualifier, so long names cost memory and index space for every value stored.
// This service's rollup table (its layout record says role rollup) has one family per window size
// (r1h, r1d, …: docs/RETENTION.md) besides its main one, for a TTL per size: each is read on its own
// (a query reads one size) and written together only by the rollup job, the case the count rule's
// advice allows; they are neither counted nor held to the name length (their names are the sizes).
// Its point blocks' family (p) is counted like any other: with the main one, two.
import { isRollupWindowFamily } from '../../keys/index.ts';
import type { TableFacts } from '../facts.ts';
import { book, type Finding } from '../finding.ts';

export const MAX_FAMILIES = 3;
/** "preferably one character"; two or three are still short */
export const MAX_FAMILY_NAME = 3;
/** average qualifier length of a sample above this is worth shortening */
export const MAX_AVG_QUALIFIER = 16;

export function familyFindings(t: TableFacts): Finding[] {
  const out: Finding[] = [];
  const perSize = (name: string): boolean => t.layout?.role === 'rollup' && isRollupWindowFamily(name);
  const families = t.schema.families.filter((f) => !perSize(f.name));
  if (families.length > MAX_FAMILIES) {
    out.push({
      rule: 'families.count',
      severity: 'warn',
      subject: `table ${t.name}`,
      measured: `${families.length} column families (${families.map((f) => f.name).join(', ')})`,
      threshold: `1–${MAX_FAMILIES} per table; HBase "does not do well with anything above two or three"`,
      source: book('number.of.cfs'),
      fix: 'merge families that are read together into one; keep a second or third only for data read on its own (flushes and compactions run per region across all families)',
    });
  }
  for (const f of families) {
    if (f.name.length <= MAX_FAMILY_NAME) continue;
    out.push({
      rule: 'families.name-length',
      severity: 'warn',
      subject: `table ${t.name} family ${f.name}`,
      measured: `family name of ${f.name.length} characters`,
      threshold: `≤ ${MAX_FAMILY_NAME} characters, preferably one ("d")`,
      source: book('keysize.cf'),
      fix: `use a one-character family (e.g. "${f.name.charAt(0)}"): the name is stored with every cell; renaming means a new table and a copy`,
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
