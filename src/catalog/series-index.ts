// Pure: the series catalog in memory, for /api/suggest, /api/search/lookup and the query planner
// (OpenTSDB 2.4's filter semantics: src/series-language/filters.ts).
// Design notes: docs/DECISIONS.md#the-catalog-in-memory
import { compareCodePoints } from '../events/cells.ts';
import { matches, type TagFilter } from '../series-language/index.ts';
import { runAtOnce } from '../series-compute/steps.ts';
import { runSliced, type Slices } from '../toolkit/slices.ts';
import { buildViews, mergeViews, positionOf, type Entry, type IndexedSeries, type Views } from './series-views.ts';
import { canonicalTags, type Series } from './rows.ts';

/** OpenTSDB's default `max` of /api/suggest. */
export const DEFAULT_SUGGEST_MAX = 25;

/** Series tested (times filters) between two yields of a sliced look-up. */
const STEP_WORK = 1024;

/**
 * Series added since the views were built that are merged into them (mergeViews, in one go: linear in
 * the catalog, 20–50 ms at 100k series with up to a few hundred added, 50–73 ms with 1,000) rather
 * than rebuilt in slices (about 0.4 s of work); more than this, or more than an eighth of the catalog,
 * and the views are rebuilt in slices.
 */
const MERGE_MAX = 256;

export type { IndexedSeries } from './series-views.ts';

export interface LookupResult {
  /** the first `limit` matches, ordered by metric, id, tags (code point order) */
  readonly series: readonly IndexedSeries[];
  /** every match */
  readonly total: number;
}

function suggestFrom(sorted: readonly string[], prefix: string, max: number): string[] {
  const out: string[] = [];
  for (let i = positionOf(sorted, prefix); i < sorted.length && out.length < max; i++) {
    const name = sorted[i] as string;
    if (!name.startsWith(prefix)) break;
    out.push(name);
  }
  return out;
}

/** Where refresh() reads the catalog from (CatalogStore fits). */
export interface SeriesSource {
  /** every series; with `sinceMs`, those written at or after it (store.ts) */
  read(metric?: undefined, sinceMs?: number): Promise<{ readonly series: readonly Series[] }>;
}

export interface SeriesIndexOptions {
  readonly idTagKey: string;
  readonly source?: SeriesSource | undefined;
}

export class SeriesIndex {
  readonly #idTagKey: string;
  readonly #source: SeriesSource | undefined;
  /** identity (metric ‖ 0 ‖ id ‖ 0 ‖ json) → entry */
  #entries = new Map<string, Entry>();
  #views: Views | undefined;
  /** entries added since #views were built (merged into them when next read) */
  #added: Entry[] = [];
  /** counts every change of the content (a rebuild in slices installs its views only if none came meanwhile) */
  #changes = 0;
  #version = 0;

  constructor(options: SeriesIndexOptions) {
    this.#idTagKey = options.idTagKey;
    this.#source = options.source;
  }

  /** Reads the whole catalog again and replaces the content with it; resolves to the series count. */
  async refresh(): Promise<number> {
    if (this.#source === undefined) throw new Error('this SeriesIndex has no source to refresh from');
    const { series } = await this.#source.read();
    this.replace(series);
    return this.size;
  }

  /** Adds the series written at or after `sinceMs` (a cheap reread of what is new); resolves to how many were new. */
  async refreshSince(sinceMs: number): Promise<number> {
    if (this.#source === undefined) throw new Error('this SeriesIndex has no source to refresh from');
    const { series } = await this.#source.read(undefined, sinceMs);
    let added = 0;
    for (const s of series) if (this.add(s)) added++;
    return added;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Changes whenever the content may have: a series added, or the whole content replaced. */
  get version(): number {
    return this.#version;
  }

  /** Adds a series (the local write path, a refresh); false when it was already there. */
  add(s: Series): boolean {
    const json = canonicalTags(s.tags).toString('utf8');
    const key = `${s.metric}\u0000${s.id}\u0000${json}`;
    if (this.#entries.has(key)) return false;
    const e: Entry = { metric: s.metric, id: s.id, tags: s.tags, json, ord: 0 };
    this.#entries.set(key, e);
    if (this.#views !== undefined && this.#added.length < MERGE_MAX && this.#added.length * 8 < this.#entries.size) this.#added.push(e);
    else this.#stale();
    this.#changes++;
    this.#version++;
    return true;
  }

  /** Replaces the whole content (a refresh: the catalog as read just now). */
  replace(series: Iterable<Series>): void {
    const old = { entries: this.#entries, views: this.#views, added: this.#added, version: this.#version };
    this.#entries = new Map();
    this.#stale();
    for (const s of series) this.add(s);
    // the same series as before (the periodic whole reread, mostly): the same content, the same version
    if (this.#entries.size === old.entries.size && [...this.#entries.keys()].every((k) => old.entries.has(k))) {
      this.#entries = old.entries;
      this.#views = old.views;
      this.#added = old.added;
      this.#version = old.version;
      return;
    }
    this.#version = old.version + 1;
  }

  /** Metric names starting with `prefix`, sorted, at most `max`. */
  metrics(prefix = '', max = DEFAULT_SUGGEST_MAX): string[] {
    return suggestFrom(this.#view().metrics, prefix, max);
  }

  /** Tag keys (idTagKey among them) starting with `prefix`, sorted, at most `max`. */
  tagKeys(prefix = '', max = DEFAULT_SUGGEST_MAX): string[] {
    return suggestFrom(this.#view().tagKeys, prefix, max);
  }

  /** Tag values of any key (ids among them) starting with `prefix`, sorted, at most `max`. */
  tagValues(prefix = '', max = DEFAULT_SUGGEST_MAX): string[] {
    return suggestFrom(this.#view().tagValues, prefix, max);
  }

  /**
   * The series of `metric` (undefined: of every metric) that every filter matches (OpenTSDB's
   * match(): a series without the filter's tag key fails literal, wildcard and regexp filters and
   * passes not_ ones; `wildcard(*)` = any value of that key), the first `limit` in order.
   */
  lookup(metric: string | undefined, filters: readonly TagFilter[], limit = Number.POSITIVE_INFINITY): LookupResult {
    return runAtOnce(this.#lookupSteps(metric, filters, limit));
  }

  /**
   * lookup() in slices of the event loop (src/toolkit/slices.ts): a regexp or wildcard over every series of
   * a metric is one test per series, and a request must not hold the loop for all of them at once.
   * Rejects with the slices' signal's reason once it aborts.
   */
  lookupSliced(metric: string | undefined, filters: readonly TagFilter[], limit: number, slices: Slices): Promise<LookupResult> {
    return runSliced(this.#lookupSteps(metric, filters, limit), slices);
  }

  *#lookupSteps(metric: string | undefined, filters: readonly TagFilter[], limit: number): Generator<void, LookupResult> {
    const v = this.#view();
    let candidates: readonly Entry[] = metric === undefined ? v.all : (v.byMetric.get(metric) ?? []);
    let sorted = true;
    for (const f of filters) {
      if (f.type !== 'literal_or') continue;
      const values = v.postings.get(f.tagk);
      // a superset of the filter's literals (Java's split drops trailing empties; matches() decides)
      const lists = [...new Set(f.filter.split('|'))].map((value) => values?.get(value) ?? []);
      const n = lists.reduce((s, l) => s + l.length, 0);
      if (n < candidates.length) {
        candidates = lists.length === 1 ? (lists[0] as readonly Entry[]) : lists.flat();
        sorted = lists.length === 1;
      }
    }
    const matched: Entry[] = [];
    let work = 0;
    for (const e of candidates) {
      if ((work += filters.length + 1) >= STEP_WORK) {
        work = 0;
        yield;
      }
      if (metric !== undefined && e.metric !== metric) continue;
      if (filters.every((f) => matches(f, this.#valueOf(e, f.tagk)))) matched.push(e);
    }
    if (!sorted) matched.sort((a, b) => a.ord - b.ord);
    const series: IndexedSeries[] = [];
    for (const e of matched.slice(0, Math.max(0, limit))) {
      series.push(this.#shown(e));
      if (series.length % STEP_WORK === 0) yield;
    }
    return { series, total: matched.length };
  }

  /** How many series (tag sets) of `metric` the id has: what the planner asks of every id (one posting list, no filter). */
  seriesOfId(metric: string, id: string): number {
    let n = 0;
    for (const e of this.#view().postings.get(this.#idTagKey)?.get(id) ?? []) if (e.metric === metric) n++;
    return n;
  }

  #valueOf(e: Entry, tagk: string): string | undefined {
    if (tagk === this.#idTagKey) return e.id;
    return Object.hasOwn(e.tags, tagk) ? e.tags[tagk] : undefined;
  }

  /**
   * The series with the id under idTagKey; tag keys in code point order. Made once per entry and kept on
   * it, frozen (every look-up of a dashboard's refresh matches the same thousands of series: a new
   * object with its keys sorted for each was an eighth of the query process's allocations).
   */
  #shown(e: Entry): IndexedSeries {
    e.shown ??= this.#show(e);
    return e.shown;
  }

  #show(e: Entry): IndexedSeries {
    const keys = Object.keys(e.tags);
    if (!Object.hasOwn(e.tags, this.#idTagKey)) keys.push(this.#idTagKey);
    // fromEntries: own properties, also for a tag named __proto__
    const tags = Object.freeze(Object.fromEntries(keys.sort(compareCodePoints).map((k) => [k, k === this.#idTagKey ? e.id : (e.tags[k] as string)])));
    return Object.freeze({ metric: e.metric, id: e.id, tags });
  }

  /** The views are to be built again (not merged): the content changed more than added() can say. */
  #stale(): void {
    this.#views = undefined;
    this.#added = [];
    this.#changes++;
  }

  #view(): Views {
    if (this.#views !== undefined && this.#added.length > 0) {
      this.#views = mergeViews(this.#views, this.#added, this.#idTagKey);
      this.#added = [];
    }
    this.#views ??= runAtOnce(buildViews([...this.#entries.values()], this.#idTagKey, false));
    return this.#views;
  }

  /**
   * Rebuilds the sorted views, when a change made them stale, in slices of the event loop (the read
   * side calls it before answering: LiveIndex.ready), so the next read finds them built. A change
   * during the rebuild leaves them stale (the next read or prepare builds them again).
   */
  async prepare(slices: Slices): Promise<void> {
    if (this.#views !== undefined) {
      this.#view(); // a few series added: merged at once
      return;
    }
    const changes = this.#changes;
    const views = await runSliced(buildViews([...this.#entries.values()], this.#idTagKey, true), slices);
    if (this.#changes === changes) this.#views ??= views;
  }
}
