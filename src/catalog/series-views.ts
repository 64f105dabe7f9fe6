// Pure: the sorted views of the series catalog in memory (series-index.ts): every series in order,
// by metric, the postings per tag key and value, and the sorted names suggest searches. Built as
// steps (a generator that yields about every STEP items), so the read side can rebuild them in slices
// of the event loop (src/series-query/slices.ts) after the catalog changed: in one go, 100k series held the
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

/** The views of `entries` (an id shown under `idTagKey`), as steps; `inSteps` false: its sorts in one go (the native sort is faster). */
export function* buildViews(entries: readonly Entry[], idTagKey: string, inSteps: boolean): Generator<void, Views> {
  const all = yield* sortSteps([...entries], compareEntries, inSteps);
  const byMetric = new Map<string, Entry[]>();
  const postings = new Map<string, Map<string, Entry[]>>();
  const post = (k: string, value: string, e: Entry): void => {
    let values = postings.get(k);
    if (values === undefined) postings.set(k, (values = new Map<string, Entry[]>()));
    const list = values.get(value);
    if (list === undefined) values.set(value, [e]);
    else list.push(e);
  };
  for (let i = 0; i < all.length; i++) {
    const e = all[i] as Entry;
    e.ord = i;
    const list = byMetric.get(e.metric);
    if (list === undefined) byMetric.set(e.metric, [e]);
    else list.push(e);
    post(idTagKey, e.id, e);
    for (const [k, value] of Object.entries(e.tags)) if (k !== idTagKey) post(k, value, e);
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
