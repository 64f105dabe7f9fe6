// Runs a parsed /api/query: per sub-query, the series from the catalog (never a scan of the data
// table), the planner's path (plan.ts), the reads (series-store.ts) under the query's limits, and
// OpenTSDB 2.4.1's computation (compute/). The sub-queries read concurrently, through read-batch.ts,
// so those over the same ids and range share their scans; they are computed in order after. Every
// sub-query is answered before anything is sent, so a name OpenTSDB would not know, a limit or a
// deadline is a clean error answer, never a cut stream.
import { getAggregator } from './compute/aggregators.ts';
import { computeSubQuery } from './compute/compute.ts';
import { bucketsFromSummaries, type WindowSummary } from './compute/rollup-exact.ts';
import { badQuery, TsdbQueryError } from './errors.ts';
import { bucketRanges, expiredRawBuckets, markerSizes, planSubQuery, rawBuckets, type RollupTier, type SubQueryPlan } from './plan.ts';
import { batchedReads, type MetricReads, type SeriesReads } from './read-batch.ts';
import { tagSetKey, type PointBudget, type TaggedPoints } from './series-store.ts';
import type { ResultSeries, SeriesInput, SubQuery, TagFilter, TsdbQuery } from './types.ts';

/** A series as the catalog shows it: its tags include the id under the id tag key. */
export interface CatalogSeries {
  readonly metric: string;
  readonly id: string;
  readonly tags: Readonly<Record<string, string>>;
}

/** What a query needs of the series catalog (src/catalog/series-index.ts SeriesIndex fits). */
export interface SeriesCatalog {
  lookup(metric: string | undefined, filters: readonly TagFilter[], limit?: number): { readonly series: readonly CatalogSeries[]; readonly total: number };
  metrics(prefix?: string, max?: number): string[];
  tagKeys(prefix?: string, max?: number): string[];
  tagValues(prefix?: string, max?: number): string[];
}

export interface QueryLimits {
  readonly maxSeries: number;
  readonly maxPoints: number;
  /** series read at once */
  readonly concurrency: number;
}

export interface ExecuteDeps {
  readonly catalog: SeriesCatalog;
  readonly reads: SeriesReads;
  readonly tier: RollupTier | undefined;
  readonly idTagKey: string;
  readonly limits: QueryLimits;
  readonly now: () => number;
  /** aborted at the query's deadline: reads stop, the query fails */
  readonly signal: AbortSignal;
  /** whole-number values take OpenTSDB's integer arithmetic (compute.ts ComputeOptions) */
  readonly integerValues: boolean;
}

export interface SubQueryAnswer {
  readonly sub: SubQuery;
  readonly plan: SubQueryPlan;
  readonly results: readonly ResultSeries[];
  /** series matched in the catalog */
  readonly series: number;
  /** raw points read (summary windows are not counted) */
  readonly points: number;
  /** rollup plans: downsample buckets answered from raw points because their windows were not summarised for good */
  readonly rawBuckets: number;
  /** rollup plans: of the buckets read raw, those the data table no longer holds whole (its TTL): answered with what is left */
  readonly expiredBuckets: number;
}

function has(list: readonly string[], name: string): boolean {
  return list[0] === name;
}

/** OpenTSDB's 400 for a name it has no UID for ("No such name for 'tagv': 'x'"). */
function checkNames(sub: SubQuery, catalog: SeriesCatalog): void {
  const field = `queries[${sub.index}]`;
  if (!has(catalog.metrics(sub.metric, 1), sub.metric)) throw badQuery(`${field}.metric`, `No such name for 'metrics': '${sub.metric}'`);
  for (const f of sub.filters) {
    if (!has(catalog.tagKeys(f.tagk, 1), f.tagk)) throw badQuery(`${field}.filters`, `No such name for 'tagk': '${f.tagk}'`);
    if (f.type !== 'literal_or') continue;
    for (const v of f.filter.split('|')) {
      if (v !== '' && !has(catalog.tagValues(v, 1), v)) throw badQuery(`${field}.filters`, `No such name for 'tagv': '${v}'`);
    }
  }
}

function limitError(what: string, n: number, max: number, key: string): TsdbQueryError {
  return badQuery(key, `Sorry, this query ${what} ${n}, more than the limit of ${max} (${key}). Please try filtering using more tags or decrease your time range.`);
}

/** The series of a sub-query: the catalog's matches, only those with exactly the filtered keys with explicitTags. */
function seriesOf(sub: SubQuery, deps: ExecuteDeps): CatalogSeries[] {
  const { series, total } = deps.catalog.lookup(sub.metric, sub.filters, deps.limits.maxSeries + 1);
  if (total > deps.limits.maxSeries) throw limitError('matches series:', total, deps.limits.maxSeries, 'series.maxSeries');
  if (!sub.explicitTags) return [...series];
  const keys = new Set(sub.filters.map((f) => f.tagk));
  return series.filter((s) => Object.keys(s.tags).length === keys.size && Object.keys(s.tags).every((k) => keys.has(k)));
}

class Budget implements PointBudget {
  #used = 0;
  readonly #max: number;
  readonly #signal: AbortSignal;

  constructor(max: number, signal: AbortSignal) {
    this.#max = max;
    this.#signal = signal;
  }

  take(n: number): void {
    this.#used += n;
    if (this.#used > this.#max) throw limitError('reads more points than that:', this.#used, this.#max, 'series.maxPoints');
    if (this.#signal.aborted) throw aborted(this.#signal);
  }
}

/** The series of one id under one sub-query: its catalog series, keyed by tag set. */
function byId(series: readonly CatalogSeries[], idTagKey: string): Map<string, Map<string, CatalogSeries>> {
  const out = new Map<string, Map<string, CatalogSeries>>();
  for (const s of series) {
    let sets = out.get(s.id);
    if (sets === undefined) out.set(s.id, (sets = new Map<string, CatalogSeries>()));
    sets.set(tagSetKey(s.tags, idTagKey), s);
  }
  return out;
}

/** Inputs collected as reads finish, put back in catalog order (an answer must not depend on timing). */
class Inputs {
  readonly #order: ReadonlyMap<CatalogSeries, number>;
  readonly #got: { n: number; input: SeriesInput }[] = [];

  constructor(series: readonly CatalogSeries[]) {
    this.#order = new Map(series.map((s, n) => [s, n]));
  }

  add(s: CatalogSeries, input: SeriesInput): void {
    this.#got.push({ n: this.#order.get(s) ?? 0, input });
  }

  ordered(): SeriesInput[] {
    return this.#got.sort((a, b) => a.n - b.n).map((g) => g.input);
  }
}

type IdSeries = ReadonlyMap<string, ReadonlyMap<string, CatalogSeries>>;

/** What one sub-query read: its series' inputs, raw points read, buckets a rollup plan took from raw points. */
interface SubQueryReads {
  readonly inputs: Inputs;
  points: number;
  rawBuckets: number;
  expiredBuckets: number;
}

async function readRaw(sub: SubQuery, scan: { startMs: number; endMs: number }, ids: IdSeries, reads: MetricReads, out: SubQueryReads): Promise<void> {
  const found = await reads.rawPointsOf([...ids.keys()], sub.metric, scan.startMs, scan.endMs);
  for (const [id, sets] of ids) {
    for (const points of found.get(id)?.values() ?? []) out.points += points.ts.length;
    for (const [key, s] of sets) {
      const points = found.get(id)?.get(key);
      if (points !== undefined && points.ts.length > 0) out.inputs.add(s, { kind: 'raw', tags: s.tags, ts: points.ts, values: points.values });
    }
  }
}

/** One id's bucket values: from its summaries where summarised for good, from its raw points (`points`) in the `raw` buckets. */
function idBuckets(sub: SubQuery, plan: Extract<SubQueryPlan, { path: 'rollup' }>, summaries: readonly WindowSummary[], raw: ReadonlySet<number>, points: readonly TaggedPoints[]): { ts: number[]; values: number[] } {
  const ds = sub.downsample as NonNullable<SubQuery['downsample']>;
  const { scan, intervalMs } = plan;
  const windows = summaries.filter((w) => w.startMs >= scan.startMs && w.startMs < scan.endMs && !raw.has(w.startMs - (w.startMs % intervalMs)));
  const fromSummaries = bucketsFromSummaries(windows, intervalMs, ds.aggregator);
  const buckets = new Map<number, number>(fromSummaries.ts.map((t, i) => [t, fromSummaries.values[i] as number]));
  const run = getAggregator(ds.aggregator).run;
  // One series for this id (ids with several tag sets are read raw): bucket its points.
  for (const p of points) {
    let i = 0;
    while (i < p.ts.length) {
      const start = (p.ts[i] as number) - ((p.ts[i] as number) % intervalMs);
      const values: number[] = [];
      while (i < p.ts.length && (p.ts[i] as number) < start + intervalMs) values.push(p.values[i++] as number);
      if (raw.has(start)) buckets.set(start, run(values));
    }
  }
  const ts = [...buckets.keys()].sort((a, b) => a - b);
  return { ts, values: ts.map((t) => buckets.get(t) as number) };
}

/** The raw points of each id's unsummarised buckets: ids sharing a range are read together (and with other sub-queries' alike). */
async function rawOfBuckets(sub: SubQuery, plan: Extract<SubQueryPlan, { path: 'rollup' }>, raw: ReadonlyMap<string, ReadonlySet<number>>, reads: MetricReads, out: SubQueryReads): Promise<Map<string, TaggedPoints[]>> {
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
  const found = await Promise.all([...byRange.values()].map((g) => reads.rawPointsOf(g.ids, sub.metric, g.from, g.to)));
  for (const byId of found) {
    for (const [id, sets] of byId) {
      for (const p of sets.values()) out.points += p.ts.length;
      points.set(id, [...(points.get(id) ?? []), ...sets.values()]);
    }
  }
  return points;
}

/** A rollup plan's reads. */
async function readRollup(sub: SubQuery, plan: Extract<SubQueryPlan, { path: 'rollup' }>, ids: IdSeries, deps: ExecuteDeps, reads: MetricReads, out: SubQueryReads): Promise<void> {
  const tier = deps.tier as RollupTier;
  // An id whose metric has several tag sets has summaries that mix them: read it raw.
  const mixed = new Map<string, ReadonlyMap<string, CatalogSeries>>();
  const single: [string, CatalogSeries][] = [];
  for (const [id, sets] of ids) {
    const all = deps.catalog.lookup(sub.metric, [{ type: 'literal_or', tagk: deps.idTagKey, filter: id, groupBy: false }], 0).total;
    const only = [...sets.values()][0];
    if (all === 1 && sets.size === 1 && only !== undefined) single.push([id, only]);
    else mixed.set(id, sets);
  }
  const singleIds = single.map(([id]) => id);
  const now = deps.now();
  // Buckets raw whatever the markers say (open, not wholly in range, expired) are read at once,
  // beside the markers and summaries; the buckets that markers add, after.
  const always = rawBuckets(plan, tier, [], now);
  out.expiredBuckets = expiredRawBuckets(always, tier, now);
  const [, marked, summaries, early] = await Promise.all([
    mixed.size > 0 ? readRaw(sub, plan.scan, mixed, reads, out) : undefined,
    reads.markedWindows(singleIds, markerSizes(tier, plan.windowMs), plan.scan.startMs, plan.scan.endMs),
    reads.summariesOf(singleIds, sub.metric, plan.windowMs, plan.scan.startMs, plan.scan.endMs),
    rawOfBuckets(sub, plan, new Map(singleIds.map((id) => [id, always])), reads, out),
  ]);
  const raw = new Map(singleIds.map((id) => [id, rawBuckets(plan, tier, marked.get(id) ?? [], now)]));
  const late = await rawOfBuckets(sub, plan, new Map(singleIds.map((id) => [id, difference(raw.get(id) as Set<number>, always)])), reads, out);
  const points = new Map([...early, ...late].map(([id]) => [id, [...(early.get(id) ?? []), ...(late.get(id) ?? [])]]));
  for (const [id, s] of single) {
    const dirty = raw.get(id) ?? new Set<number>();
    out.rawBuckets += dirty.size;
    const b = idBuckets(sub, plan, summaries.get(id) ?? [], dirty, points.get(id) ?? []);
    if (b.ts.length > 0) out.inputs.add(s, { kind: 'buckets', tags: s.tags, ts: b.ts, values: b.values });
  }
}

function difference(a: ReadonlySet<number>, b: ReadonlySet<number>): Set<number> {
  return new Set([...a].filter((x) => !b.has(x)));
}

function aborted(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('query deadline');
}

/** Answers every sub-query (names checked first, then series, reads and computation), in order. */
export async function executeQuery(q: TsdbQuery, deps: ExecuteDeps): Promise<SubQueryAnswer[]> {
  for (const sub of q.queries) checkNames(sub, deps.catalog);
  const matched = q.queries.map((sub) => seriesOf(sub, deps));
  const reads = batchedReads(deps.reads, new Budget(deps.limits.maxPoints, deps.signal), deps.limits.concurrency);
  const read = await Promise.all(q.queries.map(async (sub, i) => {
    const series = matched[i] as CatalogSeries[];
    const plan = planSubQuery(sub, q, deps.tier, deps.now());
    const ids = byId(series, deps.idTagKey);
    const got: SubQueryReads = { inputs: new Inputs(series), points: 0, rawBuckets: 0, expiredBuckets: 0 };
    if (plan.path === 'raw') await readRaw(sub, plan.scan, ids, reads, got);
    else await readRollup(sub, plan, ids, deps, reads, got);
    return { plan, got };
  }));
  if (deps.signal.aborted) throw aborted(deps.signal);
  return q.queries.map((sub, i) => {
    const { plan, got } = read[i] as (typeof read)[number];
    const results = computeSubQuery(sub, q, got.inputs.ordered(), { integerValues: deps.integerValues });
    return { sub, plan, results, series: (matched[i] as CatalogSeries[]).length, points: got.points, rawBuckets: got.rawBuckets, expiredBuckets: got.expiredBuckets };
  });
}
