// Pure: VERSIONS, MIN_VERSIONS and TTL of each family, alone and together.
import type { ColumnFamilySchema } from '../../hbase/index.ts';
import type { TableFacts } from '../facts.ts';
import { book, type Finding } from '../finding.ts';

/** "hundreds or more" greatly increases store file size */
export const MANY_VERSIONS = 100;

const FOREVER = 2147483647;

/** TTL in seconds, or undefined for FOREVER / unset. */
export function ttlSeconds(f: ColumnFamilySchema): number | undefined {
  const raw = f.attributes['TTL'];
  if (raw === undefined || raw === '' || /^forever$/i.test(raw)) return undefined;
  const n = Number(/^(\d+)/.exec(raw)?.[1]);
  return Number.isFinite(n) && n > 0 && n < FOREVER ? n : undefined;
}

function intAttr(f: ColumnFamilySchema, key: string, fallback: number): number {
  const n = Number(f.attributes[key]);
  return Number.isInteger(n) ? n : fallback;
}

export function versionFindings(t: TableFacts): Finding[] {
  const out: Finding[] = [];
  for (const f of t.schema.families) {
    const subject = `table ${t.name} family ${f.name}`;
    const versions = intAttr(f, 'VERSIONS', 1);
    const minVersions = intAttr(f, 'MIN_VERSIONS', 0);
    const ttl = ttlSeconds(f);
    if (t.layout !== undefined && versions > 1) {
      out.push({
        rule: 'versions.service-table',
        severity: 'warn',
        subject,
        measured: `VERSIONS ${versions}`,
        threshold: 'VERSIONS 1: this service writes each event once under its own row and never reads old versions',
        source: book('schema.versions.max'),
        fix: `alter '${t.name}', {NAME => '${f.name}', VERSIONS => 1} (or set tables.${t.layout.role}.versions to 1 and run tsingest tables apply)`,
      });
    } else if (versions >= MANY_VERSIONS) {
      out.push({
        rule: 'versions.max',
        severity: 'warn',
        subject,
        measured: `VERSIONS ${versions}`,
        threshold: `well under ${MANY_VERSIONS} ("hundreds or more" greatly increases store file size)`,
        source: book('schema.versions.max'),
        fix: 'keep only the versions the application reads; model history as rows or columns (reverse timestamps) instead',
      });
    }
    if (minVersions <= 0) continue;
    if (minVersions >= versions) {
      out.push({
        rule: 'versions.min-above-max',
        severity: 'error',
        subject,
        measured: `MIN_VERSIONS ${minVersions} ≥ VERSIONS ${versions}`,
        threshold: 'MIN_VERSIONS < VERSIONS',
        source: book('schema.minversions'),
        fix: `lower MIN_VERSIONS below VERSIONS: alter '${t.name}', {NAME => '${f.name}', MIN_VERSIONS => ${Math.max(0, versions - 1)}}`,
      });
    }
    out.push(
      ttl === undefined
        ? {
            rule: 'versions.min-without-ttl',
            severity: 'warn',
            subject,
            measured: `MIN_VERSIONS ${minVersions} without a TTL`,
            threshold: 'MIN_VERSIONS "should only be set when time-to-live is enabled"',
            source: book('schema.minversions'),
            fix: `set MIN_VERSIONS => 0, or set the TTL it is meant to work with`,
          }
        : {
            rule: 'versions.min-with-ttl',
            severity: 'warn',
            subject,
            measured: `MIN_VERSIONS ${minVersions} with TTL ${ttl} s`,
            threshold:
              'data older than the TTL is expected to go; MIN_VERSIONS keeps the newest versions of every cell past it, and store files of expired rows are no longer dropped',
            source: book('ttl'),
            fix: `if expired data must go, alter '${t.name}', {NAME => '${f.name}', MIN_VERSIONS => 0}; keep it only if "at least ${minVersions} versions forever" is really wanted`,
          },
    );
  }
  return out;
}
