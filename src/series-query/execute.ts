// Runs a parsed /api/query: per sub-query the catalog's series, the planner's path, the reads and
// OpenTSDB 2.4.1's computation; every sub-query is answered before anything is sent.
// Design notes: docs/DECISIONS.md#running-a-query
import { checkEmitted, checkSubQueries, DEFAULT_MAX_SUB_QUERIES, limitError } from './bounds.ts';
import { computeSteps } from '../series-compute/compute.ts';
import { badQuery } from '../series-language/errors.ts';
import { answerKey, probeKept, type AnswerMemo, type KeptAnswer, type ProbeReads } from './answer-memo.ts';
import { planSubQuery, rawBuckets, type RollupTier, type SubQueryPlan } from './plan.ts';
import { coalescedReads, type MetricReads } from './coalesce-reads.ts';
import type { SeriesReads } from './series-reads.ts';
import { readRaw, readTiled, type FoldAll } from './read-points.ts';
import { isRollupAggregator } from '../series-compute/rollup-exact.ts';
import { readRollup } from './read-summaries.ts';
import { tagSetKey, type PointBudget } from '../series-data/points.ts';
import type { PhaseClock } from './phase-clock.ts';
import { runSliced, Slices } from '../toolkit/slices.ts';
import { weighed, type RequestWeight } from './request-weight.ts';
import { addCounts, FOUND_NOTHING, inCatalogOrder, type CatalogSeries, type Found, type IdSeries, type ReadCounts } from './sub-query-reads.ts';
import type { ResultSeries, SubQuery, TagFilter, TsdbQuery } from '../series-language/types.ts';

export type { CatalogSeries, ReadCounts } from './sub-query-reads.ts';

/** What a query needs of the series catalog (src/catalog/series-index.ts SeriesIndex fits). */
export interface SeriesCatalog {
  /** changes whenever the series it holds change (the answer memo's key: answer-memo.ts) */
  readonly version: number;
  lookup(metric: string | undefined, filters: readonly TagFilter[], limit?: number): { readonly series: readonly CatalogSeries[]; readonly total: number };
  /** lookup() in slices of the event loop */
  lookupSliced(
    metric: string | undefined,
    filters: readonly TagFilter[],
    limit: number,
    slices: Slices,
  ): Promise<{ readonly series: readonly CatalogSeries[]; readonly total: number }>;
  /** how many series (tag sets) of `metric` the id has */
  seriesOfId(metric: string, id: string): number;
  metrics(prefix?: string, max?: number): string[];
  tagKeys(prefix?: string, max?: number): string[];
  tagValues(prefix?: string, max?: number): string[];
}

export interface QueryLimits {
  readonly maxSeries: number;
  /** points read, and points the downsamplers would emit (bounds.ts) */
  readonly maxPoints: number;
  /** sub-queries of one request (default DEFAULT_MAX_SUB_QUERIES) */
  readonly maxSubQueries?: number | undefined;
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
  /** where the request's time goes: lookup, recall, read, compute (phase-clock.ts) */
  readonly clock?: PhaseClock | undefined;
  /** the answer memo and the reads of its probe (answer-memo.ts); none: every answer is computed */
  readonly memo?: { readonly answers: AnswerMemo<ReadCounts>; readonly probe: ProbeReads } | undefined;
}

export interface SubQueryAnswer {
  readonly sub: SubQuery;
  readonly plan: SubQueryPlan;
  readonly results: readonly ResultSeries[];
  /** series matched in the catalog */
  readonly series: number;
  /** what the reads took where: points, raw buckets, blocks, packs */
  readonly reads: ReadCounts;
  /** given again by the answer memo after its probe (answer-memo.ts), not computed */
  readonly memo: boolean;
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

/** The series of a sub-query: the catalog's matches, only those with exactly the filtered keys with explicitTags. */
async function seriesOf(sub: SubQuery, deps: ExecuteDeps, slices: Slices): Promise<CatalogSeries[]> {
  const { series, total } = await deps.catalog.lookupSliced(sub.metric, sub.filters, deps.limits.maxSeries + 1, slices);
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

/**
 * The ids whose metric has one series (one tag set) in the catalog, which window summaries and point
 * blocks answer (they do not tell series apart), and the others, read raw.
 */
function splitBySeries(
  metric: string,
  ids: IdSeries,
  catalog: SeriesCatalog,
): { single: [string, CatalogSeries][]; mixed: Map<string, ReadonlyMap<string, CatalogSeries>> } {
  const single: [string, CatalogSeries][] = [];
  const mixed = new Map<string, ReadonlyMap<string, CatalogSeries>>();
  for (const [id, sets] of ids) {
    const only = sets.size === 1 ? sets.values().next().value : undefined;
    if (only !== undefined && catalog.seriesOfId(metric, id) === 1) single.push([id, only]);
    else mixed.set(id, sets);
  }
  return { single, mixed };
}

/**
 * A `0all` downsample (fill none) whose aggregator window summaries answer: its one bucket [start, end)
 * folded from summaries of the windows inside it, summarised for good, and raw points elsewhere
 * (read-points.ts readTiled with a fold).
 */
function foldAllOf(sub: SubQuery, range: { readonly startMs: number }): FoldAll | undefined {
  const ds = sub.downsample;
  if (ds === undefined || !ds.all || ds.fill !== 'none' || !isRollupAggregator(ds.aggregator)) return undefined;
  return { aggregator: ds.aggregator, stampMs: range.startMs };
}

interface SubQueryRead {
  readonly sub: SubQuery;
  /** the query's */
  readonly range: { readonly startMs: number; readonly endMs: number };
  readonly plan: SubQueryPlan;
  readonly ids: IdSeries;
  readonly deps: ExecuteDeps;
  readonly reads: MetricReads;
  readonly budget: PointBudget;
}

/** One sub-query's reads, by its plan: what they found. */
async function readSubQuery(o: SubQueryRead): Promise<Found> {
  const { sub, range, plan, ids, deps, reads, budget } = o;
  const tier = deps.tier;
  const fold = plan.path === 'raw' && tier !== undefined ? foldAllOf(sub, range) : undefined;
  const useBlocks = plan.path === 'raw' && (tier?.blocks === true || fold !== undefined);
  const read = { metric: sub.metric, reads, budget };
  if (tier === undefined || (plan.path === 'raw' && !useBlocks)) return readRaw({ ...read, scan: plan.scan, ids });
  const { single, mixed } = splitBySeries(sub.metric, ids, deps.catalog);
  const now = deps.now();
  const [ofMixed, ofSingle] = await Promise.all([
    mixed.size > 0 ? readRaw({ ...read, scan: plan.scan, ids: mixed }) : FOUND_NOTHING,
    plan.path === 'raw'
      ? fold === undefined
        ? readTiled({ ...read, scan: plan.scan, single, tier, idTagKey: deps.idTagKey, now })
        : readTiled({ ...read, scan: range, single, tier, idTagKey: deps.idTagKey, now, fold })
      : readRollup({ ...read, ds: sub.downsample as NonNullable<SubQuery['downsample']>, plan, single, tier, now }),
  ]);
  return {
    inputs: [...ofMixed.inputs, ...ofSingle.inputs],
    counts: addCounts([ofMixed.counts, ofSingle.counts]),
    // the answer memo keeps an answer from stored windows alone: none with an id read raw
    fromWindows: mixed.size > 0 ? undefined : ofSingle.fromWindows,
  };
}

function aborted(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('query deadline');
}

/**
 * `p`, or a rejection as soon as `signal` aborts: a read waiting on a gateway that does not answer
 * must not hold the answer past the deadline. Scans still running stop at their next row (the
 * budget's check) or when their request's own deadline ends it.
 */
function untilAborted<T>(signal: AbortSignal, p: Promise<T>): Promise<T> {
  if (signal.aborted) return Promise.reject(aborted(signal));
  return new Promise<T>((resolve, reject) => {
    const stop = (): void => {
      reject(aborted(signal));
    };
    signal.addEventListener('abort', stop, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', stop);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', stop);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

/** The kept answers that still hold, per sub-query (answer-memo.ts): rollup plans that read no bucket raw now, probed together. */
async function recall(
  q: TsdbQuery,
  plans: readonly SubQueryPlan[],
  deps: ExecuteDeps,
  at: { readonly budget: Budget; readonly now: number },
): Promise<(KeptAnswer<ReadCounts> | undefined)[]> {
  const { budget, now } = at;
  const { memo, tier } = deps;
  if (memo === undefined || tier === undefined) return plans.map(() => undefined);
  const found = q.queries.map((sub, i) => {
    const plan = plans[i] as SubQueryPlan;
    if (plan.path !== 'rollup' || rawBuckets(plan, tier, [], now).size > 0) return undefined;
    return memo.answers.get(answerKey(sub, q, plan, deps.catalog.version), now);
  });
  const ok = await probeKept(found, memo.probe, budget, deps.limits.concurrency);
  return found.map((k, i) => (ok[i] === true ? k : undefined));
}

/**
 * Before the catalog's reread of what is new (series.catalogFreshMs): a query that the series the
 * catalog already holds put over series.maxSeries or series.maxPoints is refused now, with nothing
 * read from HBase; a reread only adds series, so the query could only be refused after it too.
 * Metrics the catalog does not know yet are left to the reread (and to checkNames after it).
 */
export async function refuseEarly(q: TsdbQuery, deps: ExecuteDeps): Promise<void> {
  const slices = new Slices({ signal: deps.signal });
  const counts: number[] = [];
  for (const sub of q.queries) counts.push(has(deps.catalog.metrics(sub.metric, 1), sub.metric) ? (await seriesOf(sub, deps, slices)).length : 0);
  checkEmitted(q, counts, deps.limits.maxPoints);
}

/**
 * Answers every sub-query (names checked first, then series, reads and computation), in order; kept
 * answers that still hold are given again. One weighed request (request-weight.ts): its HBase calls
 * carry the series it matched.
 */
export function executeQuery(q: TsdbQuery, deps: ExecuteDeps): Promise<SubQueryAnswer[]> {
  return weighed((w) => answerQuery(q, deps, w));
}

async function answerQuery(q: TsdbQuery, deps: ExecuteDeps, weight: RequestWeight): Promise<SubQueryAnswer[]> {
  checkSubQueries(q, deps.limits.maxSubQueries ?? DEFAULT_MAX_SUB_QUERIES);
  for (const sub of q.queries) checkNames(sub, deps.catalog);
  const slices = new Slices({ signal: deps.signal });
  const clock = deps.clock;
  clock?.enter('lookup');
  const matched: CatalogSeries[][] = [];
  for (const sub of q.queries) matched.push(await seriesOf(sub, deps, slices));
  // lighter queries resume first at each pause (slices.ts) and their HBase calls go first (the read
  // client's gate, request-weight.ts): the weight is the series matched
  slices.weight = matched.reduce((n, m) => n + m.length, 0);
  weight.weight = slices.weight;
  // what the downsamplers would emit, refused before anything is read
  checkEmitted(
    q,
    matched.map((m) => m.length),
    deps.limits.maxPoints,
  );
  const now = deps.now();
  const plans = q.queries.map((sub) => planSubQuery(sub, q, deps.tier, now));
  const budget = new Budget(deps.limits.maxPoints, deps.signal);
  clock?.enter('recall');
  const kept = await untilAborted(deps.signal, recall(q, plans, deps, { budget, now }));
  clock?.enter('read');
  const version = deps.catalog.version;
  const reads = coalescedReads(deps.reads, budget, deps.limits.concurrency);
  const read = await untilAborted(
    deps.signal,
    Promise.all(
      q.queries.map(async (sub, i) =>
        kept[i] === undefined
          ? readSubQuery({ sub, range: q, plan: plans[i] as SubQueryPlan, ids: byId(matched[i] as CatalogSeries[], deps.idTagKey), deps, reads, budget })
          : undefined,
      ),
    ),
  );
  if (deps.signal.aborted) throw aborted(deps.signal);
  clock?.enter('compute');
  const answers: SubQueryAnswer[] = [];
  for (const [i, sub] of q.queries.entries()) {
    const plan = plans[i] as SubQueryPlan;
    const k = kept[i];
    if (k !== undefined) {
      answers.push({ sub, plan, results: k.results, series: k.series, reads: k.counts, memo: true });
      continue;
    }
    const got = read[i] as Found;
    const inputs = inCatalogOrder(matched[i] as CatalogSeries[], got.inputs);
    const results = await runSliced(computeSteps(sub, q, inputs, { integerValues: deps.integerValues }), slices);
    const counts = addCounts([got.counts]);
    const series = (matched[i] as CatalogSeries[]).length;
    const w = got.fromWindows;
    if (deps.memo !== undefined && w !== undefined) {
      deps.memo.answers.keep(answerKey(sub, q, plan, version), { ids: w.ids, gens: w.gens, marks: w.marks, results, series, counts, at: now });
    }
    answers.push({ sub, plan, results, series, reads: counts, memo: false });
  }
  clock?.stop();
  return answers;
}
