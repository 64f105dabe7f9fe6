// The series API's reads from HBase, through a small port it owns:
//   - raw points of many ids and one metric in [from, to): the ranges of every id (one per bucket its
//     epochs use) grouped by salt bucket, one scan per bucket (per chunk of ranges) with a
//     MultiRowRangeFilter that makes the region server seek from one id's range to the next, and
//     the metric's cell filtered there too; points split by id and by the event's tag set (a series
//     is metric + id + tags), ascending. (One scanner per id cost a REST round trip set per id: the
//     gateway's CPU, not the points, was most of a site's read.)
//   - window summaries of many ids and one metric for one rollup size, likewise per bucket;
//   - the windows with a pending rollup marker, for the ids of a query (one scan per bucket and size).
import { decodeTags, TAGS_QUALIFIER } from '../events/cells.ts';
import { column } from '../hbase/codec.ts';
import type { ScanFilter } from '../hbase/filters.ts';
import type { ScanOptions } from '../hbase/scanner.ts';
import type { Row } from '../hbase/types.ts';
import type { Keyspace, ScanRange, SpreadEntry } from '../keys/index.ts';
import { VERSION_QUALIFIER } from '../rollup/marker.ts';
import { decodeSummary } from '../rollup/summary.ts';
import type { WindowSummary } from './compute/rollup-exact.ts';
import { rangeShape } from '../query/scan-reads.ts';
import type { ScanShape } from '../walk/merged-scan.ts';
import { runLimited } from '../walk/pool.ts';

/** What the series store needs of HBase (the REST client's scan fits). */
export interface SeriesScanPort {
  scan(table: string, options: ScanOptions): AsyncIterable<Row>;
}

export interface SeriesStoreOptions {
  readonly keyspace: Keyspace;
  readonly data: { readonly name: string; readonly family: string };
  readonly rollup: { readonly name: string; readonly family: string };
  /** the id's spread entry as the registry holds it now */
  readonly entryFor: (id: string) => Promise<SpreadEntry | undefined>;
  /** per request round trip */
  readonly deadlineMs: number;
  /** the tag key the API shows the id under (catalog.idTagKey): not part of a tag set's identity */
  readonly idTagKey: string;
}

/** The points of one id and metric under one tag set, ascending by ts. */
export interface TaggedPoints {
  /** the tag set's identity (tagSetKey) */
  readonly tagsJson: string;
  readonly ts: number[];
  readonly values: number[];
}

/** A tag set's identity: its pairs sorted by key, without the key the API shows the id under. */
export function tagSetKey(tags: Readonly<Record<string, string>>, idTagKey: string): string {
  return JSON.stringify(Object.keys(tags).filter((k) => k !== idTagKey).sort().map((k) => [k, tags[k]]));
}

/** Counts points read, and refuses to go past the query's budget. */
export interface PointBudget {
  take(n: number): void;
}

export class SeriesStore {
  readonly #port: SeriesScanPort;
  readonly #o: SeriesStoreOptions;
  readonly #summaryFamily: Buffer;

  constructor(port: SeriesScanPort, options: SeriesStoreOptions) {
    this.#port = port;
    this.#o = options;
    this.#summaryFamily = column(options.rollup.family);
  }

  /** The points of `metric` with from ≤ ts < to of every id, by id and tag set; `concurrency` bucket scans at once. */
  async rawPointsOf(ids: readonly string[], metric: string, from: number, to: number, budget: PointBudget, concurrency = 4): Promise<Map<string, Map<string, TaggedPoints>>> {
    const out = new Map<string, Map<string, TaggedPoints>>();
    if (from >= to || ids.length === 0) return out;
    const { keyspace, data } = this.#o;
    const ranges: { bucket: number; range: ScanRange }[] = [];
    for (const id of ids) {
      const entry = await this.#o.entryFor(id);
      for (const b of keyspace.dataRanges(id, Math.max(0, from), to - 1, entry)) ranges.push({ bucket: b.bucket, range: b.range });
    }
    const metricQualifier = Buffer.from(metric, 'utf8');
    const shape = rangeShape(metric, data.family);
    let lastTagBytes: Buffer | null = null;
    let lastJson = '[]';
    await runLimited(bucketScans(ranges), concurrency, async (scan) => {
      for await (const row of this.#scanMany(data.name, scan, shape)) {
        let value: number | undefined;
        let json = '[]';
        for (const cell of row.cells) {
          if (cell.qualifier.equals(metricQualifier)) value = cell.value.readDoubleBE(0);
          else if (cell.qualifier.equals(TAGS_QUALIFIER)) {
            const bytes = cell.value;
            if (lastTagBytes === null || !lastTagBytes.equals(bytes)) {
              lastTagBytes = Buffer.from(bytes);
              lastJson = tagSetKey(decodeTags(bytes), this.#o.idTagKey);
            }
            json = lastJson;
          }
        }
        if (value === undefined) continue;
        budget.take(1);
        const { id, ts } = keyspace.decodeDataKey(row.row);
        let sets = out.get(id);
        if (sets === undefined) out.set(id, (sets = new Map<string, TaggedPoints>()));
        let series = sets.get(json);
        if (series === undefined) sets.set(json, (series = { tagsJson: json, ts: [], values: [] }));
        series.ts.push(ts);
        series.values.push(value);
      }
    });
    for (const sets of out.values()) for (const s of sets.values()) sortAscending(s);
    return out;
  }

  /** Every id's summaries of `metric` for windows of `windowMs` starting in [from, to), ascending, by id. */
  async summariesOf(ids: readonly string[], metric: string, windowMs: number, from: number, to: number, concurrency = 4): Promise<Map<string, WindowSummary[]>> {
    const out = new Map<string, WindowSummary[]>();
    if (from >= to || ids.length === 0) return out;
    const { keyspace, rollup } = this.#o;
    const ranges = ids.map((id) => ({ bucket: keyspace.baseSalt(id), range: keyspace.rollupRange(id, windowMs / 1000, Math.max(0, from), to - 1) }));
    const qualifier = Buffer.from(metric, 'utf8');
    await runLimited(bucketScans(ranges), concurrency, async (scan) => {
      for await (const row of this.#scanMany(rollup.name, scan, { columns: [column(rollup.family, qualifier)] })) {
        const cell = row.cells.find((c) => c.qualifier.equals(qualifier));
        if (cell === undefined) continue;
        const s = decodeSummary(cell.value, metric);
        const key = keyspace.decodeRollupKey(row.row);
        let list = out.get(key.id);
        if (list === undefined) out.set(key.id, (list = []));
        list.push({ startMs: key.windowStart, count: s.count, sum: s.sum, min: s.min, max: s.max, first: s.first, last: s.last });
      }
    });
    for (const list of out.values()) list.sort((a, b) => a.startMs - b.startMs); // newest window first in the table
    return out;
  }

  /**
   * Windows of the given sizes starting in [from, to) with a pending marker for one of `ids`: per
   * id, the marked windows (start and size). Marker rows (one per bucket, size and window, an id per
   * cell) and the per-id markers earlier versions wrote are both read.
   */
  async markedWindows(ids: readonly string[], sizesMs: readonly number[], from: number, to: number): Promise<Map<string, { startMs: number; sizeMs: number }[]>> {
    const out = new Map<string, { startMs: number; sizeMs: number }[]>();
    if (ids.length === 0 || from >= to) return out;
    const { keyspace, rollup } = this.#o;
    const wanted = new Set(ids);
    const buckets = [...new Set(ids.map((id) => keyspace.baseSalt(id)))];
    const note = (id: string, startMs: number, sizeMs: number): void => {
      if (!wanted.has(id)) return;
      let list = out.get(id);
      if (list === undefined) out.set(id, (list = []));
      list.push({ startMs, sizeMs });
    };
    for (const bucket of buckets) {
      for (const sizeMs of sizesMs) {
        const range = keyspace.markerWindowRange(bucket, sizeMs / 1000, Math.max(0, from - (from % sizeMs)), to);
        for await (const row of this.#scan(rollup.name, range, { columns: [this.#summaryFamily] })) {
          const key = keyspace.decodeMarkerKey(row.row);
          if (key.id !== null) {
            note(key.id, key.windowStart, sizeMs);
            continue;
          }
          for (const cell of row.cells) {
            if (cell.qualifier[0] === 0x00 || cell.qualifier.equals(VERSION_QUALIFIER)) continue;
            note(keyspace.markedId(cell.qualifier, bucket), key.windowStart, sizeMs);
          }
        }
      }
    }
    return out;
  }

  #scan(table: string, range: ScanRange, shape: ScanShape): AsyncIterable<Row> {
    return this.#port.scan(table, { ...range, ...shape, pageRows: 1000, deadlineMs: this.#o.deadlineMs });
  }

  /** One scan over sorted, disjoint ranges of one bucket: a MultiRowRangeFilter (with the shape's filter) seeks between them. */
  async *#scanMany(table: string, ranges: readonly ScanRange[], shape: ScanShape): AsyncGenerator<Row, void, undefined> {
    const first = ranges[0] as ScanRange;
    const last = ranges.at(-1) as ScanRange;
    if (ranges.length === 1 || typeof shape.filter === 'string') {
      for (const r of ranges) yield* this.#scan(table, r, shape);
      return;
    }
    const multi: ScanFilter = { type: 'MultiRowRangeFilter', ranges: ranges.map((r) => ({ startRow: r.startRow, stopRow: r.stopRow })) };
    const filter: ScanFilter = shape.filter === undefined ? multi : { type: 'FilterList', op: 'MUST_PASS_ALL', filters: [multi, shape.filter] };
    yield* this.#scan(table, { startRow: first.startRow, stopRow: last.stopRow }, { ...shape, filter });
  }
}

/** Ranges per scanner at most: bounds the scanner spec the gateway parses. */
const RANGES_PER_SCAN = 256;

/** The ranges grouped by bucket, sorted, in chunks: one scan each. */
export function bucketScans(ranges: readonly { readonly bucket: number; readonly range: ScanRange }[]): ScanRange[][] {
  const byBucket = new Map<number, ScanRange[]>();
  for (const r of ranges) {
    let list = byBucket.get(r.bucket);
    if (list === undefined) byBucket.set(r.bucket, (list = []));
    list.push(r.range);
  }
  const out: ScanRange[][] = [];
  for (const list of byBucket.values()) {
    list.sort((a, b) => Buffer.compare(a.startRow, b.startRow));
    for (let i = 0; i < list.length; i += RANGES_PER_SCAN) out.push(list.slice(i, i + RANGES_PER_SCAN));
  }
  return out;
}

/** Rows come newest first per bucket (one bucket: reversed); a spread id's buckets interleave (sorted). */
function sortAscending(s: TaggedPoints): void {
  const n = s.ts.length;
  let descending = true;
  for (let i = 1; i < n && descending; i++) if ((s.ts[i] as number) >= (s.ts[i - 1] as number)) descending = false;
  if (descending) {
    s.ts.reverse();
    s.values.reverse();
    return;
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => (s.ts[a] as number) - (s.ts[b] as number));
  const ts = order.map((i) => s.ts[i] as number);
  const values = order.map((i) => s.values[i] as number);
  for (let i = 0; i < n; i++) {
    s.ts[i] = ts[i] as number;
    s.values[i] = values[i] as number;
  }
}
