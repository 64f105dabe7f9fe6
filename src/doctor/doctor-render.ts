// Pure: findings as text for people (grouped by severity, each with its measurement, threshold,
// source and fix) and as JSON for scripts.
import type { Checked } from './check.ts';
import { countBySeverity, type Finding } from './finding.ts';

const MARK = { error: '✗ ERROR', warn: '! WARN ', info: '· INFO ' } as const;

export function renderText(findings: readonly Finding[], checked: Checked): string[] {
  const lines = [`checked ${checked.tables.length} table(s) (${checked.tables.join(', ')}) on ${checked.servers} region server(s)`];
  if (findings.length === 0) return [...lines, '✓ no findings'];
  for (const f of findings) {
    lines.push(
      '',
      `${MARK[f.severity]} ${f.rule}  ${f.subject}`,
      `    measured:  ${f.measured}`,
      `    threshold: ${f.threshold}`,
      `    fix:       ${f.fix}`,
      `    source:    ${f.source}`,
    );
  }
  const n = countBySeverity(findings);
  lines.push('', `${n.error} error(s), ${n.warn} warning(s), ${n.info} note(s)`);
  return lines;
}

export function renderJson(findings: readonly Finding[], checked: Checked): string {
  return JSON.stringify({ checked, counts: countBySeverity(findings), findings }, null, 2);
}
