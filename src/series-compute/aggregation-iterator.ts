// Pure: OpenTSDB 2.4.1's AggregationIterator (src/core/AggregationIterator.java), the double path,
// ported slot for slot, and the long path's rules.
// Design notes: docs/DECISIONS.md#aggregationiterator

import type { AggregatorSpec } from './aggregators.ts';
import type { ScanRange } from './range.ts';
import { runAtOnce, STEP_WORK } from './steps.ts';
import type { SeekableView } from './views.ts';

const ENDED = Number.MAX_VALUE;
const LONG_MAX = Number(2n ** 63n - 1n); // Long.MAX_VALUE, as the nearest double
const LONG_MIN = -(2 ** 63); // Long.MIN_VALUE

/** dx × (y1 − y0) / span in Java long arithmetic (exact through BigInt): dx = x − x0, span = x1 − x0. */
function longLerpDelta(dx: number, span: number, y0: number, y1: number): number {
  return Number((BigInt(dx) * (BigInt(y1) - BigInt(y0))) / BigInt(span));
}

/** Runs the iterator to the end: the aggregated [ts, value] points in ascending ts. */
export function aggregate(views: readonly SeekableView[], scan: ScanRange, aggregator: AggregatorSpec, rate: boolean): [number, number][] {
  const { ts, values } = runAtOnce(aggregateSteps(views, scan, aggregator, rate));
  return ts.map((t, i) => [t, values[i] as number]);
}

/** The aggregated points as two arrays (no object per point: an answer of a million points is garbage the GC must not pause for). */
export interface AggregatedPoints {
  readonly ts: number[];
  readonly values: number[];
}

/** aggregate() as steps (steps.ts): yields every STEP_WORK series looked at, returns the points. */
export function* aggregateSteps(views: readonly SeekableView[], scan: ScanRange, aggregator: AggregatorSpec, rate: boolean): Generator<void, AggregatedPoints> {
  const { startMs: startTime, endMs: endTime } = scan;
  const size = views.length;
  let work = 0;
  const iterators: (SeekableView | null)[] = [...views];
  // typed arrays: unboxed doubles (every ts and value fits a double exactly, as in the views)
  const timestamps = new Float64Array(size * 2);
  const values = new Float64Array(size * 2);
  const isFloat = new Uint8Array(size * 2);
  const put = (k: number, dp: { ts: number; value: number; integer?: boolean }): void => {
    timestamps[k] = dp.ts;
    values[k] = dp.value;
    isFloat[k] = dp.integer !== true ? 1 : 0;
  };

  const endReached = (i: number): void => {
    timestamps[size + i] = ENDED;
    isFloat[size + i] = 0;
    iterators[i] = null;
  };
  const moveToNext = (i: number): void => {
    const next = size + i;
    timestamps[i] = timestamps[next] ?? 0;
    values[i] = values[next] ?? 0;
    isFloat[i] = isFloat[next] ?? 0;
    const it = iterators[i];
    if (it?.hasNext() === true) {
      put(next, it.next());
    } else {
      endReached(i);
    }
  };

  for (let i = 0; i < size; i++) {
    if ((work += 1) >= STEP_WORK) {
      work = 0;
      yield;
    }
    const it = iterators[i];
    if (it === null || it === undefined) continue;
    it.seek(startTime);
    if (!it.hasNext()) {
      endReached(i);
      continue;
    }
    let dp: { ts: number; value: number; integer?: boolean } | null = it.next();
    while (dp !== null && dp.ts < startTime) dp = it.hasNext() ? it.next() : null;
    if (dp === null) {
      endReached(i);
      continue;
    }
    put(size + i, dp);
    if (rate) {
      if (it.hasNext()) moveToNext(i);
      else endReached(i);
    }
  }

  const outTs: number[] = [];
  const outValues: number[] = [];
  const vals: number[] = [];
  let current = 0;
  const ts = (i: number): number => timestamps[i] ?? 0;
  const val = (i: number): number => values[i] ?? 0;
  /** nextLongValue() over every series with a current point */
  const longValues = (x: number, cur: number): number[] => {
    const vals: number[] = [];
    for (let pos = 0; pos < size; pos++) {
      if (ts(pos) === 0) continue;
      const y0 = val(pos);
      const x0 = ts(pos);
      if (pos === cur || x === x0) {
        vals.push(y0);
        continue;
      }
      const y1 = val(pos + size);
      const x1 = ts(pos + size);
      if (x === x1) {
        vals.push(y1);
        continue;
      }
      switch (aggregator.interpolation) {
        case 'LERP':
          vals.push(y0 + longLerpDelta(x - x0, x1 - x0, y0, y1));
          break;
        case 'ZIM':
          vals.push(0);
          break;
        case 'MAX':
          vals.push(LONG_MAX);
          break;
        case 'MIN':
          vals.push(LONG_MIN);
          break;
        case 'PREV':
          vals.push(y0);
          break;
      }
    }
    return vals;
  };
  for (;;) {
    if ((work += size + 1) >= STEP_WORK) {
      work = 0;
      yield;
    }
    // hasNext()
    let any = false;
    for (let i = 0; i < size && !any; i++) if (ts(size + i) <= endTime) any = true;
    if (!any) break;
    // next()
    for (let i = current; i < size; i++) {
      if (ts(i + size) === ENDED) {
        timestamps[i] = 0;
        isFloat[i] = 0;
      }
    }
    current = -1;
    let minTs = Number.POSITIVE_INFINITY;
    let multiple = false;
    for (let i = 0; i < size; i++) {
      const t = ts(size + i);
      if (t <= endTime) {
        if (t < minTs) {
          minTs = t;
          current = i;
          multiple = false;
        } else if (t === minTs) {
          multiple = true;
        }
      }
    }
    if (current < 0) break;
    moveToNext(current);
    if (multiple) for (let i = current + 1; i < size; i++) if (ts(size + i) === minTs) moveToNext(i);

    const x = ts(current);
    if (!rate && !isFloat.includes(1)) {
      outTs.push(x);
      outValues.push(aggregator.runLong(longValues(x, current)));
      continue;
    }
    // doubleValue(): the aggregator over every series with a current point (one array for every
    // timestamp: an aggregator reads its values and keeps none)
    vals.length = 0;
    for (let pos = 0; pos < size; pos++) {
      if (ts(pos) === 0) continue;
      const y0 = val(pos);
      if (pos === current || rate) {
        vals.push(y0);
        continue;
      }
      const x0 = ts(pos);
      if (x === x0) {
        vals.push(y0);
        continue;
      }
      const y1 = val(pos + size);
      const x1 = ts(pos + size);
      if (x === x1) {
        vals.push(y1);
        continue;
      }
      switch (aggregator.interpolation) {
        case 'LERP':
          vals.push(y0 + ((x - x0) * (y1 - y0)) / (x1 - x0));
          break;
        case 'ZIM':
          vals.push(0);
          break;
        case 'MAX':
          vals.push(Number.MAX_VALUE);
          break;
        case 'MIN':
          vals.push(-Number.MAX_VALUE);
          break;
        case 'PREV':
          vals.push(y0);
          break;
      }
    }
    outTs.push(x);
    outValues.push(aggregator.run(vals));
  }
  return { ts: outTs, values: outValues };
}
