// A sub-query's raw points: from point blocks where the rollup job wrote them, from the data table
// for the rest (tiles.ts says which).
// Design notes: docs/DECISIONS.md#raw-points
import { BucketFolder } from '../series-compute/rollup-exact.ts';
import type { AggregatorName, SeriesInput } from '../series-language/types.ts';
import { keptSince } from './plan.ts';
import { decodePointsBlock, pointsInBlock } from '../rollup/points-block.ts';
import type { MetricReads } from './coalesce-reads.ts';
import type { RollupTier } from './plan.ts';
import { lowerBound, tagSetKey, type PointBudget, type TaggedPoints } from '../series-data/points.ts';
import { RUN_STRIDE, summaryAt } from '../rollup/summary-pack.ts';
import { addCounts, type CatalogSeries, type Found, type IdSeries, type ReadCounts } from './sub-query-reads.ts';
import { blockSpans, markedWithin, tileRange, uncovered, type Tile } from './tiles.ts';
import type { MarkedWindow, MarkSpan, StoredWindow, WindowSpan } from '../series-data/windows.ts';

type Range = { readonly fromMs: number; readonly toMs: number };

/** One sub-query's reading: its metric, the reads it asks, the query's point budget (block points count too). */
export interface MetricRead {
  readonly metric: string;
  readonly reads: MetricReads;
  readonly budget: PointBudget;
}

export interface RawRead extends MetricRead {
  readonly scan: { readonly startMs: number; readonly endMs: number };
  readonly ids: IdSeries;
}

/** Every point of each series in [scan.startMs, scan.endMs) from the data table. */
export async function readRaw(o: RawRead): Promise<Found> {
  const { metric, scan, ids, reads } = o;
  const found = await reads.rawPointsOf([...ids.keys()], metric, scan.startMs, scan.endMs);
  const inputs: [CatalogSeries, SeriesInput][] = [];
  let points = 0;
  for (const [id, sets] of ids) {
    for (const p of found.get(id)?.values() ?? []) points += p.ts.length;
    for (const [key, s] of sets) {
      const p = found.get(id)?.get(key);
      if (p !== undefined && p.ts.length > 0) inputs.push([s, { kind: 'raw', tags: s.tags, ts: p.ts, values: p.values }]);
    }
  }
  return { inputs, counts: { points, rawRanges: ids.size } };
}

/** Windows by size, then start (no key string made per window: a fold over a day of hours for every id of a site makes hundreds of thousands). */
class WindowsBySize {
  readonly #bySize = new Map<number, Map<number, StoredWindow>>();

  get(sizeMs: number, startMs: number): StoredWindow | undefined {
    return this.#bySize.get(sizeMs)?.get(startMs);
  }

  set(w: StoredWindow): void {
    let starts = this.#bySize.get(w.sizeMs);
    if (starts === undefined) this.#bySize.set(w.sizeMs, (starts = new Map<number, StoredWindow>()));
    starts.set(w.startMs, w);
  }
}

/** What is known of one id's windows and raw ranges as the rounds go. */
class IdTiles {
  readonly series: CatalogSeries;
  readonly key: string;
  marks: readonly MarkedWindow[] = [];
  /** block spans asked for (by size): a window in one was read, found or not */
  readonly asked: { sizeMs: number; from: number; to: number }[] = [];
  /** windows found */
  readonly found = new WindowsBySize();
  /** data-table ranges read, sorted */
  rawHave: Range[] = [];
  readonly rawPoints: TaggedPoints[] = [];
  /** a window read for its block came without a valid one (its tiling is its own) */
  mayLack = false;
  /** coarser windows whose pack gave this id's finer summaries */
  packs = 0;

  constructor(series: CatalogSeries, idTagKey: string) {
    this.series = series;
    this.key = tagSetKey(series.tags, idTagKey);
  }

  wasAsked(sizeMs: number, startMs: number): boolean {
    return this.asked.some((a) => a.sizeMs === sizeMs && startMs >= a.from && startMs < a.to);
  }

  /**
   * A coarser window's summary pack, read for the finer windows a fold tiles it into: each finer
   * window's summary taken as found and its span as asked, unless a pending marker of the coarser
   * window says the pack is stale (then its finer windows are read as rows in the next round).
   */
  unpack(w: StoredWindow, finerMs: number): void {
    const run = w.pack;
    if (run === undefined || this.marks.some((m) => m.sizeMs === w.sizeMs && m.startMs === w.startMs)) return;
    for (let o = 0; o < run.length; o += RUN_STRIDE) {
      const summary = summaryAt(run, o);
      const startMs = summary.startMs;
      // a window read in part at the range's end came with its block: a pack's summary must not hide it
      if (this.found.get(finerMs, startMs)?.block !== undefined) continue;
      this.found.set({ startMs, sizeMs: finerMs, summary, block: undefined, pack: undefined });
    }
    this.asked.push({ sizeMs: finerMs, from: w.startMs, to: w.startMs + w.sizeMs });
    this.packs++;
  }

  /** Reading blocks: a window read and found with a summary but no valid block of as many points (its points are elsewhere). Summaries: none lacks. */
  lacks(sizeMs: number, startMs: number, content: TileContent): boolean {
    if (content === 'summary') return false;
    const w = this.found.get(sizeMs, startMs);
    return w !== undefined && (w.block === undefined || pointsInBlock(w.block) !== w.summary.count);
  }
}

function rangesKey(list: readonly { fromMs: number; toMs: number }[] | readonly { sizeMs: number; from: number; to: number }[]): string {
  return JSON.stringify(list);
}

/** What a tile of a summarised window is read as: its point block (its points), or its summary (a `0all` fold). */
type TileContent = 'block' | 'summary';

/** A `0all` downsample answered from summaries: the aggregator, and the one bucket's stamp (the query's start). */
export interface FoldAll {
  readonly aggregator: AggregatorName;
  readonly stampMs: number;
}

export interface TiledRead extends MetricRead {
  readonly scan: { readonly startMs: number; readonly endMs: number };
  /** ids with one series each */
  readonly single: readonly (readonly [string, CatalogSeries])[];
  readonly tier: RollupTier;
  readonly idTagKey: string;
  readonly now: number;
  readonly fold?: FoldAll | undefined;
}

/**
 * The raw points of ids with one series each, from point blocks where the tiling allows (see the top
 * of this file): every point in [scan.startMs, scan.endMs) exactly once, ascending. With `fold`, each
 * id's one `0all` bucket over that range instead, from summaries where the tiling allows.
 */
export async function readTiled(o: TiledRead): Promise<Found> {
  const { metric, scan, single, tier, idTagKey, now, reads, budget, fold } = o;
  const sizes = tier.windowsMs;
  const content: TileContent = fold === undefined ? 'block' : 'summary';
  // blocks are tiled over the sizes that have them; summaries (a fold) over every size
  const tileSizes = content === 'block' ? (tier.blockSizesMs ?? sizes) : sizes;
  // a block lives its own TTL (by default the data table's); a summary its size's
  const blocksKept = tier.blocksTtlMs === null ? Number.NEGATIVE_INFINITY : now - tier.blocksTtlMs;
  const kept = (size: number): number => (content === 'block' ? blocksKept : keptSince(tier, size, now));
  const closedAndKept = (size: number, start: number): boolean => start + size + tier.graceMs <= now && start >= kept(size);
  // a window the range holds only part of is read from its block whatever the content (a summary cannot be cut)
  const partKept = (size: number, start: number): boolean => start + size + tier.graceMs <= now && start >= blocksKept;
  const state = new Map(single.map(([id, s]) => [id, new IdTiles(s, idTagKey)]));
  // Round 1: the tiling with no marker known, for every id alike; markers in the same scans.
  const first = tileRange(scan.startMs, scan.endMs, tileSizes, { whole: closedAndKept, part: partKept });
  // an id with no pending marker of a closed window and every block valid tiles as round 1 did
  const tilingOf = (t: IdTiles): Tile[] =>
    t.marks.length === 0 && !t.mayLack
      ? first
      : tileRange(scan.startMs, scan.endMs, tileSizes, {
          whole: (size, start) => closedAndKept(size, start) && !markedWithin(t.marks, size, start) && !t.lacks(size, start, content),
          part: (size, start) => partKept(size, start) && !markedWithin(t.marks, size, start) && !t.lacks(size, start, 'block'),
        });
  // A fold reads a closed coarser window's finer summaries from its pack (a partial day: one cell, not an hour row each).
  const spansOf = (tiles: readonly Tile[], packs: boolean): WindowSpan[] => {
    const out: WindowSpan[] = blockSpans(tiles, true).map((sp) => ({ ...sp, with: 'block' as const }));
    for (const sp of blockSpans(tiles)) {
      const coarse = sizes[sizes.indexOf(sp.sizeMs) + 1];
      if (!packs || content === 'block' || coarse === undefined) {
        out.push({ ...sp, with: content });
        continue;
      }
      for (let c = sp.from - (sp.from % coarse); c < sp.to; c += coarse) {
        if (closedAndKept(coarse, c)) out.push({ sizeMs: coarse, from: c, to: c + coarse, with: 'pack', finerMs: sp.sizeMs });
        else out.push({ sizeMs: sp.sizeMs, from: Math.max(sp.from, c), to: Math.min(sp.to, c + coarse), with: content });
      }
    }
    return out;
  };
  // (the markers of closed windows only: an open one is a raw tile whatever its markers say)
  const marks = { sizesMs: sizes, from: scan.startMs, to: scan.endMs, closedBy: now - tier.graceMs };
  const round = { metric, reads, state };
  await fetchRound({ ...round, ids: [...state.keys()], spans: spansOf(first, true), ranges: rawOf(first), marks });
  // Later rounds: what each id's own tiling needs that is not read yet.
  for (;;) {
    const blockNeeds = new Map<string, { spans: WindowSpan[]; ids: string[] }>();
    const rawNeeds = new Map<string, { ranges: Range[]; ids: string[] }>();
    for (const [id, t] of state) {
      const tiles = tilingOf(t);
      const spans = spansOf(
        tiles.filter((x) => x.kind === 'block' && !t.wasAsked(x.sizeMs, x.startMs)),
        false,
      );
      const ranges = uncovered(rawOf(tiles), t.rawHave);
      if (spans.length > 0) group(blockNeeds, rangesKey(spans), { spans, ids: [] }).ids.push(id);
      if (ranges.length > 0) group(rawNeeds, rangesKey(ranges), { ranges, ids: [] }).ids.push(id);
    }
    if (blockNeeds.size === 0 && rawNeeds.size === 0) break;
    const none = { sizesMs: [], from: 0, to: 0 };
    await Promise.all([
      ...[...blockNeeds.values()].map((n) => fetchRound({ ...round, ids: n.ids, spans: n.spans, ranges: [], marks: none })),
      ...[...rawNeeds.values()].map((n) => fetchRound({ ...round, ids: n.ids, spans: [], ranges: n.ranges, marks: none })),
    ]);
  }
  const ofIds = [...state.values()].map((t) => (fold === undefined ? assemble(t, tilingOf(t), budget) : foldTiles(t, tilingOf(t), fold, budget)));
  return { inputs: ofIds.flatMap((f) => f.inputs), counts: addCounts(ofIds.map((f) => f.counts)) };
}

function group<T>(m: Map<string, T>, key: string, init: T): T {
  let g = m.get(key);
  if (g === undefined) m.set(key, (g = init));
  return g;
}

function rawOf(tiles: readonly Tile[]): Range[] {
  return tiles.flatMap((t) => (t.kind === 'raw' ? [{ fromMs: t.fromMs, toMs: t.toMs }] : []));
}

/** One round of readTiled's reads: block spans (with the markers of `marks`) and data-table ranges for `ids`. */
interface Round {
  readonly metric: string;
  readonly reads: MetricReads;
  /** what the round's reads go into */
  readonly state: Map<string, IdTiles>;
  readonly ids: readonly string[];
  readonly spans: readonly WindowSpan[];
  readonly ranges: readonly Range[];
  readonly marks: MarkSpan;
}

/** Reads block spans (with the markers of `marks`) and data-table ranges for `ids`, into their state. */
async function fetchRound(o: Round): Promise<void> {
  const { metric, ids, spans, ranges, reads, state, marks } = o;
  const wantWindows = spans.length > 0 || marks.from < marks.to;
  const [win, ...raws] = await Promise.all([
    wantWindows ? reads.windowsOf(ids, metric, spans, marks) : undefined,
    ...ranges.map((r) => reads.rawPointsOf(ids, metric, r.fromMs, r.toMs)),
  ]);
  const packSpans = spans.filter((sp) => sp.with === 'pack');
  // a window read for its summary (a fold's whole windows) has no block to lack: only one read for its
  // block can give the id a tiling of its own
  const blockSpans = spans.filter((sp) => sp.with === 'block');
  const within = (list: readonly WindowSpan[], w: StoredWindow): WindowSpan | undefined =>
    list.length === 0 ? undefined : list.find((sp) => sp.sizeMs === w.sizeMs && w.startMs >= sp.from && w.startMs < sp.to);
  for (const id of ids) {
    const t = state.get(id) as IdTiles;
    if (win !== undefined) {
      if (marks.from < marks.to) t.marks = win.marks.get(id) ?? [];
      for (const sp of spans) if (sp.with !== 'pack') t.asked.push(sp);
      const unpacked = new Set<number>();
      for (const w of win.windows.get(id) ?? []) {
        const pack = within(packSpans, w);
        if (pack?.finerMs !== undefined) {
          t.unpack(w, pack.finerMs);
          unpacked.add(w.startMs);
          continue;
        }
        t.found.set(w);
        if ((w.block === undefined || pointsInBlock(w.block) !== w.summary.count) && within(blockSpans, w) !== undefined) t.mayLack = true;
      }
      // a coarser window read for its pack and not found: no point in it, unless a pending marker says its rows are not written yet
      for (const sp of spans) {
        if (sp.with !== 'pack' || sp.finerMs === undefined) continue;
        for (let c = sp.from; c < sp.to; c += sp.sizeMs) {
          if (unpacked.has(c) || t.marks.some((m) => m.sizeMs === sp.sizeMs && m.startMs === c)) continue;
          t.asked.push({ sizeMs: sp.finerMs, from: c, to: c + sp.sizeMs });
        }
      }
    }
    if (ranges.length === 0) continue;
    t.rawHave = [...t.rawHave, ...ranges].sort((a, b) => a.fromMs - b.fromMs);
    for (const found of raws) {
      const points = found.get(id)?.get(t.key);
      if (points !== undefined) t.rawPoints.push(points);
    }
  }
}

/** One id's points along its tiling: blocks decoded (their points taken from `budget`), data-table points cut to each raw tile. */
function assemble(t: IdTiles, tiles: readonly Tile[], budget: PointBudget): Found {
  const raw = mergeRaw(t.rawPoints);
  const ts: number[] = [];
  const values: number[] = [];
  let rawRanges = 0;
  let blockWindows = 0;
  for (const tile of tiles) {
    if (tile.kind === 'raw') {
      rawRanges++;
      let i = lowerBound(raw.ts, tile.fromMs);
      for (; i < raw.ts.length && (raw.ts[i] as number) < tile.toMs; i++) {
        ts.push(raw.ts[i] as number);
        values.push(raw.values[i] as number);
      }
      continue;
    }
    const run = blockPoints(t, tile, budget);
    if (run === undefined) continue; // no row: no point of the metric in a window summarised for good
    blockWindows++;
    for (let i = run.lo; i < run.hi; i++) {
      ts.push(run.ts[i] as number);
      values.push(run.values[i] as number);
    }
  }
  const counts: Partial<ReadCounts> = { points: ts.length, rawRanges, blockWindows };
  return { inputs: ts.length > 0 ? [[t.series, { kind: 'raw', tags: t.series.tags, ts, values }]] : [], counts };
}

/** A block tile's points: its window's block decoded (every point taken from `budget`), [lo, hi) the tile's (a part: those in it); undefined when the window has no block. */
function blockPoints(
  t: IdTiles,
  tile: Extract<Tile, { kind: 'block' }>,
  budget: PointBudget,
): { ts: readonly number[]; values: readonly number[]; lo: number; hi: number } | undefined {
  const w = t.found.get(tile.sizeMs, tile.startMs);
  if (w?.block === undefined) return undefined;
  const run = decodePointsBlock(w.block, tile.startMs, tile.sizeMs, `point block ${t.series.metric} of ${t.series.id} at ${tile.startMs}`);
  budget.take(run.ts.length);
  const part = tile.part;
  if (part === undefined) return { ...run, lo: 0, hi: run.ts.length };
  return { ...run, lo: lowerBound(run.ts, part.fromMs), hi: lowerBound(run.ts, part.toMs) };
}

/** One id's `0all` bucket along its tiling: summaries of its summary tiles, points of its blocks read in part and its data-table points cut to each raw tile, in time order. */
function foldTiles(t: IdTiles, tiles: readonly Tile[], fold: FoldAll, budget: PointBudget): Found {
  const raw = mergeRaw(t.rawPoints);
  // one bucket: every start aligns to 0 under an interval past any timestamp
  const folder = new BucketFolder(Number.MAX_SAFE_INTEGER, fold.aggregator);
  let rawRanges = 0;
  let points = 0;
  let summaryWindows = 0;
  let blockParts = 0;
  for (const tile of tiles) {
    if (tile.kind === 'raw') {
      rawRanges++;
      let i = lowerBound(raw.ts, tile.fromMs);
      for (; i < raw.ts.length && (raw.ts[i] as number) < tile.toMs; i++) {
        const v = raw.values[i] as number;
        folder.addFields(raw.ts[i] as number, 1, v, v, v, v, v);
        points++;
      }
      continue;
    }
    if (tile.part !== undefined) {
      const run = blockPoints(t, tile, budget);
      if (run === undefined) continue;
      blockParts++;
      for (let i = run.lo; i < run.hi; i++) {
        const v = run.values[i] as number;
        folder.addFields(run.ts[i] as number, 1, v, v, v, v, v);
        points++;
      }
      continue;
    }
    const w = t.found.get(tile.sizeMs, tile.startMs);
    if (w === undefined) continue; // no row: no point of the metric in a window summarised for good
    summaryWindows++;
    const s = w.summary;
    folder.addFields(s.startMs, s.count, s.sum, s.min, s.max, s.first, s.last);
  }
  const counts: Partial<ReadCounts> = { points, rawRanges, summaryWindows, packWindows: t.packs, blockWindows: blockParts };
  const b = folder.finish();
  return {
    inputs: b.values.length > 0 ? [[t.series, { kind: 'buckets', tags: t.series.tags, ts: [fold.stampMs], values: [b.values[0] as number] }]] : [],
    counts,
  };
}

function mergeRaw(parts: readonly TaggedPoints[]): { ts: number[]; values: number[] } {
  if (parts.length === 1) return parts[0] as TaggedPoints;
  const all = parts.flatMap((p) => p.ts.map((ts, i) => [ts, p.values[i] as number] as const)).sort((a, b) => a[0] - b[0]);
  return { ts: all.map((x) => x[0]), values: all.map((x) => x[1]) };
}
