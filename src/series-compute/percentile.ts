// Pure: Apache commons-math3 3.4.1 `Percentile` (the version OpenTSDB 2.4.1 ships,
// third_party/apache/include.mk), the estimation types OpenTSDB names: LEGACY (the default of
// `new Percentile(p)`), R_3 and R_7.
//
// OpenTSDB 2.4.1's PercentileAgg.runDouble builds `new Percentile(this.percentile)` WITHOUT the
// estimation type (only runLong passes it). Every value this computation sees is a double (our cells
// are IEEE-754 doubles and downsampled values are always doubles in OpenTSDB), so ep*r3 / ep*r7 give
// exactly the LEGACY answer, as 2.4.1 does. R_3 and R_7 are here for the long path and for tests.

export const ESTIMATION_TYPES = ['legacy', 'r3', 'r7'] as const;
export type EstimationType = (typeof ESTIMATION_TYPES)[number];

/** EstimationType.index(p, length) with p in [0, 1]. */
function estimationIndex(type: EstimationType, p: number, length: number): number {
  switch (type) {
    case 'legacy':
      return p === 0 ? 0 : p === 1 ? length : p * (length + 1);
    case 'r7':
      return p === 0 ? 0 : p === 1 ? length : 1 + (length - 1) * p;
    case 'r3': {
      const minLimit = 0.5 / length;
      return p <= minLimit ? 0 : rint(length * p);
    }
  }
}

/** Java's Math.rint: round half to even. */
function rint(x: number): number {
  const f = Math.floor(x);
  const diff = x - f;
  if (diff < 0.5) return f;
  if (diff > 0.5) return f + 1;
  return f % 2 === 0 ? f : f + 1;
}

/** EstimationType.estimate (the shared default used by LEGACY, R_3 and R_7) on sorted values. */
function estimate(sorted: readonly number[], pos: number): number {
  const length = sorted.length;
  const fpos = Math.floor(pos);
  const intPos = fpos;
  const dif = pos - fpos;
  if (pos < 1) return at(sorted, 0);
  if (pos >= length) return at(sorted, length - 1);
  const lower = at(sorted, intPos - 1);
  const upper = at(sorted, intPos);
  return lower + dif * (upper - lower);
}

function at(a: readonly number[], i: number): number {
  const v = a[i];
  if (v === undefined) throw new RangeError(`percentile index ${i} outside 0..${a.length - 1}`);
  return v;
}

/**
 * Percentile.evaluate(values, p) for p in (0, 100]: NaN for no values, the value itself for one, else
 * the estimation type's interpolation over the sorted values. (NaNs are removed by the callers, as
 * PercentileAgg.runDouble does before handing the array over.)
 */
export function percentile(values: readonly number[], p: number, type: EstimationType = 'legacy'): number {
  if (values.length === 0) return Number.NaN;
  if (values.length === 1) return at(values, 0);
  const sorted = [...values].sort((a, b) => a - b);
  return estimate(sorted, estimationIndex(type, p / 100, sorted.length));
}
