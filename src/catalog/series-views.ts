// Pure: the sorted views of the series catalog in memory (series-index.ts): every series in order,
// by metric, the postings per tag key and value, and the sorted names suggest searches. Built as
// steps (a generator that yields about every STEP items), so the read side can rebuild them in slices
// of the event loop (src/toolkit/slices.ts) after the catalog changed: in one go, 100k series held the
// loop about 300 ms on the first read after every change (issue 37).
import { compareCodePoints } from '../events/cells.ts';

export interface Entry {
  readonly metric: string;
  readonly id: string;
  readonly tags: Readonly<Record<string, string>>;
  /** the canonical tags JSON: identity and order within (metric, id) */
  readonly json: string;
  /** position in the sorted order (set by the rebuild) */
  ord: number;
  /** the series as look-ups show it, made at the first that matches it (series-index.ts #shown) */
  shown?: IndexedSeries;
}

/** A series as the API shows it: its tags include the id under idTagKey. */
export interface IndexedSeries {
  readonly metric: string;
  readonly id: string;
  readonly tags: Readonly<Record<string, string>>;
}

export interface Views {
  readonly all: readonly Entry[];
  readonly byMetric: ReadonlyMap<string, readonly Entry[]>;
  /** tag key (idTagKey included) → value → series, each list in ord order */
  readonly postings: ReadonlyMap<string, ReadonlyMap<string, readonly Entry[]>>;
  readonly metrics: readonly string[];
  readonly tagKeys: readonly string[];
  readonly tagValues: readonly string[];
}

/** Items between two yields. */
const STEP = 2048;

export function compareEntries(a: Entry, b: Entry): number {
  return compareCodePoints(a.metric, b.metric) || compareCodePoints(a.id, b.id) || compareCodePoints(a.json, b.json);
}

/** A stable sort in steps: runs of STEP sorted at once, then merged pairwise, yielding every STEP items (`inSteps` false: the native sort, in one go). */
function* sortSteps<T>(items: T[], compare: (a: T, b: T) => number, inSteps: boolean): Generator<void, T[]> {
  if (!inSteps) return items.sort(compare);
  let runs: T[][] = [];
  for (let i = 0; i < items.length; i += STEP) {
    runs.push(items.slice(i, i + STEP).sort(compare));
    yield;
  }
  let work = 0;
  while (runs.length > 1) {
    const next: T[][] = [];
    for (let r = 0; r < runs.length; r += 2) {
      const a = runs[r] as T[];
      const b = runs[r + 1];
      if (b === undefined) {
        next.push(a);
        continue;
      }
      const out = new Array<T>(a.length + b.length);
      let i = 0;
      let j = 0;
      let k = 0;
      while (i < a.length || j < b.length) {
        out[k++] = j >= b.length || (i < a.length && compare(a[i] as T, b[j] as T) <= 0) ? (a[i++] as T) : (b[j++] as T);
        if (++work >= STEP) {
          work = 0;
          yield;
        }
      }
      next.push(out);
    }
    runs = next;
  }
  return runs[0] ?? [];
}

/** `e` into the postings of its id (under idTagKey) and of each of its other tags, at the end of each list. */
function postEntry(postings: Map<string, Map<string, Entry[]>>, e: Entry, idTagKey: string): void {
  const post = (k: string, value: string): void => {
    let values = postings.get(k);
    if (values === undefined) postings.set(k, (values = new Map<string, Entry[]>()));
    const list = values.get(value);
    if (list === undefined) values.set(value, [e]);
    else list.push(e);
  };
  post(idTagKey, e.id);
  for (const [k, value] of Object.entries(e.tags)) if (k !== idTagKey) post(k, value);
}

/** The views of `entries` (an id shown under `idTagKey`), as steps; `inSteps` false: its sorts in one go (the native sort is faster). */
export function* buildViews(entries: readonly Entry[], idTagKey: string, inSteps: boolean): Generator<void, Views> {
  const all = yield* sortSteps([...entries], compareEntries, inSteps);
  const byMetric = new Map<string, Entry[]>();
  const postings = new Map<string, Map<string, Entry[]>>();
  for (let i = 0; i < all.length; i++) {
    const e = all[i] as Entry;
    e.ord = i;
    const list = byMetric.get(e.metric);
    if (list === undefined) byMetric.set(e.metric, [e]);
    else list.push(e);
    postEntry(postings, e, idTagKey);
    if (i % STEP === STEP - 1) yield;
  }
  const values = new Set<string>();
  for (const m of postings.values()) for (const value of m.keys()) values.add(value);
  return {
    all,
    byMetric,
    postings,
    metrics: [...byMetric.keys()].sort(compareCodePoints),
    tagKeys: [...postings.keys()].sort(compareCodePoints),
    tagValues: yield* sortSteps([...values], compareCodePoints, inSteps),
  };
}

/** Where `name` is or would go in `sorted` (code point order): the index of the first name ≥ it. */
export function positionOf(sorted: readonly string[], name: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareCodePoints(sorted[mid] as string, name) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** `sorted` with the names of `extra` it lacks, in code point order (`sorted` itself when none). */
function withNames(sorted: readonly string[], extra: Iterable<string>): readonly string[] {
  const fresh = [...new Set(extra)].filter((n) => sorted[positionOf(sorted, n)] !== n);
  if (fresh.length === 0) return sorted;
  fresh.sort(compareCodePoints);
  const out: string[] = [];
  let i = 0;
  for (const name of fresh) {
    const at = positionOf(sorted, name);
    while (i < at) out.push(sorted[i++] as string);
    out.push(name);
  }
  while (i < sorted.length) out.push(sorted[i++] as string);
  return out;
}

/** Two lists in compareEntries order merged into one (new array): `b`'s entries placed by binary search, `a` copied in runs between them. */
function mergeSorted(a: readonly Entry[], b: readonly Entry[]): Entry[] {
  const parts: Entry[][] = [];
  let i = 0;
  for (const e of b) {
    let lo = i;
    let hi = a.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareEntries(a[mid] as Entry, e) <= 0) lo = mid + 1;
      else hi = mid;
    }
    parts.push(a.slice(i, lo), [e]);
    i = lo;
  }
  parts.push(a.slice(i));
  return ([] as Entry[]).concat(...parts);
}

/**
 * The views of the old entries and `added` (none of them among the old), built from `views` rather
 * than from scratch: `all` merged and renumbered (linear), and only the lists and names the added
 * series touch rebuilt (a catalog reread finds a few new series among many thousand). Old lists,
 * maps and arrays are never changed in place (a sliced look-up may hold them); only the entries'
 * `ord` is renumbered, which keeps the old entries' relative order.
 */
export function mergeViews(views: Views, added: readonly Entry[], idTagKey: string): Views {
  if (added.length === 0) return views;
  const fresh = [...added].sort(compareEntries);
  const all = mergeSorted(views.all, fresh);
  for (let i = 0; i < all.length; i++) (all[i] as Entry).ord = i;
  const byMetric = new Map(views.byMetric);
  const freshByMetric = new Map<string, Entry[]>();
  const freshPostings = new Map<string, Map<string, Entry[]>>();
  for (const e of fresh) {
    const list = freshByMetric.get(e.metric);
    if (list === undefined) freshByMetric.set(e.metric, [e]);
    else list.push(e);
    postEntry(freshPostings, e, idTagKey);
  }
  for (const [m, list] of freshByMetric) byMetric.set(m, mergeSorted(views.byMetric.get(m) ?? [], list));
  // A key's map of values is updated in place (copying the id key's, one value per id, would cost
  // more than the merge): each changed value gets a new list, and a look-up takes its lists before it
  // first yields, so one under way keeps the lists it took.
  const postings = new Map(views.postings) as Map<string, Map<string, readonly Entry[]>>;
  const tagValues: string[] = [];
  for (const [k, byValue] of freshPostings) {
    let values = postings.get(k);
    if (values === undefined) postings.set(k, (values = new Map<string, readonly Entry[]>()));
    for (const [value, list] of byValue) {
      values.set(value, mergeSorted(values.get(value) ?? [], list));
      tagValues.push(value);
    }
  }
  return {
    all,
    byMetric,
    postings,
    metrics: withNames(views.metrics, freshByMetric.keys()),
    tagKeys: withNames(views.tagKeys, freshPostings.keys()),
    tagValues: withNames(views.tagValues, tagValues),
  };
}
