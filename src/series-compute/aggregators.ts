// Pure: OpenTSDB 2.4.1's aggregators (src/core/Aggregators.java), the `runDouble` path.
//
// Every value we aggregate is a double: our cells are IEEE-754 doubles, and OpenTSDB's downsampled and
// rate values are doubles too. OpenTSDB also has a `runLong` path, taken only when EVERY value at a
// timestamp was written as an integer: aggregators-long.ts, used only when the caller says which
// values are integers (compute.ts options).

import type { AggregatorName } from '../series-language/types.ts';
import { getLongAggregator } from './aggregators-long.ts';
import type { LongAggregateFn } from './aggregators-long.ts';
import { percentile } from './percentile.ts';

/** Aggregators.Interpolation: what a series without a point at a timestamp contributes. */
export type Interpolation = 'LERP' | 'ZIM' | 'MAX' | 'MIN' | 'PREV';

/** One aggregator's double function over the values of one bucket or one timestamp (never empty). */
export type AggregateFn = (values: readonly number[]) => number;

/** How many values the last sumOfNumbers counted (a number, not an object per call: it runs once per bucket and per timestamp). */
let counted = 0;

/** The sum of the values that are not NaN (OpenTSDB skips NaN); how many there are is left in `counted`. */
function sumOfNumbers(values: readonly number[]): number {
  let total = 0;
  let n = 0;
  for (const v of values) {
    if (!Number.isNaN(v)) {
      total += v;
      n++;
    }
  }
  counted = n;
  return total;
}

const sum: AggregateFn = (values) => {
  const total = sumOfNumbers(values);
  return counted === 0 ? Number.NaN : total;
};

const squareSum: AggregateFn = (values) => {
  let result = 0;
  let n = 0;
  for (const v of values) {
    if (!Number.isNaN(v)) {
      result += v * v;
      n++;
    }
  }
  return n === 0 ? Number.NaN : result;
};

const min: AggregateFn = (values) => {
  const initial = first(values);
  let m = Number.isNaN(initial) ? Number.POSITIVE_INFINITY : initial;
  for (let i = 1; i < values.length; i++) {
    const v = values[i] ?? Number.NaN;
    if (!Number.isNaN(v) && v < m) m = v;
  }
  return m === Number.POSITIVE_INFINITY ? Number.NaN : m;
};

const max: AggregateFn = (values) => {
  const initial = first(values);
  let m = Number.isNaN(initial) ? Number.NEGATIVE_INFINITY : initial;
  for (let i = 1; i < values.length; i++) {
    const v = values[i] ?? Number.NaN;
    if (!Number.isNaN(v) && v > m) m = v;
  }
  return m === Number.NEGATIVE_INFINITY ? Number.NaN : m;
};

const avg: AggregateFn = (values) => {
  const total = sumOfNumbers(values);
  return counted === 0 ? Number.NaN : total / counted;
};

/** Median: the upper median (element size/2 of the sorted non-NaN values), no averaging. */
const median: AggregateFn = (values) => {
  const kept = values.filter((v) => !Number.isNaN(v)).sort(compareDoubles);
  if (kept.length === 0) return Number.NaN;
  return kept[Math.floor(kept.length / 2)] ?? Number.NaN;
};

const none: AggregateFn = (values) => {
  if (values.length > 1) throw new Error(`More than one value in aggregator none (${values.length})`);
  return first(values);
};

/** Multiply: NaNs are NOT skipped (2.4.1 runDouble multiplies them in). */
const mult: AggregateFn = (values) => {
  let result = first(values);
  for (let i = 1; i < values.length; i++) result *= values[i] ?? Number.NaN;
  return result;
};

/**
 * StdDev: Welford's running variance, divided by (n - 1) where n ends one past the number of values
 * seen — so it is the POPULATION standard deviation (M2 / count). One value → 0.
 */
const dev: AggregateFn = (values) => {
  let i = 0;
  let oldMean = values[i++] ?? Number.NaN;
  while (Number.isNaN(oldMean) && i < values.length) oldMean = values[i++] ?? Number.NaN;
  if (Number.isNaN(oldMean)) return Number.NaN;
  if (i >= values.length) return 0;
  let n = 2;
  let newMean = 0;
  let m2 = 0;
  do {
    const x = values[i++] ?? Number.NaN;
    if (!Number.isNaN(x)) {
      newMean = oldMean + (x - oldMean) / n;
      m2 += (x - oldMean) * (x - newMean);
      oldMean = newMean;
      n++;
    }
  } while (i < values.length);
  return n === 2 ? 0 : Math.sqrt(m2 / (n - 1));
};

/** Diff: last − first non-NaN first value; the last value is taken as is (even NaN). */
const diff: AggregateFn = (values) => {
  let i = 0;
  let firstMean = values[i++] ?? Number.NaN;
  while (Number.isNaN(firstMean) && i < values.length) firstMean = values[i++] ?? Number.NaN;
  if (Number.isNaN(firstMean)) return Number.NaN;
  if (i >= values.length) return 0;
  let lastMean = 0;
  do {
    lastMean = values[i++] ?? Number.NaN;
  } while (i < values.length);
  return lastMean - firstMean;
};

const count: AggregateFn = (values) => {
  let result = 0;
  for (const v of values) if (!Number.isNaN(v)) result++;
  return result;
};

const firstAgg: AggregateFn = (values) => first(values);
const lastAgg: AggregateFn = (values) => values[values.length - 1] ?? Number.NaN;

function percentileAgg(p: number): AggregateFn {
  return (values) => {
    const kept = values.filter((v) => !Number.isNaN(v));
    return kept.length === 0 ? Number.NaN : percentile(kept, p, 'legacy');
  };
}

function first(values: readonly number[]): number {
  const v = values[0];
  if (v === undefined) throw new Error('aggregator run without values');
  return v;
}

/** Java's Double.compareTo order for non-NaN values (-0.0 before 0.0). */
export function compareDoubles(a: number, b: number): number {
  if (a < b) return -1;
  if (a > b) return 1;
  if (a === 0 && b === 0) return Object.is(a, -0) ? (Object.is(b, -0) ? 0 : -1) : Object.is(b, -0) ? 1 : 0;
  return 0;
}

export interface AggregatorSpec {
  readonly name: AggregatorName;
  readonly interpolation: Interpolation;
  readonly run: AggregateFn;
  /** the runLong path (aggregators-long.ts) */
  readonly runLong: LongAggregateFn;
}

const P = (p: number): AggregateFn => percentileAgg(p);

const TABLE: Readonly<Record<AggregatorName, readonly [Interpolation, AggregateFn]>> = {
  sum: ['LERP', sum],
  pfsum: ['PREV', sum],
  min: ['LERP', min],
  max: ['LERP', max],
  avg: ['LERP', avg],
  median: ['LERP', median],
  none: ['ZIM', none],
  mult: ['LERP', mult],
  dev: ['LERP', dev],
  diff: ['LERP', diff],
  zimsum: ['ZIM', sum],
  mimmin: ['MAX', min],
  mimmax: ['MIN', max],
  squareSum: ['ZIM', squareSum],
  count: ['ZIM', count],
  first: ['ZIM', firstAgg],
  last: ['ZIM', lastAgg],
  p999: ['LERP', P(99.9)],
  p99: ['LERP', P(99)],
  p95: ['LERP', P(95)],
  p90: ['LERP', P(90)],
  p75: ['LERP', P(75)],
  p50: ['LERP', P(50)],
  // runDouble ignores the estimation type in 2.4.1 (see percentile.ts)
  ep999r3: ['LERP', P(99.9)],
  ep99r3: ['LERP', P(99)],
  ep95r3: ['LERP', P(95)],
  ep90r3: ['LERP', P(90)],
  ep75r3: ['LERP', P(75)],
  ep50r3: ['LERP', P(50)],
  ep999r7: ['LERP', P(99.9)],
  ep99r7: ['LERP', P(99)],
  ep95r7: ['LERP', P(95)],
  ep90r7: ['LERP', P(90)],
  ep75r7: ['LERP', P(75)],
  ep50r7: ['LERP', P(50)],
};

export function getAggregator(name: AggregatorName): AggregatorSpec {
  const [interpolation, run] = TABLE[name];
  return { name, interpolation, run, runLong: getLongAggregator(name) };
}
