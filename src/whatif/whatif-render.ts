// Pure: the comparison for people (a table, the sample's hot ids, the recommendation) and for
// scripts (JSON with every region's row count).
import type { Prediction } from './predict.ts';
import type { Recommendation } from './recommend.ts';

export interface SampleSummary {
  readonly events: number;
  /** lines or records the service would dead-letter (left out of the sample) */
  readonly rejected: number;
  readonly ids: number;
  readonly from: string;
  /** ids with the most events: id, events */
  readonly topIds: readonly (readonly [string, number])[];
}

export interface WhatIfReport {
  readonly sample: SampleSummary;
  readonly indexTags: readonly string[];
  readonly predictions: readonly Prediction[];
  readonly recommendation: Recommendation;
}

const pct = (x: number): string => `${(100 * x).toFixed(1)} %`;

function pad(cells: readonly string[][]): string[] {
  const widths = cells[0]?.map((_c, i) => Math.max(...cells.map((r) => (r[i] ?? '').length))) ?? [];
  return cells.map((r) =>
    r
      .map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

function hottest(p: Prediction['data']): string {
  const ids = p.hottest.topIds.map(([id]) => id).join(' ');
  return `r${p.hottest.region} ${pct(p.hottest.share)}${ids === '' ? '' : ` (${ids})`}`;
}

export function renderText(r: WhatIfReport): string[] {
  const s = r.sample;
  const lines = [
    `sample: ${s.events} events of ${s.ids} ids from ${s.from}${s.rejected > 0 ? ` (${s.rejected} the service would dead-letter, left out)` : ''}`,
    `hot ids: ${s.topIds.map(([id, n]) => `${id} ${pct(n / Math.max(1, s.events))}`).join(', ')}`,
    `indexed tags: ${r.indexTags.length === 0 ? 'none' : r.indexTags.join(', ')}`,
    '',
  ];
  const head = ['layout', 'data skew', 'hottest data region', 'idle', 'index skew', 'id-read scans mean/max', 'tag-read scans', 'key bytes', 'spread ids'];
  const rows = r.predictions.map((p, i) => [
    `${i === r.recommendation.index ? '→' : ' '} ${i === 0 ? '(current) ' : ''}${p.name}`,
    p.data.skew.toFixed(2),
    hottest(p.data),
    `${p.data.idleRegions}/${p.data.regions}`,
    p.index === null ? '-' : p.index.skew.toFixed(2),
    `${p.idReadScans.mean.toFixed(2)}/${p.idReadScans.max}`,
    String(p.tagReadScans),
    p.data.avgKeyBytes.toFixed(1),
    p.spreadIds.length === 0 ? '-' : `${p.spreadIds.length} (K ${[...new Set(p.spreadIds.map((x) => x.k))].sort((a, b) => b - a).join('/')})`,
  ]);
  lines.push(...pad([head, ...rows]));
  lines.push('', `recommended: ${r.recommendation.name}`, `  because: ${r.recommendation.why}`);
  if (r.predictions.some((p) => p.spreadIds.length > 0)) {
    lines.push(
      '  note: "spread on" is the steady state of a live stream; events stamped before an id is promoted keep their bucket, so a replayed backlog behaves as "spread off" (docs/HOT-IDS.md)',
    );
  }
  return lines;
}

export function renderJson(r: WhatIfReport): string {
  return JSON.stringify(r, null, 2);
}
