// Pure: OpenTSDB 2.4.1's `runLong` aggregator path (src/core/Aggregators.java). AggregationIterator
// takes it at a timestamp where EVERY current and next point of the group is an integer (written as an
// integer literal: Tags.looksLikeInteger) and there is no rate and no downsampling (downsampled values
// are always doubles). Integer results differ from the double path: avg truncates (sum / n), dev is
// (long) sqrt(…), percentiles are (long) evaluate() WITH the ep*r3/ep*r7 estimation type, and LERP
// truncates (see aggregation-iterator.ts).
//
// Values are JS numbers: exact for |v| ≤ 2^53; Java's 64-bit overflow wrap-around is not modelled.

import type { AggregatorName } from '../series-language/types.ts';
import { percentile } from './percentile.ts';
import type { EstimationType } from './percentile.ts';

export type LongAggregateFn = (values: readonly number[]) => number;

function first(values: readonly number[]): number {
  const v = values[0];
  if (v === undefined) throw new Error('aggregator run without values');
  return v;
}

/** Java long division: truncates toward zero (exact through BigInt). */
export function longDiv(a: number, b: number): number {
  if (Number.isSafeInteger(a) && Number.isSafeInteger(b)) return Number(BigInt(a) / BigInt(b));
  return Math.trunc(a / b);
}

const sum: LongAggregateFn = (values) => values.reduce((a, v) => a + v, 0);
const squareSum: LongAggregateFn = (values) => values.reduce((a, v) => a + v * v, 0);
const min: LongAggregateFn = (values) => values.reduce((a, v) => (v < a ? v : a), first(values));
const max: LongAggregateFn = (values) => values.reduce((a, v) => (v > a ? v : a), first(values));
const avg: LongAggregateFn = (values) => longDiv(sum(values), values.length);
const median: LongAggregateFn = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return first(sorted.slice(Math.floor(sorted.length / 2)));
};
const none: LongAggregateFn = (values) => {
  if (values.length > 1) throw new Error(`More than one value in aggregator none (${values.length})`);
  return first(values);
};
const mult: LongAggregateFn = (values) => values.reduce((a, v) => a * v, 1);
/** StdDev.runLong: Welford over all values, population, truncated to a long. */
const dev: LongAggregateFn = (values) => {
  let oldMean = first(values);
  if (values.length === 1) return 0;
  let n = 2;
  let m2 = 0;
  for (let i = 1; i < values.length; i++) {
    const x = values[i] ?? 0;
    const newMean = oldMean + (x - oldMean) / n;
    m2 += (x - oldMean) * (x - newMean);
    oldMean = newMean;
    n++;
  }
  return Math.trunc(Math.sqrt(m2 / (n - 1)));
};
const diff: LongAggregateFn = (values) => (values.length === 1 ? 0 : (values[values.length - 1] ?? 0) - first(values));
const count: LongAggregateFn = (values) => values.length;
const firstAgg: LongAggregateFn = (values) => first(values);
const lastAgg: LongAggregateFn = (values) => values[values.length - 1] ?? first(values);

function pct(p: number, type: EstimationType): LongAggregateFn {
  return (values) => Math.trunc(percentile(values, p, type));
}

const TABLE: Readonly<Record<AggregatorName, LongAggregateFn>> = {
  sum,
  pfsum: sum,
  zimsum: sum,
  min,
  mimmin: min,
  max,
  mimmax: max,
  avg,
  median,
  none,
  mult,
  dev,
  diff,
  count,
  squareSum,
  first: firstAgg,
  last: lastAgg,
  p999: pct(99.9, 'legacy'),
  p99: pct(99, 'legacy'),
  p95: pct(95, 'legacy'),
  p90: pct(90, 'legacy'),
  p75: pct(75, 'legacy'),
  p50: pct(50, 'legacy'),
  ep999r3: pct(99.9, 'r3'),
  ep99r3: pct(99, 'r3'),
  ep95r3: pct(95, 'r3'),
  ep90r3: pct(90, 'r3'),
  ep75r3: pct(75, 'r3'),
  ep50r3: pct(50, 'r3'),
  ep999r7: pct(99.9, 'r7'),
  ep99r7: pct(99, 'r7'),
  ep95r7: pct(95, 'r7'),
  ep90r7: pct(90, 'r7'),
  ep75r7: pct(75, 'r7'),
  ep50r7: pct(50, 'r7'),
};

export function getLongAggregator(name: AggregatorName): LongAggregateFn {
  return TABLE[name];
}
