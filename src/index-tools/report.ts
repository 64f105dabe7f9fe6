// Pure: the text and JSON output of `tsingest index verify|rebuild`.
import type { RebuildReport } from './rebuild.ts';
import type { IndexToolSettings } from './index-settings.ts';
import { isoOf, type FindingSample, type MalformedSample } from './tally.ts';
import type { VerifyReport } from './verify.ts';

export function windowText(s: IndexToolSettings): string {
  const w = s.window;
  if (w === null) return 'all time';
  return `${isoOf(w.from)} ≤ ts < ${w.to >= Number.MAX_SAFE_INTEGER ? '∞' : isoOf(w.to)}`;
}

function context(s: IndexToolSettings): Record<string, unknown> {
  return {
    tables: { data: s.dataTable, index: s.indexTable },
    tags: s.tags,
    window: s.window === null ? null : { from: s.window.from, to: s.window.to },
  };
}

function row(label: string, n: number, note = ''): string {
  return `  ${label.padEnd(20)} ${String(n).padStart(9)}${note === '' ? '' : `  ${note}`}`;
}

export function sampleLine(x: FindingSample): string {
  const mismatch = x.dataValue === undefined ? '' : ` (data row has ${x.dataValue === null ? 'no such tag' : `${x.tag}=${x.dataValue}`})`;
  return `  ${x.tag}=${x.value} id=${x.id} ts=${x.iso}  ${x.reason}${mismatch}  [${x.metrics.join(', ')}]`;
}

function malformedLine(m: MalformedSample): string {
  return `  ${m.table} ${m.key}: ${m.message}`;
}

function sampleBlock(title: string, total: number, lines: readonly string[]): string[] {
  if (total === 0) return [];
  const more = total > lines.length ? ` (first ${lines.length} of ${total})` : '';
  return [`${title}${more}:`, ...lines];
}

export function verifyText(r: VerifyReport, s: IndexToolSettings): string[] {
  const c = r.counts;
  const lines = [
    `index verify: ${s.dataTable} ↔ ${s.indexTable}, tags ${s.tags.join(', ')}, ${windowText(s)}`,
    row('index rows checked', c.indexRowsChecked),
    row('data rows checked', c.dataRowsChecked),
    row('dangling', c.dangling, 'index rows without a matching data row'),
    row('missing', c.missing, 'index rows the data rows call for but the index lacks'),
    row('malformed', c.malformed, 'rows whose key or cells could not be decoded (not judged)'),
    ...sampleBlock('dangling', c.dangling, r.samples.dangling.map(sampleLine)),
    ...sampleBlock('missing', c.missing, r.samples.missing.map(sampleLine)),
    ...sampleBlock('malformed', c.malformed, r.samples.malformed.map(malformedLine)),
  ];
  if (r.interrupted) lines.push('✗ interrupted: the counts cover only part of the tables');
  else if (r.consistent) lines.push('✓ consistent');
  else lines.push(`✗ inconsistent: ${c.dangling} dangling, ${c.missing} missing — \`tsingest index rebuild\` repairs both`);
  return lines;
}

export function verifyJson(r: VerifyReport, s: IndexToolSettings): string {
  return JSON.stringify({ command: 'verify', consistent: r.consistent, interrupted: r.interrupted, ...context(s), counts: r.counts, samples: r.samples });
}

export interface RebuildContext {
  readonly graceMs: number;
  readonly checkpoint: string | null;
}

export function rebuildText(r: RebuildReport, s: IndexToolSettings, ctx: RebuildContext): string[] {
  const head = `index rebuild: ${s.dataTable} → ${s.indexTable}, tags ${s.tags.join(', ')}, ${windowText(s)}`;
  if (r.status === 'already_finished') {
    return [head, `✓ already finished according to checkpoint ${ctx.checkpoint ?? '?'}: nothing to do (delete the file to rebuild again)`];
  }
  const f = r.found;
  const lines = [
    head,
    row('data rows scanned', f.dataRowsChecked),
    row('index rows scanned', f.indexRowsChecked),
    row('index rows written', r.indexRowsWritten, 'missing rows (or qualifiers) backfilled'),
    row('dangling deleted', r.danglingDeleted),
    row('dangling kept', r.danglingKept, `events newer than now − ${ctx.graceMs} ms (--grace-ms)`),
    row('malformed', f.malformed, 'skipped'),
    ...sampleBlock('written', f.missing, r.samples.missing.map(sampleLine)),
    ...sampleBlock('dangling', f.dangling, r.samples.dangling.map(sampleLine)),
    ...sampleBlock('malformed', f.malformed, r.samples.malformed.map(malformedLine)),
  ];
  const resumed = r.unitsResumed > 0 ? ` (resumed: ${r.unitsResumed} of ${r.unitsTotal} scan units were done by an earlier run)` : '';
  if (r.status === 'finished') lines.push(`✓ finished${resumed}`);
  else
    lines.push(
      ctx.checkpoint === null ? '✗ interrupted (no --checkpoint: a rerun starts over)' : `✗ interrupted: rerun with --checkpoint ${ctx.checkpoint} to continue`,
    );
  return lines;
}

export function rebuildJson(r: RebuildReport, s: IndexToolSettings, ctx: RebuildContext): string {
  return JSON.stringify({ command: 'rebuild', ...r, ...context(s), graceMs: ctx.graceMs, checkpoint: ctx.checkpoint });
}
