// Pure: which layout to use. Writes first: a layout is acceptable when its data-table skew, and its
// index-table skew, are each within 5 % of the best candidate's or at most SKEW_TARGET (when no
// layout passes both, the data table alone decides). Among the acceptable ones the cheapest reads
// win (fewer scans per tag read, then per id read), then the more even index table, then shorter
// keys; the current layout (listed first) wins a tie.
import type { Prediction } from './predict.ts';

/** The skew the service aims at (docs/HOT-IDS.md: ≤ 1.25 with spreading on). */
export const SKEW_TARGET = 1.25;
const NEAR_BEST = 1.05;

export interface Recommendation {
  /** index into the predictions */
  readonly index: number;
  readonly name: string;
  readonly why: string;
}

const indexSkew = (p: Prediction): number => p.index?.skew ?? 0;

export function recommend(predictions: readonly Prediction[]): Recommendation {
  if (predictions.length === 0) throw new Error('no layouts to compare');
  const best = Math.min(...predictions.map((p) => p.data.skew));
  const limit = Math.max(SKEW_TARGET, best * NEAR_BEST);
  const indexLimit = Math.max(SKEW_TARGET, Math.min(...predictions.map(indexSkew)) * NEAR_BEST);
  const all = predictions.map((p, i) => ({ p, i })).filter(({ p }) => p.data.skew <= limit);
  const both = all.filter(({ p }) => indexSkew(p) <= indexLimit);
  const ok = both.length > 0 ? both : all;
  ok.sort(
    (a, b) =>
      a.p.tagReadScans - b.p.tagReadScans ||
      a.p.idReadScans.mean - b.p.idReadScans.mean ||
      indexSkew(a.p) - indexSkew(b.p) ||
      a.p.data.avgKeyBytes - b.p.data.avgKeyBytes ||
      a.i - b.i,
  );
  const pick = ok[0] ?? { p: predictions[0] as Prediction, i: 0 };
  const others = ok.length - 1;
  const why = [
    `data skew ${pick.p.data.skew.toFixed(2)} (best of all ${best.toFixed(2)}; acceptable ≤ ${limit.toFixed(2)})`,
    `${pick.p.tagReadScans} scan(s) per tag read, ${pick.p.idReadScans.mean.toFixed(2)} per id read on average`,
    ...(pick.p.index === null
      ? []
      : [`index skew ${pick.p.index.skew.toFixed(2)}${both.length > 0 ? ` (acceptable ≤ ${indexLimit.toFixed(2)})` : ', no layout keeps both tables even'}`]),
    others > 0 ? `chosen over ${others} other acceptable layout(s) for cheaper reads, a more even index or shorter keys` : 'the only acceptable layout',
  ];
  return { index: pick.i, name: pick.p.name, why: why.join('; ') };
}
