// Pure: the time bounds OpenTSDB 2.4.1 computes around a query (the scan range), and the
// serializer's final range rule.
// Design notes: docs/DECISIONS.md#scan-range-and-query-range

import type { Downsample } from '../series-language/types.ts';

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
