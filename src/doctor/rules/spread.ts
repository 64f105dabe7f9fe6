// Pure: how evenly writes reached a table's regions: since the previous doctor run when one was
// recorded, else since each region opened (the region load's write counter).
import type { TableFacts } from '../facts.ts';
import { book, type Finding } from '../finding.ts';
import { regionReachable } from './keyspace.ts';

/** max/mean over regions above this is a hot spot */
export const SKEW_WARN = 1.5;
/** fewer writes than this per region says too little about spread */
export const MIN_WRITES_PER_REGION = 10;

export function spreadFindings(t: TableFacts): Finding[] {
  const since = t.writesSinceLastCheck;
  const basis = since === undefined ? 'since the regions opened' : 'since the last doctor run';
  // Regions the key space cannot reach are reported by keyspace rules; they would only dilute the mean.
  const layout = t.layout;
  const regions = t.regions.filter((r) => layout === undefined || layout.role === 'meta' || regionReachable(r.startKey, r.endKey, layout));
  const writes = regions.map((r) => ({ name: r.name, n: since === undefined ? r.writeRequests : since.get(r.name) }));
  if (regions.length < 2 || writes.some((w) => w.n === undefined)) return [];
  const counts = writes.map((w) => w.n ?? 0);
  const total = counts.reduce((a, b) => a + b, 0);
  if (total < MIN_WRITES_PER_REGION * regions.length) return [];
  const mean = total / regions.length;
  const out: Finding[] = [];
  const hottest = writes.reduce((a, b) => ((b.n ?? 0) > (a.n ?? 0) ? b : a));
  const skew = (hottest.n ?? 0) / mean;
  if (skew > SKEW_WARN) {
    out.push({
      rule: 'spread.skew',
      severity: 'warn',
      subject: `table ${t.name}`,
      measured: `write skew ${skew.toFixed(2)} (hottest region ${hottest.name}: ${hottest.n ?? 0} of ${total} writes ${basis}, mean ${mean.toFixed(0)})`,
      threshold: `max/mean ≤ ${SKEW_WARN} over the table's regions`,
      source: book('rowkey.design'),
      fix:
        layout !== undefined
          ? 'look at /ui for hot ids; spread them (tsingest spread set, or keys.spread automatic promotion), see docs/HOT-IDS.md'
          : 'salt or hash the leading key part so writes spread (see the reference guide on hotspotting)',
    });
  }
  const idle = writes.filter((w) => (w.n ?? 0) === 0);
  if (idle.length > 0) {
    out.push({
      rule: 'spread.idle-regions',
      severity: 'warn',
      subject: `table ${t.name}`,
      measured: `${idle.length} of ${regions.length} regions took no writes ${basis} (${idle
        .slice(0, 3)
        .map((w) => w.name)
        .join(', ')}${idle.length > 3 ? ', …' : ''})`,
      threshold: 'every region of a salted table takes writes',
      source: book('rowkey.regionsplits'),
      fix: 'check the split points against the keys written (a split the keys never reach), or merge idle regions',
    });
  }
  return out;
}
