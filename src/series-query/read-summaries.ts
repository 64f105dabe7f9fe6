// A rollup plan's reads (plan.ts): each downsample bucket from window summaries or summary packs
// where every window is summarised for good, from raw points elsewhere.
// Design notes: docs/DECISIONS.md#summary-reads
import { getAggregator } from '../series-compute/aggregators.ts';
import { RUN_STRIDE, type PackedSummary } from '../rollup/summary-pack.ts';
import { BucketFolder } from '../series-compute/rollup-exact.ts';
import { bucketRanges, expiredRawBuckets, keptSince, rawBuckets, type RollupTier, type SubQueryPlan } from './plan.ts';
import type { TaggedPoints } from '../series-data/points.ts';
import type { MarkedWindow, StoredWindow, WindowSpan } from '../series-data/windows.ts';
import type { CatalogSeries, Found, FromWindows } from './sub-query-reads.ts';
import type { MetricRead } from './read-points.ts';
import type { Downsample, SeriesInput } from '../series-language/types.ts';

type RollupPlan = Extract<SubQueryPlan, { path: 'rollup' }>;

/** The coarser size after `windowMs` in the tier, or undefined for the coarsest. */
function coarserSize(tier: RollupTier, windowMs: number): number | undefined {
  const sizes = [...tier.windowsMs].sort((a, b) => a - b);
  return sizes[sizes.indexOf(windowMs) + 1];
}

/**
 * The spans of round 1: runs of coarser windows read for their packs (those closed, kept, and at least
 * half inside the range: a pack carries every finer window of its window, a row only its own), and
 * runs of the plan's size's windows for the parts of the range no such coarser window covers.
 */
export function summarySpans(plan: RollupPlan, tier: RollupTier, now: number): WindowSpan[] {
  const { scan, windowMs } = plan;
  const coarse = coarserSize(tier, windowMs);
  if (coarse === undefined) return [{ sizeMs: windowMs, from: scan.startMs, to: scan.endMs, with: 'summary' }];
  const kept = keptSince(tier, coarse, now);
  const out: WindowSpan[] = [];
  const push = (sizeMs: number, from: number, to: number, what: WindowSpan['with']): void => {
    const last = out.at(-1);
    if (last?.sizeMs === sizeMs && last.to === from) out[out.length - 1] = { ...last, to };
    else out.push(what === 'pack' ? { sizeMs, from, to, with: what, finerMs: windowMs } : { sizeMs, from, to, with: what });
  };
  for (let c = scan.startMs - (scan.startMs % coarse); c < scan.endMs; c += coarse) {
    const from = Math.max(c, scan.startMs);
    const to = Math.min(c + coarse, scan.endMs);
    if (c + coarse + tier.graceMs <= now && c >= kept && 2 * (to - from) >= coarse) push(coarse, c, c + coarse, 'pack');
    else push(windowMs, from, to, 'summary');
  }
  return out;
}

/**
 * One id's summaries of the plan's size: runs from packs (summary-pack.ts: RUN_STRIDE numbers a window,
 * ascending) and single windows' summaries as read (no array made for each: a dashboard's refresh
 * folds about a million of them), apart from each other (windows do not overlap).
 */
type Run = Float64Array | PackedSummary;
type Runs = Run[];

const firstOf = (r: Run): number => (r instanceof Float64Array ? (r[0] ?? 0) : r.startMs);

/** One id's summaries of the plan's size, from packs of good coarser windows (a run each) and from rows; the coarser windows to read as rows instead. */
function summariesOf(stored: readonly StoredWindow[], marks: readonly MarkedWindow[], windowMs: number): { runs: Runs; redo: number[]; packs: number } {
  const runs: Runs = [];
  const redo: number[] = [];
  let packs = 0;
  for (const w of stored) {
    if (w.sizeMs === windowMs) {
      runs.push(w.summary);
      continue;
    }
    const stale = marks.length > 0 && marks.some((m) => m.sizeMs === w.sizeMs && m.startMs === w.startMs);
    if (stale || w.pack === undefined) {
      redo.push(w.startMs);
      continue;
    }
    packs++;
    runs.push(w.pack);
  }
  return { runs, redo, packs };
}

/** The runs' summaries in the scan range and outside the `raw` buckets, ascending, folded into buckets (the runs sorted, not their summaries). */
function foldRuns(ds: Downsample, plan: RollupPlan, runs: Runs, raw: ReadonlySet<number>): { ts: number[]; values: number[] } {
  const { scan, intervalMs } = plan;
  let ascending = true;
  for (let i = 1; i < runs.length && ascending; i++) if (firstOf(runs[i] as Run) < firstOf(runs[i - 1] as Run)) ascending = false;
  const ordered = ascending ? runs : [...runs].sort((a, b) => firstOf(a) - firstOf(b));
  const folder = new BucketFolder(intervalMs, ds.aggregator);
  const wanted = (start: number): boolean => start >= scan.startMs && start < scan.endMs && (raw.size === 0 || !raw.has(start - (start % intervalMs)));
  for (const r of ordered) {
    if (!(r instanceof Float64Array)) {
      if (wanted(r.startMs)) folder.addFields(r.startMs, r.count, r.sum, r.min, r.max, r.first, r.last);
      continue;
    }
    for (let o = 0; o < r.length; o += RUN_STRIDE) {
      const start = r[o] as number;
      if (!wanted(start)) continue;
      folder.addFields(start, r[o + 1] as number, r[o + 2] as number, r[o + 3] as number, r[o + 4] as number, r[o + 5] as number, r[o + 6] as number);
    }
  }
  return folder.finish();
}

/** The `raw` buckets' values of an id's points (each list ascending; lists of different buckets), ascending by bucket. */
export function rawBucketValues(
  points: readonly { readonly ts: readonly number[]; readonly values: readonly number[] }[],
  raw: ReadonlySet<number>,
  intervalMs: number,
  run: (values: number[]) => number,
): { ts: number[]; values: number[] } {
  const ts: number[] = [];
  const values: number[] = [];
  let ordered = true;
  for (const p of points) {
    let i = 0;
    while (i < p.ts.length) {
      const start = (p.ts[i] as number) - ((p.ts[i] as number) % intervalMs);
      const inBucket: number[] = [];
      while (i < p.ts.length && (p.ts[i] as number) < start + intervalMs) inBucket.push(p.values[i++] as number);
      if (!raw.has(start)) continue;
      if (ts.length > 0 && start <= (ts.at(-1) as number)) ordered = false;
      ts.push(start);
      values.push(run(inBucket));
    }
  }
  if (ordered) return { ts, values };
  // lists of several ranges, not in time order: sort by bucket (a bucket is in one list only; the last kept, as a Map would)
  const byStart = new Map<number, number>(ts.map((t, i) => [t, values[i] as number]));
  const sorted = [...byStart.keys()].sort((a, b) => a - b);
  return { ts: sorted, values: sorted.map((t) => byStart.get(t) as number) };
}

/** Two bucket lists with no bucket in both, each ascending, merged ascending. */
export function mergeBuckets(a: { ts: number[]; values: number[] }, b: { ts: number[]; values: number[] }): { ts: number[]; values: number[] } {
  if (b.ts.length === 0) return a;
  if (a.ts.length === 0) return b;
  // the usual case: the raw buckets (the open hour) after every summarised one
  if ((a.ts.at(-1) as number) < (b.ts[0] as number)) return { ts: a.ts.concat(b.ts), values: a.values.concat(b.values) };
  const ts: number[] = [];
  const values: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.ts.length || j < b.ts.length) {
    if (j >= b.ts.length || (i < a.ts.length && (a.ts[i] as number) < (b.ts[j] as number))) {
      ts.push(a.ts[i] as number);
      values.push(a.values[i++] as number);
    } else {
      ts.push(b.ts[j] as number);
      values.push(b.values[j++] as number);
    }
  }
  return { ts, values };
}

/** One id's bucket values: from its summaries where summarised for good, from its raw points (`points`) in the `raw` buckets. */
function idBuckets(
  ds: Downsample,
  plan: RollupPlan,
  read: { readonly runs: Runs; readonly raw: ReadonlySet<number>; readonly points: readonly TaggedPoints[] },
): { ts: number[]; values: number[] } {
  const { runs, raw, points } = read;
  const fromSummaries = foldRuns(ds, plan, runs, raw);
  if (raw.size === 0) return fromSummaries;
  // one series for this id (ids with several tag sets are read raw): bucket its points
  return mergeBuckets(fromSummaries, rawBucketValues(points, raw, plan.intervalMs, getAggregator(ds.aggregator).run));
}

/** The raw points of each id's unsummarised buckets, and how many: ids sharing a range are read together (and with other sub-queries' alike). */
async function rawOfBuckets(
  r: MetricRead,
  plan: RollupPlan,
  raw: ReadonlyMap<string, ReadonlySet<number>>,
): Promise<{ readonly byId: Map<string, TaggedPoints[]>; readonly n: number }> {
  const { metric, reads } = r;
  const byRange = new Map<string, { from: number; to: number; ids: string[] }>();
  for (const [id, buckets] of raw) {
    for (const r of bucketRanges(buckets, plan.intervalMs)) {
      const from = Math.max(r.from, plan.scan.startMs);
      const to = Math.min(r.to, plan.scan.endMs);
      if (from >= to) continue;
      const key = `${from}-${to}`;
      const group = byRange.get(key) ?? { from, to, ids: [] };
      byRange.set(key, group);
      group.ids.push(id);
    }
  }
  const points = new Map<string, TaggedPoints[]>();
  let n = 0;
  const found = await Promise.all([...byRange.values()].map((g) => reads.rawPointsOf(g.ids, metric, g.from, g.to)));
  for (const byId of found) {
    for (const [id, sets] of byId) {
      for (const p of sets.values()) n += p.ts.length;
      const list = points.get(id);
      if (list === undefined) points.set(id, [...sets.values()]);
      else list.push(...sets.values());
    }
  }
  return { byId: points, n };
}

const NO_POINTS = { byId: new Map<string, TaggedPoints[]>(), n: 0 };
const NO_MARKS: readonly MarkedWindow[] = [];
const NO_LISTS: readonly TaggedPoints[] = [];

function difference(a: ReadonlySet<number>, b: ReadonlySet<number>): Set<number> {
  return new Set([...a].filter((x) => !b.has(x)));
}

export interface RollupRead extends MetricRead {
  readonly ds: Downsample;
  readonly plan: RollupPlan;
  /** ids with one series of the metric each */
  readonly single: readonly (readonly [string, CatalogSeries])[];
  readonly tier: RollupTier;
  readonly now: number;
}

/** The rollup plan's reads for ids with one series of the metric each. */
export async function readRollup(o: RollupRead): Promise<Found> {
  const { ds, metric, plan, single, tier, now, reads } = o;
  const ids = single.map(([id]) => id);
  // Buckets raw whatever the markers say (open, not wholly in range, expired) are read at once,
  // beside the markers and summaries; the buckets that markers add, after. (Most ids have no
  // marker: they share the one set of raw buckets.)
  const always = rawBuckets(plan, tier, [], now);
  const expiredBuckets = expiredRawBuckets(always, tier, now);
  const spans = summarySpans(plan, tier, now);
  const marksUpTo = Math.max(...spans.map((sp) => sp.sizeMs));
  const markSizes = tier.windowsMs.filter((w) => w <= marksUpTo && marksUpTo % w === 0);
  // windows still open or in their grace are raw whatever their markers say: their marker rows (the
  // open hour's names every active id) are not read
  const markSpan = { sizesMs: markSizes, from: plan.scan.startMs, to: plan.scan.endMs, closedBy: now - tier.graceMs };
  const [first, early] = await Promise.all([
    reads.windowsOf(ids, metric, spans, markSpan),
    always.size === 0 ? NO_POINTS : rawOfBuckets(o, plan, new Map(ids.map((id) => [id, always]))),
  ]);
  const raw = new Map<string, ReadonlySet<number>>();
  const added = new Map<string, Set<number>>();
  const redo = new Map<number, string[]>();
  const got = new Map<string, Runs>();
  let cachedIds = 0;
  let packWindows = 0;
  for (const id of ids) {
    if (first.cachedIds.has(id)) cachedIds++;
    const marks = first.marks.get(id) ?? NO_MARKS;
    const finer = marks.length === 0 ? NO_MARKS : marks.filter((m) => m.sizeMs <= plan.windowMs);
    const dirty = finer.length === 0 ? always : rawBuckets(plan, tier, finer, now);
    raw.set(id, dirty);
    if (dirty !== always) added.set(id, difference(dirty, always));
    const g = summariesOf(first.windows.get(id) ?? [], marks, plan.windowMs);
    got.set(id, g.runs);
    packWindows += g.packs;
    for (const start of g.redo) {
      const group = redo.get(start);
      if (group === undefined) redo.set(start, [id]);
      else group.push(id);
    }
  }
  const marked = ids.some((id) => first.marks.has(id));
  const fromWindows: FromWindows | undefined =
    !marked && always.size === 0 && redo.size === 0 && first.gens !== undefined ? { ids, gens: first.gens, marks: markSpan } : undefined;
  // Round 2: the plan's size's rows of coarser windows whose pack could not be used, and the raw buckets markers added.
  const coarse = coarserSize(tier, plan.windowMs) ?? plan.windowMs;
  const none = { sizesMs: [], from: 0, to: 0 };
  const [rows, late] = await Promise.all([
    Promise.all(
      [...redo].map(([start, group]) =>
        reads.windowsOf(
          group,
          metric,
          [{ sizeMs: plan.windowMs, from: Math.max(start, plan.scan.startMs), to: Math.min(start + coarse, plan.scan.endMs), with: 'summary' }],
          none,
        ),
      ),
    ),
    added.size === 0 ? NO_POINTS : rawOfBuckets(o, plan, added),
  ]);
  for (const r of rows) for (const [id, list] of r.windows) for (const w of list) got.get(id)?.push(w.summary);
  const inputs: [CatalogSeries, SeriesInput][] = [];
  let rawBucketsRead = 0;
  for (const [id, s] of single) {
    const dirty = raw.get(id) ?? always;
    rawBucketsRead += dirty.size;
    const [e, l] = [early.byId.get(id), late.byId.get(id)];
    const points = dirty.size === 0 ? NO_LISTS : l === undefined ? (e ?? NO_LISTS) : e === undefined ? l : [...e, ...l];
    const b = idBuckets(ds, plan, { runs: got.get(id) ?? [], raw: dirty, points });
    if (b.ts.length > 0) inputs.push([s, { kind: 'buckets', tags: s.tags, ts: b.ts, values: b.values }]);
  }
  const counts = { points: early.n + late.n, rawBuckets: rawBucketsRead, expiredBuckets, packWindows, cachedIds };
  return { inputs, counts, fromWindows };
}
