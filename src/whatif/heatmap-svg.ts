// Pure: the predicted write spread as an SVG heatmap: a row per layout and table, a cell per region
// in key order, coloured by the region's rows over the mean (white: idle; dark red: the hottest).
import type { Prediction, TablePrediction } from './predict.ts';

const ROW_H = 22;
const LABEL_W = 360;
const GRID_W = 640;
const LEGEND_H = 40;

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

type Rgb = readonly [number, number, number];
const LIGHT: Rgb = [255, 247, 236];
const MEAN: Rgb = [253, 141, 60];
const DARK: Rgb = [127, 0, 0];

function mix(a: Rgb, b: Rgb, t: number): string {
  const u = Math.min(1, Math.max(0, t));
  return `#${a
    .map((v, k) =>
      Math.round(v + ((b[k] ?? v) - v) * u)
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
}

/** #rrggbb: white when idle, light yellow → orange up to the mean (ratio 1), orange → dark red up to `top`. */
export function ratioColour(ratio: number, top: number): string {
  if (ratio <= 0) return '#ffffff';
  return ratio <= 1 ? mix(LIGHT, MEAN, ratio) : mix(MEAN, DARK, (ratio - 1) / Math.max(top - 1, 0.01));
}

function row(y: number, line: { readonly label: string; readonly t: TablePrediction; readonly indent: number }, top: number): string {
  const { label, t, indent } = line;
  const mean = t.rows / Math.max(1, t.regions);
  const w = GRID_W / Math.max(1, t.regions);
  const cells = t.perRegion.map((n, i) => {
    const ratio = mean === 0 ? 0 : n / mean;
    return `<rect x="${(LABEL_W + i * w).toFixed(2)}" y="${y}" width="${w.toFixed(2)}" height="${ROW_H - 2}" fill="${ratioColour(ratio, top)}" stroke="#ccc" stroke-width="0.5"><title>region ${i}: ${n} rows (${ratio.toFixed(2)} × mean)</title></rect>`;
  });
  return `<text x="${4 + indent}" y="${y + 15}" font-size="12">${esc(label)}</text>${cells.join('')}`;
}

export function renderHeatmapSvg(predictions: readonly Prediction[], recommended: number): string {
  const tables = predictions.flatMap((p, i) => [
    { label: `${i === recommended ? '→ ' : ''}${p.name} · data ${p.data.skew.toFixed(2)}`, t: p.data, indent: 0 },
    ...(p.index === null ? [] : [{ label: `index ${p.index.skew.toFixed(2)}`, t: p.index, indent: 24 }]),
  ]);
  const top = Math.max(2, ...tables.map((x) => x.t.skew));
  const height = LEGEND_H + tables.length * ROW_H + 10;
  const legend = [0, 0.5, 1, top / 2, top].map(
    (r, i) =>
      `<rect x="${LABEL_W + i * 110}" y="8" width="14" height="14" fill="${ratioColour(r, top)}" stroke="#999"/><text x="${LABEL_W + i * 110 + 18}" y="20" font-size="11">${r === 0 ? 'idle' : `${r.toFixed(2)} × mean`}</text>`,
  );
  const body = tables.map((x, i) => row(LEGEND_H + i * ROW_H, x, top));
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${LABEL_W + GRID_W + 10}" height="${height}" font-family="sans-serif">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="4" y="20" font-size="13" font-weight="bold">Predicted rows per region (key order)</text>`,
    ...legend,
    ...body,
    '</svg>',
  ].join('\n');
}
