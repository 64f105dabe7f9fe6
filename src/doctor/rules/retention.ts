// Pure: the TTLs of this service's tables held against each other (docs/RETENTION.md, *Keeping the
// sizes in step*). On a table whose layout record says rollup, the r<size> families (one per window
// size) are compared with one another; with the run's one data table, the sizes from which a coarser
// one is built are also compared with the raw data's TTL. Tables this service did not make are not
// looked at: nothing says which of their families hold what.
import { durationSeconds } from '../../keys/index.ts';
import type { ClusterFacts, TableFacts } from '../facts.ts';
import type { Finding } from '../finding.ts';
import { ttlSeconds } from './versions.ts';

const SOURCE = 'docs/RETENTION.md (Keeping the sizes in step)';
const DAY = 86_400;

interface SizeFamily {
  readonly family: string;
  /** window size (s) */
  readonly seconds: number;
  /** undefined: forever */
  readonly ttl: number | undefined;
}

/** a kept strictly longer than b (undefined: forever) */
const longer = (a: number | undefined, b: number | undefined): boolean => b !== undefined && (a === undefined || a > b);

const kept = (ttl: number | undefined): string => (ttl === undefined ? 'forever' : `${ttl} s (${+(ttl / DAY).toFixed(1)} d)`);

const size = (seconds: number): string => (seconds % DAY === 0 ? `${seconds / DAY}d` : seconds % 3600 === 0 ? `${seconds / 3600}h` : `${seconds / 60}m`);

/** The rollup table's window-size families, finest first. */
function sizeFamilies(t: TableFacts): SizeFamily[] {
  return t.schema.families
    .map((f) => ({ family: f.name, seconds: f.name.startsWith('r') ? durationSeconds(f.name.slice(1)) : undefined, ttl: ttlSeconds(f) }))
    .filter((f): f is SizeFamily => f.seconds !== undefined)
    .sort((a, b) => a.seconds - b.seconds);
}

function raiseFix(t: TableFacts, f: SizeFamily, atLeast: number | undefined): string {
  const ttl = atLeast === undefined ? "'FOREVER'" : String(atLeast);
  return `set tables.rollup.ttlByWindow.${size(f.seconds)} to ${atLeast === undefined ? 'null (forever)' : `at least ${atLeast}`} and run tsingest tables apply (alter '${t.name}', {NAME => '${f.family}', TTL => ${ttl}})`;
}

/** A coarser size kept shorter than a finer one: its summaries are the cheap ones, and past its TTL reads take the finer size. */
function sizeOrderFindings(t: TableFacts, sizes: readonly SizeFamily[]): Finding[] {
  const out: Finding[] = [];
  sizes.forEach((c, i) => {
    const finer = sizes.slice(0, i).reduce<SizeFamily | undefined>((best, f) => (best === undefined || longer(f.ttl, best.ttl) ? f : best), undefined);
    if (finer === undefined || !longer(finer.ttl, c.ttl)) return;
    out.push({
      rule: 'retention.coarser-shorter',
      severity: 'warn',
      subject: `table ${t.name} family ${c.family}`,
      measured: `${c.family} (${size(c.seconds)} summaries) kept ${kept(c.ttl)}, the finer ${finer.family} (${size(finer.seconds)} summaries) ${kept(finer.ttl)}`,
      threshold:
        'each size kept at least as long as every finer one: a coarser summary costs a fraction of the finer ones it stands for, and once it has expired the series API answers its buckets from the finer summaries (more cells read, no summary packs)',
      source: SOURCE,
      fix: raiseFix(t, c, finer.ttl),
    });
  });
  return out;
}

/**
 * A size from which a coarser one is built kept shorter than a coarser window can still be recomputed:
 * a late event (up to the data TTL old) or a backfill re-marks a window, and the job rebuilds its
 * coarser window by merging these summaries; where they have expired, the coarser summary is
 * rewritten with only what is left.
 */
function sourceFindings(t: TableFacts, sizes: readonly SizeFamily[], data: TableFacts, rawTtl: number | undefined): Finding[] {
  const out: Finding[] = [];
  sizes.forEach((f, i) => {
    const coarser = sizes[i + 1];
    if (coarser === undefined) return;
    const needed = rawTtl === undefined ? undefined : rawTtl + coarser.seconds;
    if (!longer(needed, f.ttl)) return;
    out.push({
      rule: 'retention.source-shorter',
      severity: 'warn',
      subject: `table ${t.name} family ${f.family}`,
      measured: `${f.family} (${size(f.seconds)} summaries, from which ${size(coarser.seconds)} is built) kept ${kept(f.ttl)}; raw points (table ${data.name}) kept ${kept(rawTtl)}`,
      threshold: `a size from which a coarser one is built kept at least as long as the raw points plus one coarser window (${needed === undefined ? 'forever' : `${needed} s`}): a late event or a backfill re-marks its window for as long as the points are kept, and the job rebuilds the ${size(coarser.seconds)} window by merging these summaries; where they have expired, the ${size(coarser.seconds)} summary is rewritten with only what is left`,
      source: SOURCE,
      fix: `${raiseFix(t, f, needed)}; or keep the raw points for less (tables.data.ttlSeconds)`,
    });
  });
  return out;
}

export function retentionFindings(facts: ClusterFacts): Finding[] {
  const data = facts.tables.filter((t) => t.layout?.role === 'data');
  const raw = data.length === 1 ? data[0] : undefined;
  const rawFamily = raw?.schema.families[0];
  return facts.tables
    .filter((t) => t.layout?.role === 'rollup')
    .flatMap((t) => {
      const sizes = sizeFamilies(t);
      const order = sizeOrderFindings(t, sizes);
      return raw === undefined || rawFamily === undefined ? order : [...order, ...sourceFindings(t, sizes, raw, ttlSeconds(rawFamily))];
    });
}
