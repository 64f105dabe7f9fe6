/**
 * Pure rendering of the /ui "Schema doctor" section from the service's DoctorSnapshot
 * (src/doctor/scheduler.ts): when the doctor last ran and how, the findings by severity, and each
 * finding with its rule, subject, measurement, threshold, fix and source (docs/DOCTOR.md). Every text
 * is escaped; a source becomes a link only when it is an http(s) URL.
 */
import type { DoctorReport, DoctorSnapshot } from '../doctor/scheduler.ts';
import type { Finding, Severity } from '../doctor/finding.ts';
import { esc, fmt, hhmmss } from './html.ts';

const LABEL: Readonly<Record<Severity, string>> = { error: 'error', warn: 'warning', info: 'note' };

/** "10 min", "45 s", "1.5 h": a period for people. */
export function duration(ms: number): string {
  if (ms >= 3_600_000) return `${fmt(ms / 3_600_000)} h`;
  if (ms >= 60_000) return `${fmt(ms / 60_000)} min`;
  return `${fmt(ms / 1000)} s`;
}

/** " (3 min ago)" relative to the snapshot's time, in whole seconds; nothing for a time not in the past. */
const ago = (t: number, now: number): string => (now - t >= 1000 ? ` (${duration(Math.round((now - t) / 1000) * 1000)} ago)` : '');

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

function sourceLink(source: string): string {
  if (!/^https?:\/\//i.test(source)) return esc(source);
  const anchor = source.includes('#') ? source.slice(source.indexOf('#') + 1) : source;
  return `<a href="${esc(source)}">${esc(anchor)}</a>`;
}

function findingRow(f: Finding): string {
  return (
    `<tr class="finding" data-severity="${esc(f.severity)}" data-rule="${esc(f.rule)}" data-subject="${esc(f.subject)}">` +
    `<td><span class="sev sev-${esc(f.severity)}">${esc(f.severity)}</span></td><td class="rule">${esc(f.rule)}</td><td>${esc(f.subject)}</td>` +
    `<td>${esc(f.measured)}</td><td>${esc(f.threshold)}</td><td>${esc(f.fix)}</td><td>${sourceLink(f.source)}</td></tr>`
  );
}

function counts(r: DoctorReport): string {
  const parts = (['error', 'warn', 'info'] as const).map(
    (s) => `<span class="sev sev-${r.counts[s] > 0 ? s : 'none'}" data-severity="${s}" data-count="${r.counts[s]}">${plural(r.counts[s], LABEL[s])}</span>`,
  );
  return `<p id="doctor-counts">${parts.join(' ')}</p>`;
}

function findings(r: DoctorReport): string {
  if (r.findings.length === 0) return '<p id="doctor-none">✓ no findings</p>';
  return (
    `<table id="doctor-findings"><colgroup><col class="c-sev"><col class="c-rule"><col class="c-subject"><col><col><col><col class="c-source"></colgroup><thead><tr><th>severity</th><th>rule</th><th>subject</th><th>measured</th><th>threshold</th><th>fix</th><th>source</th></tr></thead>` +
    `<tbody>${r.findings.map(findingRow).join('')}</tbody></table>`
  );
}

/** The line under the heading: last run, what it checked, the next run. */
function status(d: DoctorSnapshot, now: number): string {
  const parts: string[] = [];
  const last = d.lastRun;
  if (last !== null) {
    parts.push(`last run ${hhmmss(last.finishedAt)} UTC${ago(last.finishedAt, now)}, took ${fmt((last.finishedAt - last.startedAt) / 1000)} s`);
  }
  if (d.report !== null) {
    const c = d.report.checked;
    parts.push(`${plural(c.tables.length, 'table')} (${esc(c.tables.join(', '))}) on ${plural(c.servers, 'region server')}`);
  }
  if (d.running) parts.push('running now');
  else if (d.nextRunAt !== null) parts.push(`${last === null ? 'first run' : 'next run'} at ${hhmmss(d.nextRunAt)} UTC`);
  parts.push(`every ${duration(d.everyMs)} (doctor.everyMs)`);
  return `<p class="meta">${parts.join(' · ')}</p>`;
}

/** The "Schema doctor" section; `now` is the snapshot's time (for "… ago"). */
export function renderDoctor(d: DoctorSnapshot, now: number): string {
  const heading = '<h2>Schema doctor</h2>';
  if (d.everyMs === 0) {
    return `<section id="doctor" data-state="off">${heading}<p class="meta">Off in this service (doctor.everyMs 0). <code>tsingest doctor</code> checks the tables by hand.</p></section>`;
  }
  const last = d.lastRun;
  const state = last === null ? 'pending' : last.outcome;
  const out = [`<section id="doctor" data-state="${state}">`, heading, status(d, now)];
  if (last?.outcome === 'failed') {
    const older = d.report === null ? 'No run has completed yet.' : `The findings below are from the run at ${hhmmss(d.report.at)} UTC.`;
    out.push(`<p id="doctor-failed" class="failed">✗ The last run failed: <span class="reason">${esc(last.error ?? 'unknown reason')}</span>. ${older}</p>`);
  }
  if (d.report !== null) out.push(counts(d.report), findings(d.report));
  else if (last === null) out.push('<p id="doctor-pending">Not run yet.</p>');
  out.push(
    '<p class="note">HBase\'s schema rules of thumb on this service\'s tables, each with the reference guide section that states it (docs/DOCTOR.md). Write spread is counted since the previous run (in the first, since the regions opened).</p></section>',
  );
  return out.join('');
}
