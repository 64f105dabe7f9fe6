/**
 * Pure: what the rollup job builds for one window (summaries, point blocks, summary packs) and the
 * row that stores it (docs/ROLLUPS.md).
 * Design notes: docs/DECISIONS.md#window-content
 */
import type { StoredCell } from '../events/index.ts';
import { NO_TAGS, decodeDataRow } from '../events/index.ts';
import { columnOf, newestPerQualifier, type PutRow, type Summaries } from './fold.ts';
import { decodePointsBlock, encodePointsBlock, type PointRun } from './points-block.ts';
import { SummaryDecodeError, addEvent, decodeSummary, encodeSummary, mergeSummary, type MetricSummary } from './summary.ts';
import { encodeSummaryPack, packed, type PackedSummary } from './summary-pack.ts';

/** The tags a summary's fold takes from a data row: none (a summary is of one id's metric; its tags are the catalog's). */
const tagsIgnored = (): Readonly<Record<string, string>> => NO_TAGS;

/** Point blocks: where they go and how large one may grow. */
export interface BlockSettings {
  /** the rollup table's family of point blocks (tables.rollup.pointsFamily) */
  readonly family: string;
  /** a metric with more points in one window gets no block (rollup.pointBlocks.maxPoints) */
  readonly maxPoints: number;
  /** blocks for every window size; false: the finest size's alone (rollup.pointBlocks.everySize) */
  readonly everySize: boolean;
  /**
   * The window sizes (s) whose summary a block stands for: beside a block whose points fold to the
   * window's summary, bit for bit, the job writes no summary cell (readers make it from the block:
   * windowSummary). rollup.pointBlocks.summaryInBlock, for the sizes whose blocks are kept as long as
   * their summaries (rollupSettings); absent: none.
   */
  readonly standsForSummary?: ReadonlySet<number> | undefined;
}

/** Whether a window of the finest size (or a coarser one) gets blocks. */
export function sizeHasBlocks(blocks: BlockSettings | null, finest: boolean): boolean {
  return blocks !== null && (finest || blocks.everySize);
}

/** 0x00 "s" ‖ metric: the qualifier of a metric's summary pack in a coarser window's row. */
export const PACK_PREFIX: Buffer = Buffer.from('\u0000s', 'latin1');

export function packQualifier(metric: string | Buffer): Buffer {
  return Buffer.concat([PACK_PREFIX, typeof metric === 'string' ? Buffer.from(metric, 'utf8') : metric]);
}

/**
 * The cells of a stored window row a reader or the cascade needs, by metric (cells as read, any family).
 * No summary cell: the block stands for it (windowSummary makes it from the points).
 */
export interface WindowCells<C extends StoredCellWithTime = StoredCellWithTime> {
  readonly summary?: C | undefined;
  readonly block?: C | undefined;
  readonly pack?: C | undefined;
}

export interface StoredCellWithTime extends StoredCell {
  readonly timestamp: number;
}

/** A stored cell with its family (a scan's cells). */
export interface FamilyCell extends StoredCellWithTime {
  readonly family: Uint8Array;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function metricOf(qualifier: Uint8Array): string {
  try {
    return strictUtf8.decode(qualifier);
  } catch (cause) {
    throw new SummaryDecodeError(`rollup qualifier ${Buffer.from(qualifier).toString('hex')} is not UTF-8`, { cause });
  }
}

function startsWith(q: Uint8Array, prefix: Buffer): boolean {
  if (q.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (q[i] !== prefix[i]) return false;
  return true;
}

/**
 * A window row's cells by metric: the newest summary of each (its size's family or the main one,
 * newestPerQualifier), the block of the points family and the pack, each kept only when it has its
 * summary's timestamp. A block newer than every summary of its metric (or with none) was written
 * without one: it stands for the summary, with the pack of its timestamp. Other reserved (0x00-led)
 * qualifiers are skipped.
 */
export function windowCellsOf<C extends FamilyCell>(cells: readonly C[], blockFamily: string | null): Map<string, WindowCells<C>> {
  const blockFam = blockFamily === null ? null : Buffer.from(blockFamily, 'utf8');
  const blocks = new Map<string, C>();
  const packs = new Map<string, C>();
  const summaryCells: C[] = [];
  for (const c of cells) {
    if (blockFam !== null && Buffer.from(c.family.buffer, c.family.byteOffset, c.family.byteLength).equals(blockFam)) {
      if (c.qualifier.length > 0 && c.qualifier[0] !== 0x00) blocks.set(metricOf(c.qualifier), c);
    } else if (startsWith(c.qualifier, PACK_PREFIX)) {
      packs.set(metricOf(c.qualifier.subarray(PACK_PREFIX.length)), c);
    } else if (c.qualifier.length > 0 && c.qualifier[0] !== 0x00) {
      summaryCells.push(c);
    }
  }
  const out = new Map<string, WindowCells<C>>();
  for (const summary of newestPerQualifier(summaryCells)) {
    const metric = metricOf(summary.qualifier);
    const block = blocks.get(metric);
    const pack = packs.get(metric);
    out.set(metric, {
      summary,
      block: block?.timestamp === summary.timestamp ? block : undefined,
      pack: pack?.timestamp === summary.timestamp ? pack : undefined,
    });
  }
  for (const [metric, block] of blocks) {
    const had = out.get(metric);
    if (had?.summary !== undefined && had.summary.timestamp >= block.timestamp) continue;
    const pack = packs.get(metric);
    out.set(metric, { block, pack: pack?.timestamp === block.timestamp ? pack : undefined });
  }
  return out;
}

/**
 * The summary of one metric of a window [start, start + ms): its cell's, or, where the block stands
 * for it, the block's points folded newest first (as the job folds them: the same numbers, bit for
 * bit, or the job would have written the cell); `run` is the block's points when decoded for it.
 */
export function windowSummary(w: WindowCells, metric: string, start: number, ms: number): { summary: MetricSummary; run?: PointRun } {
  if (w.summary !== undefined) return { summary: decodeSummary(w.summary.value, metric) };
  if (w.block === undefined) throw new SummaryDecodeError(`window ${start} of ${metric} has neither a summary nor a block`);
  const run = decodePointsBlock(w.block.value, start, ms, `point block ${metric} of window ${start}`);
  return { summary: summaryOfRun(run), run };
}

/** A run's summary, its points folded newest first (as a scan of the data table adds them). */
export function summaryOfRun(run: PointRun): MetricSummary {
  let acc: MetricSummary | undefined;
  for (let i = run.ts.length - 1; i >= 0; i--) acc = addEvent(acc, run.ts[i] as number, run.values[i] as number);
  if (acc === undefined) throw new RangeError('a run of no point has no summary');
  return acc;
}

function sameSummary(a: MetricSummary, b: MetricSummary): boolean {
  return (
    a.count === b.count &&
    Object.is(a.sum, b.sum) &&
    Object.is(a.min, b.min) &&
    Object.is(a.max, b.max) &&
    a.firstTs === b.firstTs &&
    Object.is(a.first, b.first) &&
    a.lastTs === b.lastTs &&
    Object.is(a.last, b.last)
  );
}

/** Points of one metric as folded: loose points (data rows) or whole finer blocks. */
interface Collected {
  readonly ts: number[];
  readonly values: number[];
  readonly runs: PointRun[];
  /** points held (loose and in runs) */
  n: number;
  /** points the summary counts that no block holds (a finer window without a valid block) */
  missing: number;
}

export class WindowContent {
  readonly summaries: Summaries = new Map();
  readonly #blocks: BlockSettings | null;
  /** this window's size gets blocks (sizeHasBlocks); else its finer rows' blocks are only recognised */
  readonly #ownBlocks: boolean;
  /** metric → its points; null once it can have no block */
  readonly #points = new Map<string, Collected | null>();
  /** metric → the finer windows' summaries (coarser sizes) */
  readonly #finer = new Map<string, PackedSummary[]>();
  /** metric → the window's own stored block, standing in for a finer block that expired (expired-source.ts) */
  readonly #standIn: ReadonlyMap<string, PointRun>;

  /**
   * `o.ownBlocks` (default true): this window's size gets blocks (sizeHasBlocks). `o.standIn`: for a
   * coarser window recomputed after some of its finer blocks may have expired, its stored blocks:
   * where a finer window has no valid block, their points in its span stand in, when they are as many
   * as its summary counts.
   */
  constructor(blocks: BlockSettings | null, o: { readonly ownBlocks?: boolean; readonly standIn?: ReadonlyMap<string, PointRun> | undefined } = {}) {
    this.#blocks = blocks;
    this.#ownBlocks = blocks !== null && (o.ownBlocks ?? true);
    this.#standIn = o.standIn ?? new Map<string, PointRun>();
  }

  /** Adds every metric of one data row (event ts `ts`); the tags cell is ignored (not even decoded: a closing hour's every row passes here). */
  addDataRow(ts: number, cells: readonly StoredCell[]): void {
    const { metrics } = decodeDataRow(cells, tagsIgnored);
    for (const [metric, value] of Object.entries(metrics)) this.addPoint(metric, ts, value);
  }

  /** Adds one event of a metric. */
  addPoint(metric: string, ts: number, value: number): void {
    this.summaries.set(metric, addEvent(this.summaries.get(metric), ts, value));
    const c = this.#collected(metric);
    if (c === null) return;
    c.ts.push(ts);
    c.values.push(value);
    c.n++;
    this.#bound(metric, c);
  }

  /**
   * Merges one finer window's row (start `start`, length `finerMs`): its summaries, into the packs,
   * and its valid blocks. Blocks of other sizes are never in it: the row is of the finer size.
   */
  addFinerRow(start: number, finerMs: number, cells: readonly FamilyCell[]): void {
    for (const [metric, w] of windowCellsOf(cells, this.#blocks?.family ?? null)) {
      const { summary: s, run: decoded } = windowSummary(w, metric, start, finerMs);
      this.summaries.set(metric, mergeSummary(this.summaries.get(metric), s));
      let finer = this.#finer.get(metric);
      if (finer === undefined) this.#finer.set(metric, (finer = []));
      finer.push(packed(start, s));
      const c = this.#collected(metric);
      if (c === null) continue;
      const run = decoded ?? (w.block === undefined ? undefined : decodePointsBlock(w.block.value, start, finerMs, `point block ${metric} of window ${start}`));
      this.#addRun(metric, c, run?.ts.length === s.count ? run : this.#standInOf(metric, start, finerMs), s.count);
    }
  }

  /** Merges a finer window's summaries computed in memory (the backfill), with its points if it kept them. */
  addFinerContent(start: number, finer: WindowContent): void {
    for (const [metric, s] of finer.summaries) {
      this.summaries.set(metric, mergeSummary(this.summaries.get(metric), s));
      let list = this.#finer.get(metric);
      if (list === undefined) this.#finer.set(metric, (list = []));
      list.push(packed(start, s));
      const c = this.#collected(metric);
      if (c === null) continue;
      this.#addRun(metric, c, finer.pointsOf(metric), s.count);
    }
  }

  #collected(metric: string): Collected | null {
    if (!this.#ownBlocks) return null;
    let c = this.#points.get(metric);
    if (c === undefined) this.#points.set(metric, (c = { ts: [], values: [], runs: [], n: 0, missing: 0 }));
    return c;
  }

  /** The stand-in block's points in [start, start + ms), or undefined. */
  #standInOf(metric: string, start: number, ms: number): PointRun | undefined {
    const run = this.#standIn.get(metric);
    if (run === undefined) return undefined;
    const ts: number[] = [];
    const values: number[] = [];
    for (let i = 0; i < run.ts.length; i++) {
      const t = run.ts[i] as number;
      if (t < start || t >= start + ms) continue;
      ts.push(t);
      values.push(run.values[i] as number);
    }
    return { ts, values };
  }

  /** A finer window's points (undefined: it has no valid block), which must be the `count` its summary counts. */
  #addRun(metric: string, c: Collected, run: PointRun | undefined, count: number): void {
    if (run?.ts.length === count) {
      c.runs.push(run);
      c.n += count;
    } else {
      c.missing += count;
    }
    this.#bound(metric, c);
  }

  /** Past the size bound or incomplete: no block for the metric (and its points are let go). */
  #bound(metric: string, c: Collected): void {
    if (c.missing > 0 || c.n > (this.#blocks as BlockSettings).maxPoints) this.#points.set(metric, null);
  }

  /** The metric's points ascending, or undefined when it gets no block. */
  pointsOf(metric: string): PointRun | undefined {
    const c = this.#points.get(metric);
    if (c === undefined || c === null || c.missing > 0) return undefined;
    const run = c.runs.length > 0 ? joinRuns(c.runs) : ascending(c.ts, c.values);
    for (let i = 1; i < run.ts.length; i++) if ((run.ts[i] as number) <= (run.ts[i - 1] as number)) return undefined; // a ts twice
    return run;
  }

  /**
   * The window's row at `key`: summaries (and packs) in `family`, blocks in the points family, all
   * at `timestamp`. Undefined when there is nothing to write. `start` and `ms` locate the window
   * (block offsets count from its start); `finerMs` is the length of the windows in the packs.
   */
  putRow(
    key: Buffer,
    family: string,
    timestamp: number,
    at: { readonly start: number; readonly finerMs?: number | undefined; readonly sizeSec?: number | undefined },
  ): PutRow | undefined {
    if (this.summaries.size === 0) return undefined;
    const cells: PutRow['cells'][number][] = [];
    const standsFor = at.sizeSec !== undefined && this.#blocks?.standsForSummary?.has(at.sizeSec) === true;
    for (const metric of [...this.summaries.keys()].sort()) {
      const q = Buffer.from(metric, 'utf8');
      const summary = this.summaries.get(metric) as MetricSummary;
      const run = this.#ownBlocks ? this.pointsOf(metric) : undefined;
      // a block standing for its summary must give back the very numbers (it does when the points were folded newest first)
      if (!(standsFor && run !== undefined && sameSummary(summaryOfRun(run), summary)))
        cells.push({ column: columnOf(family, q), value: encodeSummary(summary), timestamp });
      const finer = this.#finer.get(metric);
      if (finer !== undefined && at.finerMs !== undefined) {
        const asc = [...finer].sort((a, b) => a.startMs - b.startMs);
        cells.push({ column: columnOf(family, packQualifier(q)), value: encodeSummaryPack(at.start, at.finerMs, asc), timestamp });
      }
      if (run !== undefined) cells.push({ column: columnOf((this.#blocks as BlockSettings).family, q), value: encodePointsBlock(at.start, run), timestamp });
    }
    return { row: key, cells };
  }
}

/** Finer blocks (each ascending) in any order, joined ascending by their first ts. */
function joinRuns(runs: readonly PointRun[]): PointRun {
  const sorted = [...runs].sort((a, b) => (a.ts[0] as number) - (b.ts[0] as number));
  const ts: number[] = [];
  const values: number[] = [];
  for (const r of sorted) {
    for (let i = 0; i < r.ts.length; i++) {
      ts.push(r.ts[i] as number);
      values.push(r.values[i] as number);
    }
  }
  return { ts, values };
}

/** Points as folded (data rows come newest first) ascending by ts. */
function ascending(ts: number[], values: number[]): PointRun {
  let descending = true;
  for (let i = 1; i < ts.length && descending; i++) if ((ts[i] as number) >= (ts[i - 1] as number)) descending = false;
  if (descending) return { ts: [...ts].reverse(), values: [...values].reverse() };
  const order = ts.map((_, i) => i).sort((a, b) => (ts[a] as number) - (ts[b] as number));
  return { ts: order.map((i) => ts[i] as number), values: order.map((i) => values[i] as number) };
}
