// Pure: the bounds a query is held to before anything is read or computed (docs/SERIES-API.md,
// *Limits*). series.maxPoints bounds the points a query reads (the read budget, execute.ts) AND the
// points its downsamplers would emit: a fill policy other than `none` emits one point per interval
// per series whether or not there is data (`1s-avg-zero` over 100 years: 3.15 billion points for one
// series, which ran the heap out), so that count, an upper bound from the parsed query and the series
// the catalog matched, is refused with a 400 naming the key before the first read. Without a fill
// (or without a downsample) a series emits at most the points it has, which the read budget bounds.
// series.maxSubQueries bounds the sub-queries of one request.
import { badQuery, type TsdbQueryError } from '../series-language/errors.ts';
import { scanRange, specIntervalMs } from '../series-compute/range.ts';
import type { Downsample, SubQuery, TsdbQuery } from '../series-language/types.ts';

/** The default of series.maxSubQueries. */
export const DEFAULT_MAX_SUB_QUERIES = 32;

/** A limit's 400, in OpenTSDB's words for its own query limits, naming our key. */
export function limitError(what: string, n: number, max: number, key: string): TsdbQueryError {
  return badQuery(
    key,
    `Sorry, this query ${what} ${n}, more than the limit of ${max} (${key}). Please try filtering using more tags or decrease your time range.`,
  );
}

export function checkSubQueries(q: Pick<TsdbQuery, 'queries'>, max: number): void {
  if (q.queries.length > max) throw limitError('has sub-queries:', q.queries.length, max, 'series.maxSubQueries');
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * The shortest a bucket of this interval can be: its fixed length, or for calendar buckets the
 * shortest month (28 d), year (365 d), week and day less a DST hour, a shorter unit at least half its
 * length (a zone's offset change moves a boundary by up to an hour).
 */
function shortestBucketMs(ds: Downsample): number {
  const fixed = specIntervalMs(ds);
  if (!ds.calendar) return fixed;
  switch (ds.unit) {
    case 'n':
      return ds.count * 28 * DAY - HOUR;
    case 'y':
      return ds.count * 365 * DAY - HOUR;
    case 'w':
    case 'd':
      return fixed - HOUR;
    default:
      return Math.max(fixed / 2, fixed - HOUR);
  }
}

/**
 * At most how many points one series' downsampler emits for this sub-query (0: no more than the
 * series has, which the read budget bounds): the filling downsampler's buckets over the scan range.
 */
export function emittedPerSeries(sub: SubQuery, range: { readonly startMs: number; readonly endMs: number }): number {
  const ds = sub.downsample;
  if (ds === undefined || ds.fill === 'none') return 0;
  if (ds.all) return 1;
  const scan = scanRange(ds, range.startMs, range.endMs);
  return Math.floor((scan.endMs - scan.startMs) / Math.max(1, shortestBucketMs(ds))) + 2;
}

/** Refuses a query whose downsamplers would emit more than `maxPoints` over the series matched (`series[i]`: sub-query i's count). */
export function checkEmitted(q: TsdbQuery, series: readonly number[], maxPoints: number): void {
  let total = 0;
  q.queries.forEach((sub, i) => {
    total += emittedPerSeries(sub, q) * (series[i] ?? 0);
  });
  if (total > maxPoints) throw limitError('would produce points:', total, maxPoints, 'series.maxPoints');
}
