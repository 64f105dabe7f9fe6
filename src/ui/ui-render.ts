/**
 * Pure rendering of the /ui page: one self-contained HTML document (inline CSS, SVG and a few lines of
 * JS, no external assets) from a UiSnapshot. The page is rendered here, on the server, from the same
 * snapshot /ui/data.json returns; its script only re-fetches the page every few seconds and swaps the
 * content, so there is one renderer to keep right.
 */
import type { HeatmapRow, HeatmapSnapshot } from './heatmap-data.ts';
import type { HotIdsSnapshot } from '../load/hot-ids.ts';
import type { DoctorSnapshot } from '../doctor/scheduler.ts';
import { renderDoctor } from './doctor-section.ts';
import { esc, fmt, hhmmss } from './html.ts';

export { esc } from './html.ts';

export interface UiSnapshot {
  /** Wall-clock time of the snapshot (epoch ms). */
  readonly generatedAt: number;
  readonly table: string;
  readonly buckets: number;
  readonly heatmap: HeatmapSnapshot;
  readonly hotIds: HotIdsSnapshot;
  /** The schema doctor's last runs and findings on the service's tables (docs/DOCTOR.md). */
  readonly doctor: DoctorSnapshot;
}

const LABEL_W = 130;
const CHART_W = 800;
const SIDE_W = 260;
const AXIS_H = 26;
const BAR_W = 90;
const MIN_COLUMNS = 24;

const STOPS: readonly (readonly [number, number, number])[] = [
  [255, 237, 160],
  [254, 178, 76],
  [240, 59, 32],
  [128, 0, 38],
];
export const IDLE_COLOR = '#eef1f5';

/** Fill for `value` on a 0…max scale (square root, so middling values stay visible); idle → grey. */
export function heatColor(value: number, max: number): string {
  if (!(value > 0) || !(max > 0)) return IDLE_COLOR;
  const f = Math.min(1, Math.sqrt(value / max)) * (STOPS.length - 1);
  const i = Math.min(STOPS.length - 2, Math.floor(f));
  const a = STOPS[i] ?? STOPS[0];
  const b = STOPS[i + 1] ?? a;
  if (a === undefined || b === undefined) return IDLE_COLOR;
  const mix = (k: 0 | 1 | 2): number => Math.round(a[k] + (b[k] - a[k]) * (f - i));
  return `rgb(${mix(0)},${mix(1)},${mix(2)})`;
}

/** An id shortened for the narrow heatmap margin (the table shows it whole). */
const shortId = (id: string): string => (id.length > 24 ? `${id.slice(0, 23)}…` : id);
const rowName = (r: HeatmapRow): string => (r.state === 'unknown' ? 'outside known regions' : r.start === '' ? '(first region)' : r.start);

function rowHeight(rows: number): number {
  return rows <= 32 ? 22 : Math.max(6, Math.floor(704 / rows));
}

/** The region × time heatmap as inline SVG: one `g.region-row` per region, one `rect.cell` per busy sample. */
export function renderHeatmap(hm: HeatmapSnapshot, hot: HotIdsSnapshot): string {
  const rowH = rowHeight(hm.rows.length);
  // Until the ring holds MIN_COLUMNS samples the chart shows that many columns, then one per sample
  // held: a young ring fills the width instead of a thin strip at the right. Newest on the right.
  const columns = Math.max(hm.times.length, Math.min(hm.maxSamples, MIN_COLUMNS));
  const cellW = CHART_W / columns;
  const first = columns - hm.times.length;
  const seconds = hm.sampleMs / 1000;
  let max = 0;
  for (const r of hm.rows) for (const w of r.writes) max = Math.max(max, w);
  const maxTotal = Math.max(0, ...hm.rows.map((r) => r.total));
  const hotByRegion = new Map<string, string[]>();
  for (const h of hot.ids) hotByRegion.set(h.region, [...(hotByRegion.get(h.region) ?? []), h.id]);

  const height = hm.rows.length * rowH + AXIS_H;
  const out: string[] = [
    `<svg id="heatmap" xmlns="http://www.w3.org/2000/svg" width="${LABEL_W + CHART_W + SIDE_W}" height="${height}" role="img" aria-label="rows written per region and sample">`,
  ];
  hm.rows.forEach((r, i) => {
    const y = i * rowH;
    const hotIds = hotByRegion.get(r.region) ?? [];
    out.push(
      `<g class="region-row" data-region="${esc(r.region)}" data-start="${esc(r.start)}" data-state="${r.state}" data-total="${r.total}"${hotIds.length > 0 ? ' data-hot="1"' : ''}>`,
    );
    out.push(
      `<text class="label${r.state === 'live' ? '' : ' gone'}" x="${LABEL_W - 8}" y="${y + rowH / 2}" text-anchor="end" dominant-baseline="middle">${esc(rowName(r))}${r.state === 'gone' ? ' (gone)' : ''}</text>`,
    );
    out.push(
      `<rect class="idle" x="${LABEL_W}" y="${y + 1}" width="${CHART_W}" height="${rowH - 2}" fill="${IDLE_COLOR}"><title>${esc(`region ${r.region} [${r.start}, ${r.end}) on ${r.server || '?'}: ${r.total} rows in the last ${hm.times.length} samples`)}</title></rect>`,
    );
    r.writes.forEach((w, s) => {
      if (w <= 0) return;
      const x = LABEL_W + (first + s) * cellW;
      const t = hm.times[s] ?? 0;
      out.push(
        `<rect class="cell" x="${x.toFixed(2)}" y="${y + 1}" width="${(cellW + 0.25).toFixed(2)}" height="${rowH - 2}" fill="${heatColor(w, max)}" data-writes="${w}"><title>${esc(`${rowName(r)} · ${hhmmss(t - hm.sampleMs)}–${hhmmss(t)} UTC: ${w} rows (${fmt(w / seconds)}/s)`)}</title></rect>`,
      );
    });
    const barW = maxTotal > 0 ? (BAR_W * r.total) / maxTotal : 0;
    const sx = LABEL_W + CHART_W + 10;
    out.push(`<rect class="total-bar" x="${sx}" y="${y + 4}" width="${barW.toFixed(2)}" height="${Math.max(1, rowH - 8)}"/>`);
    out.push(
      `<text class="total" x="${sx + BAR_W + 6}" y="${y + rowH / 2}" dominant-baseline="middle">${r.total}${hotIds.length > 0 ? `<tspan class="hot-mark"> hot: ${esc(shortId(hotIds[0] ?? ''))}${hotIds.length > 1 ? ` +${hotIds.length - 1}` : ''}</tspan>` : ''}</text>`,
    );
    out.push('</g>');
  });
  const axisY = hm.rows.length * rowH + 16;
  const step = Math.max(1, Math.ceil(columns / 8));
  hm.times.forEach((t, s) => {
    if ((hm.times.length - 1 - s) % step !== 0) return;
    const x = LABEL_W + (first + s + 0.5) * cellW;
    out.push(`<text class="axis" x="${x.toFixed(1)}" y="${axisY}" text-anchor="middle">${hhmmss(t)}</text>`);
  });
  out.push('</svg>');
  return out.join('');
}

function legend(hm: HeatmapSnapshot): string {
  let max = 0;
  for (const r of hm.rows) for (const w of r.writes) max = Math.max(max, w);
  const stops = [0.1, 0.3, 0.55, 0.8, 1].map((f) => `<span class="swatch" style="background:${heatColor(f * f * max, max)}"></span>`).join('');
  const perSec = max / (hm.sampleMs / 1000);
  return `<p class="legend"><span class="swatch" style="background:${IDLE_COLOR}"></span> idle &nbsp; ${stops} up to ${max} rows per ${fmt(hm.sampleMs / 1000)} s sample (${fmt(perSec)}/s) · right: rows per region over the ${hm.times.length} samples shown</p>`;
}

/** max / mean rows per live region over the samples shown (1 = even); 0 without writes. */
export function ringSkew(hm: HeatmapSnapshot): number {
  const totals = hm.rows.filter((r) => r.state === 'live').map((r) => r.total);
  const sum = totals.reduce((a, b) => a + b, 0);
  return sum > 0 ? Math.max(...totals) / (sum / totals.length) : 0;
}

/** " → K from hh:mm:ss" when the id's newest epoch has not started yet (a promotion waiting for its lead). */
function pendingEpoch(h: HotIdsSnapshot['ids'][number]): string {
  return h.epoch !== null && h.epoch.k > h.k ? ` <small>→ ${h.epoch.k} from ${hhmmss(h.epoch.since)}</small>` : '';
}

/** The hot ids as an HTML table (`tr.hot-id` rows with `data-id` and `data-k`). */
export function renderHotIds(hot: HotIdsSnapshot, rows: readonly HeatmapRow[]): string {
  const win = fmt(hot.windowMs / 1000);
  if (hot.ids.length === 0) return `<p id="hot-ids-empty">No events in the last ${win} s.</p>`;
  const startOf = new Map(rows.map((r) => [r.region, r.start]));
  const body = hot.ids.map((h, i) => {
    const start = startOf.get(h.region);
    const region =
      h.region === '' ? '?' : `${start === undefined ? '' : esc(start === '' ? '(first region)' : start)} <small>${esc(h.region.slice(0, 8))}</small>`;
    return (
      `<tr class="hot-id" data-id="${esc(h.id)}" data-events="${h.events}" data-k="${h.k}"><td>${i + 1}</td><td class="id">${esc(h.id)}</td>` +
      `<td class="num">${fmt(h.events)}${h.error > 0 ? ` <small>(≥ ${fmt(h.events - h.error)})</small>` : ''}</td>` +
      `<td class="num">${fmt(h.events / (hot.windowMs / 1000))}</td>` +
      `<td><span class="share" style="width:${(h.share * 100).toFixed(1)}px"></span> ${(h.share * 100).toFixed(1)}%</td>` +
      `<td class="num">${h.bucket}</td><td class="num k">${h.k}${pendingEpoch(h)}</td><td>${region}</td><td>${esc(h.server)}</td></tr>`
    );
  });
  return (
    `<table id="hot-ids"><thead><tr><th>#</th><th>id</th><th>events (${win} s)</th><th>avg/s</th><th>share</th><th>salt bucket</th><th title="salt buckets its events spread over now (docs/HOT-IDS.md)">K</th><th>region (start key)</th><th>server</th></tr></thead><tbody>${body.join('')}</tbody></table>` +
    `<p class="note">Top ${hot.ids.length} of ${hot.total} events in the last ${win} s, from a Space-Saving sketch of ${hot.capacity} counters per slot: counts are upper estimates, at most ${fmt(hot.errorBound)} too high (events / ${hot.capacity}); "≥" shows the guaranteed lower bound where it differs.${hot.undecodable > 0 ? ` ${hot.undecodable} undecodable keys were not counted.` : ''}</p>`
  );
}

/** The page body that the script swaps on refresh. */
export function renderContent(s: UiSnapshot): string {
  const hm = s.heatmap;
  const heat =
    hm.times.length === 0
      ? `<p id="heatmap-empty">No samples yet: the first one comes within ${fmt(hm.sampleMs / 1000)} s.</p>`
      : renderHeatmap(hm, s.hotIds) + legend(hm);
  return (
    `<div id="content" data-generated="${s.generatedAt}">` +
    `<p class="meta">table <b>${esc(s.table)}</b> · ${s.buckets} salt buckets · ${hm.rows.length} regions · updated ${hhmmss(s.generatedAt)} UTC · max/mean rows per region over the samples shown: <b id="skew">${ringSkew(hm).toFixed(2)}</b></p>` +
    `<h2>Writes per region over time</h2>${heat}<h2>Hot ids</h2>${renderHotIds(s.hotIds, hm.rows)}${renderDoctor(s.doctor, s.generatedAt)}</div>`
  );
}

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:16px 24px;color:#1d2330}h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:18px 0 6px}
.meta,.note,.legend{color:#555}svg text{font:12px ui-monospace,monospace;fill:#333}svg .gone{fill:#999}svg .axis{fill:#666;font-size:11px}
.total-bar{fill:#7a8699}.hot-mark{fill:#c0262d;font-weight:bold}.swatch{display:inline-block;width:14px;height:12px;vertical-align:middle;border:1px solid #ccc}
table{border-collapse:collapse}th,td{padding:3px 10px;border-bottom:1px solid #e3e6eb;text-align:left}td.num{text-align:right}td.id{font-family:ui-monospace,monospace;font-weight:bold}
.share{display:inline-block;height:10px;background:#f03b20;vertical-align:middle}small{color:#777}a{color:#2457a8}
#doctor-findings{table-layout:fixed;width:100%;max-width:1400px}#doctor-findings td{vertical-align:top;overflow-wrap:break-word;font-size:13px}#doctor-findings td.rule{font-family:ui-monospace,monospace}
#doctor-findings .c-sev{width:72px}#doctor-findings .c-rule{width:185px}#doctor-findings .c-subject{width:170px}#doctor-findings .c-source{width:150px}
.sev{display:inline-block;padding:0 6px;border-radius:3px;font-size:12px;font-weight:bold}.sev-error{background:#c0262d;color:#fff}.sev-warn{background:#f3b33d;color:#3a2a00}.sev-info{background:#dde6f3;color:#1d3b66}.sev-none{background:#eef1f5;color:#777}
.failed{color:#c0262d}`;

/** The whole document; `refreshMs` 0 disables the refresh script. */
export function renderPage(s: UiSnapshot, refreshMs: number): string {
  const script =
    refreshMs > 0
      ? `<script>(()=>{const every=${Math.round(refreshMs)};const tick=async()=>{if(document.getElementById('pause').checked)return;try{const r=await fetch(location.href,{cache:'no-store'});if(!r.ok)return;const d=new DOMParser().parseFromString(await r.text(),'text/html');const next=d.getElementById('content');const cur=document.getElementById('content');if(next&&cur)cur.replaceWith(next);}catch(e){}};setInterval(tick,every);})();</script>`
      : '';
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>tsingest · write hot spots</title><meta name="viewport" content="width=device-width,initial-scale=1"><style>${STYLE}</style></head>` +
    `<body><h1>Write hot spots</h1><p class="meta">Data: <a href="ui/data.json">ui/data.json</a> · <a href="metrics">metrics</a> · <a href="#doctor">schema doctor</a>${refreshMs > 0 ? ` · refreshes every ${fmt(refreshMs / 1000)} s <label><input type="checkbox" id="pause"> pause</label>` : ''}</p>` +
    `${renderContent(s)}${script}</body></html>`
  );
}
