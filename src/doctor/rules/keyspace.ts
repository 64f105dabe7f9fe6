// Pure: for this service's tables (their metadata records B and how the salt is spelled), region
// boundaries the key space can actually reach — the reference guide's hex-split lesson: a pre-split
// whose regions no key sorts into leaves them empty and the others hot — and B against the servers.
import { prefixStopRow, saltPrefix } from '../../keys/index.ts';
import type { ServiceLayout, TableFacts } from '../facts.ts';
import { book, type Finding } from '../finding.ts';

/** Does some key `P(s) ‖ rest` (rest non-empty, s < buckets) sort into [start, end)? */
export function regionReachable(start: Buffer, end: Buffer, layout: Pick<ServiceLayout, 'buckets' | 'saltFormat'>): boolean {
  for (let s = 0; s < layout.buckets; s++) {
    const p = saltPrefix(s, layout.saltFormat);
    const lowest = Buffer.concat([p, Buffer.from([0])]);
    const after = prefixStopRow(p); // empty: no key after the prefix's (all 0xff)
    const startOk = after.length === 0 || Buffer.compare(start, after) < 0;
    const endOk = end.length === 0 || Buffer.compare(end, lowest) > 0;
    if (startOk && endOk) return true;
  }
  return false;
}

const show = (k: Buffer): string =>
  k.length === 0 ? '(table start/end)' : /^[\x20-\x7e]*$/.test(k.toString('latin1')) ? JSON.stringify(k.toString('latin1')) : `0x${k.toString('hex')}`;

export function keyspaceFindings(t: TableFacts, servers: number): Finding[] {
  const layout = t.layout;
  if (layout === undefined || layout.role === 'meta') return [];
  const out: Finding[] = [];
  const dead = t.regions.filter((r) => !regionReachable(r.startKey, r.endKey, layout));
  for (const r of dead) {
    out.push({
      rule: 'keyspace.unreachable-region',
      severity: 'error',
      subject: `region ${r.name}`,
      measured: `[${show(r.startKey)}, ${show(r.endKey)}) holds no key of the ${layout.saltFormat} salt 0–${layout.buckets - 1}`,
      threshold: 'every pre-split region must be reachable by the key space',
      source: book('rowkey.regionsplits'),
      fix: `recreate the table with split points on the salt boundaries (tsingest tables apply makes them: ${layout.buckets - 1} splits ${show(saltPrefix(1, layout.saltFormat))} … ${show(saltPrefix(layout.buckets - 1, layout.saltFormat))}), or merge the empty regions into their neighbours`,
    });
  }
  if (servers > 1 && layout.buckets < servers) {
    out.push({
      rule: 'keyspace.buckets-vs-servers',
      severity: 'warn',
      subject: `table ${t.name}`,
      measured: `${layout.buckets} salt buckets for ${servers} region servers`,
      threshold: 'at least one bucket per region server, so every server takes writes',
      source: book('rowkey.design'),
      fix: `use keys.saltBuckets ≥ ${servers} (a multiple of it spreads evenly) in a new table; B is fixed for a table's lifetime`,
    });
  } else if (servers > 1 && layout.buckets % servers !== 0) {
    out.push({
      rule: 'keyspace.buckets-vs-servers',
      severity: 'info',
      subject: `table ${t.name}`,
      measured: `${layout.buckets} salt buckets over ${servers} region servers`,
      threshold: 'a multiple of the server count, so each server holds the same number of buckets',
      source: book('rowkey.design'),
      fix: `B = ${Math.ceil(layout.buckets / servers) * servers} would spread evenly (new table; B is fixed for a table's lifetime)`,
    });
  }
  return out;
}
