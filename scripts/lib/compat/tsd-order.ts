// Pure: the order in which OpenTSDB 2.4.1 hands the series (spans) of a query to its
// AggregationIterator, which first, last and diff across series depend on. From the v2.4.1 source:
// - TsdbQuery.findSpans collects the spans in a TreeMap ordered by SpanCmp(SALT_WIDTH + metric
//   width): the salt and metric bytes, then, past the timestamp, the tag bytes, unsigned. So: salt
//   bucket, then the series' tsuid (metric UID, then [tagk UID, tagv UID] pairs in tagk UID order).
// - GroupByAndAggregateCB adds the spans to each SpanGroup in that map's order; SpanGroup keeps them
//   in a list, and AggregationIterator.create walks it in that order.
// - RowKey.prefixKeyWithSalt: bucket = |Arrays.hashCode(metric UID ‖ tag pairs) % buckets|, the
//   Java hash of the tsuid's bytes (signed).
// UIDs are the TSD's, assigned in the order it first saw each name: this order is known only with
// the TSD's tsuids (a `showTSUIDs` answer), as the compat tests have them (suite `tsuids-none`).
import type { SeriesOrder } from '../../../src/series-compute/index.ts';

/** The compat TSD's salting (tsd-session.ts; tsd.storage.salt.width 1). */
export const COMPAT_SALT_BUCKETS = 4;

/** java.util.Arrays.hashCode(byte[]): 31·h + b over the signed bytes, from 1, in 32-bit ints. */
export function javaArraysHashCode(bytes: Uint8Array): number {
  let h = 1;
  for (const b of bytes) h = (Math.imul(31, h) + ((b << 24) >> 24)) | 0;
  return h;
}

/** RowKey.prefixKeyWithSalt's bucket of the series with this tsuid (hex); 0 when unsalted (buckets ≤ 0). */
export function saltBucket(tsuid: string, buckets: number): number {
  if (buckets <= 0) return 0;
  return Math.abs(javaArraysHashCode(Buffer.from(tsuid, 'hex')) % buckets);
}

/** SpanCmp over two series' salted row keys: salt bucket, then the tsuid bytes (unsigned), shorter first. */
export function compareScanOrder(a: string, b: string, buckets: number): number {
  return saltBucket(a, buckets) - saltBucket(b, buckets) || Buffer.compare(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
}

/** The key of a series in a tsuid map: metric and tags (keys sorted). */
export function seriesTsuidKey(metric: string, tags: Readonly<Record<string, string>>): string {
  return JSON.stringify([
    metric,
    ...Object.keys(tags)
      .sort()
      .flatMap((k) => [k, tags[k]]),
  ]);
}

/** Each series' tsuid from an answer to `none` sub-queries with showTSUIDs: one series, one tsuid each. */
export function tsuidsOfAnswer(body: unknown): Map<string, string> {
  if (!Array.isArray(body)) throw new Error('tsuids: the answer is not an array of series');
  const out = new Map<string, string>();
  for (const s of body as { metric?: unknown; tags?: unknown; tsuids?: unknown }[]) {
    const { metric, tags, tsuids } = s;
    if (typeof metric !== 'string' || typeof tags !== 'object' || tags === null || !Array.isArray(tsuids) || tsuids.length !== 1)
      throw new Error(`tsuids: not a series with one tsuid: ${JSON.stringify(s).slice(0, 200)}`);
    out.set(seriesTsuidKey(metric, tags as Record<string, string>), String(tsuids[0]));
  }
  return out;
}

/** The TSD's order of `metric`'s series (compute's `seriesOrder`); throws on a series whose tsuid is not known. */
export function tsdSeriesOrder(tsuids: ReadonlyMap<string, string>, metric: string, buckets: number): SeriesOrder {
  const of = (tags: Readonly<Record<string, string>>): string => {
    const t = tsuids.get(seriesTsuidKey(metric, tags));
    if (t === undefined) throw new Error(`tsuids: no tsuid for ${metric} ${JSON.stringify(tags)}`);
    return t;
  };
  return (a, b) => compareScanOrder(of(a.tags), of(b.tags), buckets);
}
