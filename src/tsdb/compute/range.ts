// Pure: the time bounds OpenTSDB 2.4.1 computes around a query (TsdbQuery.getScanStartTimeSeconds /
// getScanEndTimeSeconds), and the serializer's final range rule.
//
// 1. The HBase scan covers rows [scanStart, scanEnd) (hour rows; the stop key is exclusive), so a
//    series contributes its points with scanStart ≤ ts < scanEnd — points BEFORE the query start and
//    AFTER its end take part in downsampling, interpolation and rate.
//    - scanStart: start (s) aligned down to the downsample interval (fixed length, even for calendar
//      and `n`/`y`: 30 d / 365 d), then down to the hour.
//    - scanEnd: end (s, +1 because the end is given in ms: the "edge case" bump in 2.4.1 always
//      fires), then up to the NEXT interval boundary (always moves), then up to the hour; without a
//      downsample interval (none or `all`), up to the next hour (always moves).
// 2. SpanGroup / AggregationIterator / FillingDownsampler run over [scanStart, scanEnd] (ms).
// 3. HttpJsonSerializer.formatQueryAsyncV1 skips every point with ts < query start or ts > query end:
//    the query range is INCLUSIVE at both ends, with or without downsampling. A downsample bucket
//    stamped before the start (the partial first bucket) is dropped; one stamped at ≤ end is kept
//    (with all its data up to scanEnd).
// Timestamps must be ms after 2^32 ms (1970-02-20): OpenTSDB reads smaller values as seconds.

import type { Downsample } from '../types.ts';

const TIMESPAN_S = 3600; // Const.MAX_TIMESPAN

const UNIT_S: Readonly<Record<Downsample['unit'], number>> = {
  ms: 0,
  s: 1,
  m: 60,
  h: 3600,
  d: 86_400,
  w: 604_800,
  n: 2_592_000,
  y: 31_536_000,
};

/** DownsamplingSpecification.getInterval(): DateTime.parseDuration of the interval, 0 for `all`. */
export function specIntervalMs(ds: Downsample): number {
  if (ds.all) return 0;
  if (ds.unit === 'ms') return ds.count;
  return ds.count * UNIT_S[ds.unit] * 1000;
}

export interface ScanRange {
  readonly startMs: number;
  readonly endMs: number;
}

/** [scanStart, scanEnd) in ms, as the TSD scans for this query (see the top of this file). */
export function scanRange(ds: Downsample | undefined, startMs: number, endMs: number): ScanRange {
  const interval = ds === undefined ? 0 : specIntervalMs(ds);
  let start = Math.floor(startMs / 1000);
  if (interval > 0) start -= Math.trunc(((1000 * start) % interval) / 1000);
  start -= start % TIMESPAN_S;
  if (start < 0) start = 0;

  const end = Math.floor(endMs / 1000) + 1;
  let scanEnd: number;
  if (interval > 0) {
    const aligned = end + Math.trunc((interval - ((1000 * end) % interval)) / 1000);
    const off = aligned % TIMESPAN_S;
    scanEnd = off === 0 ? aligned : aligned + (TIMESPAN_S - off);
  } else {
    scanEnd = end + (TIMESPAN_S - (end % TIMESPAN_S));
  }
  return { startMs: start * 1000, endMs: scanEnd * 1000 };
}
