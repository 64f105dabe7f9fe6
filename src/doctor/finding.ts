// Pure: what the schema doctor reports. Every finding names its rule, how bad it is, what was
// measured, the threshold it was held against with the place in HBase's reference guide that states
// it, and what to do about it.

export type Severity = 'error' | 'warn' | 'info';

export interface Finding {
  /** Rule id, e.g. `families.count` (docs/DOCTOR.md lists every rule). */
  readonly rule: string;
  readonly severity: Severity;
  /** What the finding is about: `table t`, `table t family d`, `region …`, `server host:port`. */
  readonly subject: string;
  readonly measured: string;
  readonly threshold: string;
  /** Where the threshold comes from (HBase reference guide section). */
  readonly source: string;
  readonly fix: string;
}

export const BOOK = 'https://hbase.apache.org/book.html';
export const book = (anchor: string): string => `${BOOK}#${anchor}`;

const RANK: Readonly<Record<Severity, number>> = { error: 0, warn: 1, info: 2 };

/** Errors first, then by rule and subject, so output is stable run to run. */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  return [...findings].sort((a, b) => RANK[a.severity] - RANK[b.severity] || a.rule.localeCompare(b.rule) || a.subject.localeCompare(b.subject));
}

/** 1 when any finding is an error (the CLI's exit status), else 0. */
export function exitStatus(findings: readonly Finding[]): 0 | 1 {
  return findings.some((f) => f.severity === 'error') ? 1 : 0;
}

export function countBySeverity(findings: readonly Finding[]): Record<Severity, number> {
  const out: Record<Severity, number> = { error: 0, warn: 0, info: 0 };
  for (const f of findings) out[f.severity]++;
  return out;
}
