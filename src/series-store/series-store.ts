// The series API's reads from HBase through a small port it owns: raw points and stored windows of
// many ids and metrics in few scans.
// Design notes: docs/DECISIONS.md#the-series-store
import { decodeTags, TAGS_QUALIFIER } from '../events/cells.ts';
import { column } from '../hbase/codec.ts';
import type { ScanFilter } from '../hbase/filters.ts';
import type { ScanOptions } from '../hbase/scanner.ts';
import type { Row } from '../hbase/types.ts';
import { sameEpochs, type Keyspace, type ScanRange, type SpreadEntry, type SpreadLookup, type TableRef } from '../keys/index.ts';
import { GENERATIONS_ROW, generationsOf } from '../rollup/generations.ts';
import { touchSlotRuns } from '../rollup/touch.ts';
import { decodeSummaryPackRun } from '../rollup/summary-pack.ts';
import { columnOf } from '../rollup/fold.ts';
import { packQualifier, windowCellsOf, windowSummary } from '../rollup/window-content.ts';
import { rollupWindowFamily, TOUCH_WINDOW_SEC } from '../keys/index.ts';
import { tagSetKey, type PointBudget, type RawAsk, type TaggedPoints } from '../series-data/points.ts';
import {
  markWindows,
  type MarkedWindow,
  type MarkSpan,
  type StoredWindow,
  type WindowsAsk,
  type WindowSpan,
  type WindowsRead,
} from '../series-data/windows.ts';
import { rangeShape } from '../reads-v1/scan-reads.ts';
import type { ScanShape } from '../scans/merged-scan.ts';
import { runLimited } from '../toolkit/pool.ts';
import { marksTrain } from './marks-train.ts';

/**
 * The spread registry as the series store reads it (SpreadRegistry fits): its snapshot as held now,
 * with no read (entryOf), and `lookupFor(toMs)`, a lookup that holds every epoch data before `toMs`
 * can be under (the snapshot, read again first when too old). Raw reads scan under the snapshot as
 * held while lookupFor runs, and read again the ids whose entry it changed.
 */
export interface SpreadSource extends SpreadLookup {
  lookupFor(toMs: number): Promise<SpreadLookup>;
}

/** A source that holds `lookup` and never reads anything else (tools and tests over fixed entries). */
export function fixedSpread(lookup: SpreadLookup): SpreadSource {
  return { entryOf: (id) => lookup.entryOf(id), spreadIds: () => lookup.spreadIds(), lookupFor: () => Promise.resolve(lookup) };
}

/** What the series store needs of HBase (the REST client's scan and get fit). */
export interface SeriesScanPort {
  scan(table: string, options: ScanOptions): AsyncIterable<Row>;
  get(table: string, row: Buffer): Promise<Row | null>;
}

export interface SeriesStoreOptions {
  readonly keyspace: Keyspace;
  readonly data: { readonly name: string; readonly family: string };
  readonly rollup: { readonly name: string; readonly family: string };
  /** the meta table: the window generations row (src/rollup/generations.ts) */
  readonly meta: TableRef;
  /** the spread registry (SpreadSource) */
  readonly spread: SpreadSource;
  /** per request round trip */
  readonly deadlineMs: number;
  /** the tag key the API shows the id under (catalog.idTagKey): not part of a tag set's identity */
  readonly idTagKey: string;
  /** the rollup table's family of point blocks, or null when blocks are off */
  readonly blockFamily: string | null;
}

const NO_IDS: ReadonlySet<string> = new Set();

export class SeriesStore {
  readonly #port: SeriesScanPort;
  readonly #o: SeriesStoreOptions;
  readonly #markerFamily: Buffer;
  /** marksOf's reads, shared by asks at nearly the same time */
  readonly #marksTrain = marksTrain(async (ids, marks, budget, concurrency) => (await this.marksAndTouchesOf(ids, { marks }, budget, concurrency)).marks);

  constructor(port: SeriesScanPort, options: SeriesStoreOptions) {
    this.#port = port;
    this.#o = options;
    this.#markerFamily = column(options.rollup.family);
  }

  /**
   * The points of each of `metrics` with from ≤ ts < to of every id, by metric, id and tag set:
   * one scan per chunk of ranges reads every metric asked (the sub-queries of one request share it),
   * `concurrency` scans at once.
   */
  async rawPointsOf(ask: RawAsk, budget: PointBudget, concurrency = 4): Promise<Map<string, Map<string, Map<string, TaggedPoints>>>> {
    const { ids, metrics, from, to } = ask;
    const out = new Map<string, Map<string, Map<string, TaggedPoints>>>(metrics.map((m) => [m, new Map()]));
    if (from >= to || ids.length === 0 || metrics.length === 0) return out;
    // The registry's snapshot as held, while the registry is read again when the range reaches past
    // what the snapshot covers (a range ending at the end of the hour: every tail read; that read was
    // a round trip set before the scans): the scans go out with the entries held, and the ids whose
    // entry the fresh lookup changed (an epoch promoted since the snapshot's read: rare) are read
    // again under it, so the answer is the one a read after the fresh lookup would give.
    const { spread } = this.#o;
    const fresh = spread.lookupFor(to);
    fresh.catch(() => undefined); // awaited below; not an unhandled rejection if a scan fails first
    const used = new Map(ids.map((id) => [id, spread.entryOf(id)]));
    await this.#readRaw(ask, (id) => used.get(id), out, { budget, concurrency });
    const after = await fresh;
    const moved = ids.filter((id) => !sameEpochs(used.get(id), after.entryOf(id)));
    if (moved.length > 0) {
      for (const byId of out.values()) for (const id of moved) byId.delete(id);
      await this.#readRaw({ ...ask, ids: moved }, (id) => after.entryOf(id), out, { budget, concurrency });
    }
    for (const byId of out.values()) for (const sets of byId.values()) for (const s of sets.values()) sortAscending(s);
    return out;
  }

  /** The asked points under the entries `entryOf` gives, appended to `out` (unsorted). */
  async #readRaw(
    ask: RawAsk,
    entryOf: (id: string) => SpreadEntry | undefined,
    out: Map<string, Map<string, Map<string, TaggedPoints>>>,
    run: { readonly budget: PointBudget; readonly concurrency: number },
  ): Promise<void> {
    const { ids, metrics, from, to } = ask;
    const { budget, concurrency } = run;
    const { keyspace, data } = this.#o;
    // each range tagged with its id: rows come in key order, so a row's id is its range's (no key decoded but its ts)
    const ranges: (ScanRange & { readonly id: string })[] = [];
    for (const id of ids) {
      const start = Math.max(0, from, ask.fromOf?.get(id) ?? from);
      if (start >= to) continue;
      for (const b of keyspace.dataRanges(id, start, to - 1, entryOf(id))) ranges.push({ ...b.range, id });
    }
    if (ranges.length === 0) return;
    const wanted = metrics.map((m) => ({ qualifier: Buffer.from(m, 'utf8'), byId: out.get(m) as Map<string, Map<string, TaggedPoints>> }));
    const shape = metricsShape(metrics, data.family);
    let lastTagBytes: Buffer | null = null;
    let lastJson = '[]';
    await runLimited(scanChunks(ranges, scansFor(ids.length, concurrency)), concurrency, async (scan) => {
      let k = 0;
      for await (const row of this.#scanMany(data.name, scan, shape)) {
        while (k < scan.length - 1 && Buffer.compare(row.row, (scan[k] as ScanRange).stopRow) >= 0) k++;
        const id = (scan[k] as { id: string }).id;
        let ts = Number.NaN;
        let json = '[]';
        let n = 0;
        // the tags cell (qualifier 0x00 "tags") sorts before every metric's
        for (const cell of row.cells) {
          const q = cell.qualifier;
          if (q[0] === 0x00) {
            if (!q.equals(TAGS_QUALIFIER)) continue;
            const bytes = cell.value;
            if (lastTagBytes === null || !lastTagBytes.equals(bytes)) {
              lastTagBytes = Buffer.from(bytes);
              lastJson = tagSetKey(decodeTags(bytes), this.#o.idTagKey);
            }
            json = lastJson;
            continue;
          }
          const w =
            wanted.length === 1
              ? q.equals((wanted[0] as { qualifier: Buffer }).qualifier)
                ? wanted[0]
                : undefined
              : wanted.find((x) => x.qualifier.equals(q));
          if (w === undefined) continue;
          if (Number.isNaN(ts)) ts = keyspace.dataKeyTs(row.row);
          let sets = w.byId.get(id);
          if (sets === undefined) w.byId.set(id, (sets = new Map<string, TaggedPoints>()));
          let series = sets.get(json);
          if (series === undefined) sets.set(json, (series = { tagsJson: json, ts: [], values: [] }));
          series.ts.push(ts);
          series.values.push(cell.value.readDoubleBE(0));
          n++;
        }
        budget.take(n); // also: stops the scan once the query's deadline has passed
      }
    });
  }

  /**
   * The stored windows of `ids` for each of `metrics` (per span: one size's windows starting in
   * [from, to) — their summaries, and the point blocks or summary packs asked for) and, in the same
   * scans, the pending markers of the given sizes over [marks.from, marks.to) for those ids: the
   * markers sit at the front of each bucket of the same table, so they cost ranges, not a scan.
   */
  async windowsOf(ask: WindowsAsk, budget: PointBudget, concurrency = 4): Promise<WindowsRead> {
    const { ids, metrics, spans, marks } = ask;
    const windows = new Map<string, Map<string, StoredWindow[]>>(metrics.map((m) => [m, new Map()]));
    const marked = new Map<string, MarkedWindow[]>();
    const live = spans.filter((sp) => sp.from < sp.to);
    if (ids.length === 0 || metrics.length === 0 || (live.length === 0 && marks.from >= marks.to)) return { windows, marks: marked, cachedIds: NO_IDS };
    const finerOf = new Map(live.filter((sp) => sp.with === 'pack').map((sp) => [sp.sizeMs, sp.finerMs]));
    const { keyspace, rollup } = this.#o;
    const ranges: ScanRange[] = this.#markerRanges(ids, marks);
    for (const sp of live) for (const id of ids) ranges.push(keyspace.rollupRange(id, sp.sizeMs / 1000, Math.max(0, sp.from), sp.to - 1));
    const columns = windowColumns(rollup.family, this.#o.blockFamily, metrics, live);
    const blockSizes = new Set(live.filter((sp) => sp.with === 'block').map((sp) => sp.sizeMs));
    const wantedIds = new Set(ids);
    const wantedMetrics = new Set(metrics);
    await runLimited(bucketChunks(ranges, scansFor(ids.length, concurrency)), concurrency, async (scan) => {
      for await (const row of this.#scanMany(rollup.name, scan, { columns })) {
        budget.take(0); // a block's points count where it is decoded (read-points.ts); this stops the scan past the deadline
        if (row.row[1] === 0x00) {
          this.#noteMarks(row, wantedIds, marked);
          continue;
        }
        const key = keyspace.decodeRollupKey(row.row);
        const sizeMs = key.windowSec * 1000;
        for (const [metric, cells] of windowCellsOf(row.cells, this.#o.blockFamily)) {
          if (!wantedMetrics.has(metric)) continue;
          const byId = windows.get(metric) as Map<string, StoredWindow[]>;
          let list = byId.get(key.id);
          if (list === undefined) byId.set(key.id, (list = []));
          // a block read only to stand for its summary (windowCellsOf) is not kept: the spans of this size did not ask for its points
          const sum = windowSummary(cells, metric, key.windowStart, sizeMs).summary;
          const finerMs = finerOf.get(sizeMs);
          if (cells.pack !== undefined && finerMs === undefined) throw new Error(`a pack of ${sizeMs} ms windows was read without its finer size`);
          list.push({
            startMs: key.windowStart,
            sizeMs,
            summary: { startMs: key.windowStart, count: sum.count, sum: sum.sum, min: sum.min, max: sum.max, first: sum.first, last: sum.last },
            block: blockSizes.has(sizeMs) ? cells.block?.value : undefined,
            pack: cells.pack === undefined ? undefined : decodeSummaryPackRun(cells.pack.value, key.windowStart, finerMs as number),
          });
        }
      }
    });
    return { windows, marks: marked, cachedIds: NO_IDS };
  }

  /**
   * The pending markers alone of `ids` (the sizes, windows starting in [from, to)): the window cache's
   * read for ids it answers, and the answer memo's probe. Asks at nearly the same time share one read
   * (marks-train.ts).
   */
  marksOf(ids: readonly string[], marks: MarkSpan, budget: PointBudget, concurrency = 4): Promise<Map<string, MarkedWindow[]>> {
    return this.#marksTrain(ids, marks, budget, concurrency);
  }

  /**
   * The pending markers of `ids` (as marksOf) and, in scans beside them, each id's newest touch
   * (src/ingest/touches.ts) stamped at or after `touches.since`, in the slots of the slices from since's
   * to until's. The scans share one time range: from the earlier of the two stamps asked.
   */
  async marksAndTouchesOf(
    ids: readonly string[],
    span: { readonly marks: MarkSpan; readonly touches?: { readonly since: number; readonly until: number } | undefined },
    budget: PointBudget,
    concurrency = 4,
  ): Promise<{ marks: Map<string, MarkedWindow[]>; touches: Map<string, number> }> {
    const { marks, touches } = span;
    const marked = new Map<string, MarkedWindow[]>();
    const touched = new Map<string, number>();
    const markerRanges = this.#markerRanges(ids, marks);
    const touchRanges = touches === undefined ? [] : this.#touchRanges(ids, touches.since, touches.until);
    if (markerRanges.length + touchRanges.length === 0) return { marks: marked, touches: touched };
    const wantedIds = new Set(ids);
    const columns = [column(this.#o.rollup.family)];
    const since = Math.min(marks.stampedSince ?? Number.NEGATIVE_INFINITY, touches?.since ?? Number.POSITIVE_INFINITY);
    const shape = since === Number.NEGATIVE_INFINITY ? { columns } : { columns, timeRange: { from: Math.max(0, since), to: MAX_STAMP } };
    // touch rows in scans of their own: a scan with a time range walks every row between two of its
    // ranges (HBase checks a cell's time before the filter's seek hint), and the ring's other rows lie
    // between a bucket's touch rows and its marker rows
    const chunks = [...bucketChunks(markerRanges, Math.min(concurrency, Math.ceil(markerRanges.length / 8))), ...touchRanges.map((r) => [r])];
    await runLimited(chunks, concurrency, async (scan) => {
      for await (const row of this.#scanMany(this.#o.rollup.name, scan, shape)) {
        budget.take(0);
        if (row.row[1] !== 0x00) continue;
        if (row.row.readUInt32BE(2) === TOUCH_WINDOW_SEC) this.#noteTouches(row, wantedIds, touched);
        else this.#noteMarks(row, wantedIds, marked);
      }
    });
    return { marks: marked, touches: touched };
  }

  /** The touch rows of the ids' buckets, the slots of the slices from since's to until's (each bucket's sorted before its marker ranges by key). */
  #touchRanges(ids: readonly string[], since: number, until: number): ScanRange[] {
    const { keyspace } = this.#o;
    const buckets = [...new Set(ids.map((id) => keyspace.baseSalt(id)))];
    const runs = touchSlotRuns(since, until);
    return buckets.flatMap((b) => runs.map(([first, last]) => keyspace.touchRange(b, first, last)));
  }

  #noteTouches(row: Row, wanted: ReadonlySet<string>, out: Map<string, number>): void {
    for (const cell of row.cells) {
      if (cell.qualifier.length === 0 || !cell.family.equals(this.#markerFamily)) continue;
      const id = cell.qualifier.toString('utf8');
      if (!wanted.has(id)) continue;
      out.set(id, Math.max(out.get(id) ?? Number.NEGATIVE_INFINITY, cell.timestamp));
    }
  }

  /** The window generations by bucket (src/rollup/generations.ts): read before the scans whose windows a cache keeps. */
  async generations(): Promise<Map<number, string>> {
    return generationsOf(await this.#port.get(this.#o.meta.name, GENERATIONS_ROW));
  }

  /** The marker ranges of the ids' buckets for the sizes, windows starting in [from, to) (closed by `closedBy` when given). */
  #markerRanges(ids: readonly string[], span: MarkSpan): ScanRange[] {
    const windows = markWindows(span);
    if (windows.size === 0) return [];
    const { keyspace } = this.#o;
    const buckets = [...new Set(ids.map((id) => keyspace.baseSalt(id)))];
    const out: ScanRange[] = [];
    for (const [sizeMs, [start, stop]] of windows) {
      for (const bucket of buckets) out.push(keyspace.markerWindowRange(bucket, sizeMs / 1000, start, stop));
    }
    return out;
  }

  /** The marks of a marker row (or a per-id marker of an earlier version) for the wanted ids, into `out`, each with its cell's stamp. */
  #noteMarks(row: Row, wanted: ReadonlySet<string>, out: Map<string, MarkedWindow[]>): void {
    const { keyspace } = this.#o;
    const key = keyspace.decodeMarkerKey(row.row);
    const sizeMs = key.windowSec * 1000;
    const note = (id: string, stamp: number): void => {
      if (!wanted.has(id)) return;
      let list = out.get(id);
      if (list === undefined) out.set(id, (list = []));
      list.push({ startMs: key.windowStart, sizeMs, stamp });
    };
    if (key.id !== null) {
      note(key.id, Math.max(...row.cells.map((c) => c.timestamp)));
      return;
    }
    // an id cell's qualifier is the id's UTF-8: only the wanted ids count, so no check of its bucket
    // (the job's reads check it; here a stray cell could only make a wanted id's window read raw)
    for (const cell of row.cells) {
      if (cell.qualifier[0] === 0x00 || cell.qualifier.length === 0 || !cell.family.equals(this.#markerFamily)) continue;
      note(cell.qualifier.toString('utf8'), cell.timestamp);
    }
  }

  #scan(table: string, range: ScanRange, shape: ScanShape): AsyncIterable<Row> {
    return this.#port.scan(table, { ...range, ...shape, pageRows: PAGE_ROWS, deadlineMs: this.#o.deadlineMs, detachClose: true });
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

/** Past every stamp a marker cell can carry (a scan time range's end). */
const MAX_STAMP = 8_640_000_000_000_000;

/** Rows per page of a scan: a site's day is ~150,000 rows, so fewer, larger pages (< 1 MB each) save round trips. */
const PAGE_ROWS = 5000;

/** Ranges per scanner at most: bounds the scanner spec the gateway parses. */
const RANGES_PER_SCAN = 256;

/** Ids a scan takes before a read is split into scans that run side by side. */
const IDS_PER_PARALLEL_SCAN = 4;

/** How many scans a read of `ids` ids runs as: one for a few ids (fewest round trips), up to `concurrency` side by side for many. */
export function scansFor(ids: number, concurrency: number): number {
  return Math.max(1, Math.min(concurrency, Math.ceil(ids / IDS_PER_PARALLEL_SCAN)));
}

/**
 * The ranges sorted by key and cut into `parts` contiguous chunks of near-equal size (more when a
 * chunk would pass RANGES_PER_SCAN): one scan each, across salt buckets (the filter seeks from one
 * bucket to the next), so a query over a few ids pays one scanner's round trips, not one set per
 * bucket, and a query over many still reads in parallel.
 */
export function scanChunks<R extends ScanRange>(ranges: readonly R[], parts: number): R[][] {
  const sorted = [...ranges].sort((a, b) => Buffer.compare(a.startRow, b.startRow));
  const n = Math.min(sorted.length, Math.max(parts, Math.ceil(sorted.length / RANGES_PER_SCAN)));
  const out: R[][] = [];
  for (let i = 0; i < n; i++) out.push(sorted.slice(Math.floor((i * sorted.length) / n), Math.floor(((i + 1) * sorted.length) / n)));
  return out;
}

/**
 * scanChunks' chunks, each cut where its ranges change salt bucket (a key's first byte): the scans of
 * the rollup table, whose regions are its buckets. There a scan that crosses into the next region pays
 * far more than in the data table: measured in the live bench, 9 ms a region against 1 (the marker
 * family's churn), so a few ids' markers read across 16 buckets took 150–450 ms as one scan and
 * 30–40 ms as one scan per bucket side by side (docs/DECISIONS.md#rollup-scans-by-bucket).
 */
export function bucketChunks<R extends ScanRange>(ranges: readonly R[], parts: number): R[][] {
  const out: R[][] = [];
  for (const chunk of scanChunks(ranges, parts)) {
    let start = 0;
    for (let i = 1; i <= chunk.length; i++) {
      if (i < chunk.length && chunk[i]?.startRow[0] === chunk[start]?.startRow[0]) continue;
      out.push(chunk.slice(start, i));
      start = i;
    }
  }
  return out;
}

/**
 * The columns of a window read: the marker family whole (markers, and the summaries written before the
 * per-size families), and per span size its family's summary cells of the metrics with the packs
 * asked for, and the points family's blocks when asked for. (A family asked whole is not also asked
 * by column: HBase's scan would narrow it to those columns.)
 */
function windowColumns(markerFamily: string, blockFamily: string | null, metrics: readonly string[], spans: readonly WindowSpan[]): Buffer[] {
  const out = new Map<string, Buffer>([[markerFamily, column(markerFamily)]]);
  const add = (family: string, q: Buffer): void => {
    out.set(`${family}:${q.toString('latin1')}`, columnOf(family, q));
  };
  for (const sp of spans) {
    const family = rollupWindowFamily(sp.sizeMs / 1000);
    for (const m of metrics) {
      const q = Buffer.from(m, 'utf8');
      add(family, q);
      if (sp.with === 'pack') add(family, packQualifier(q));
      // a summary's own block, asked for its points or to stand for a summary written without a cell (window-content.ts)
      if (blockFamily !== null) add(blockFamily, q);
    }
  }
  return [...out.values()];
}

/** The data table's cells of `metrics` and the tags, of rows holding at least one of them (the region server drops the rest). */
function metricsShape(metrics: readonly string[], family: string): ScanShape {
  if (metrics.length === 1) return rangeShape(metrics[0] as string, family);
  const filters: ScanFilter[] = metrics.map((m) => rangeShape(m, family).filter as ScanFilter);
  return { columns: [column(family)], filter: { type: 'FilterList', op: 'MUST_PASS_ONE', filters } };
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
