// The answer memo: a rollup sub-query's answer, given again after one probe of HBase shows that
// nothing it was computed from has changed (docs/SERIES-API.md, "Window cache and answer memo").
// Design notes: docs/DECISIONS.md#answer-memo
import { LruMap } from '../toolkit/lru-map.ts';
import type { PointBudget } from '../series-data/points.ts';
import type { MarkedWindow, MarkSpan } from '../series-data/windows.ts';
import type { SubQueryPlan } from './plan.ts';
import type { ResultSeries, SubQuery, TsdbQuery } from '../series-language/types.ts';

/** What a probe reads (series-store.ts SeriesStore fits). */
export interface ProbeReads {
  generations(): Promise<Map<number, string>>;
  marksOf(ids: readonly string[], marks: MarkSpan, budget: PointBudget, concurrency?: number): Promise<Map<string, MarkedWindow[]>>;
}

/** A kept answer: what it was computed from and what it was. */
export interface KeptAnswer<C> {
  readonly ids: readonly string[];
  /** the generation of each of the ids' buckets, as read before the windows were */
  readonly gens: ReadonlyMap<number, string>;
  readonly marks: MarkSpan;
  readonly results: readonly ResultSeries[];
  readonly series: number;
  readonly counts: C;
  readonly at: number;
}

/** The key of a sub-query's answer: everything its results depend on but the stored data (its position in the request is not). */
export function answerKey(sub: SubQuery, q: TsdbQuery, plan: SubQueryPlan, catalogVersion: number): string {
  const what = { ...sub, index: 0 };
  return JSON.stringify([catalogVersion, q.startMs, q.endMs, q.timezone, q.useCalendar, what, plan]);
}

/** Kept answers, the newest `maxEntries`, each for at most `maxAgeMs`. */
export class AnswerMemo<C> {
  readonly #entries = new LruMap<string, KeptAnswer<C>>();
  readonly #maxEntries: number;
  readonly #maxAgeMs: number;

  constructor(maxEntries: number, maxAgeMs: number) {
    this.#maxEntries = maxEntries;
    this.#maxAgeMs = maxAgeMs;
  }

  get(key: string, now: number): KeptAnswer<C> | undefined {
    const e = this.#entries.peek(key);
    if (e === undefined) return undefined;
    if (now - e.at > this.#maxAgeMs) {
      this.#entries.delete(key);
      return undefined;
    }
    return e;
  }

  keep(key: string, answer: KeptAnswer<C>): void {
    this.#entries.set(key, answer);
    while (this.#entries.size > this.#maxEntries) if (this.#entries.shift() === undefined) break;
  }

  drop(key: string): void {
    this.#entries.delete(key);
  }
}

/**
 * Which kept answers still hold: one marker scan per distinct marker span (the sub-queries of one
 * request share theirs), for the union of their ids, then one generations read.
 */
export async function probeKept<C>(
  kept: readonly (KeptAnswer<C> | undefined)[],
  reads: ProbeReads,
  budget: PointBudget,
  concurrency: number,
): Promise<boolean[]> {
  const live = kept.filter((k): k is KeptAnswer<C> => k !== undefined);
  if (live.length === 0) return kept.map(() => false);
  const spans = new Map<string, { marks: MarkSpan; ids: Set<string> }>();
  for (const k of live) {
    const key = `${k.marks.sizesMs.join(',')}/${k.marks.from}/${k.marks.to}`;
    const group = spans.get(key) ?? { marks: k.marks, ids: new Set<string>() };
    spans.set(key, group);
    for (const id of k.ids) group.ids.add(id);
  }
  // the markers first, then the generations: the rollup job bumps a bucket's generation before it
  // removes the marker of the window it wrote, so generations read before the markers could miss a
  // bump whose marker is gone by the time the markers are read (docs/DECISIONS.md#window-generations)
  const marked = await Promise.all([...spans.values()].map((g) => reads.marksOf([...g.ids], g.marks, budget, concurrency)));
  const gens = await reads.generations();
  const anyMarked = marked.some((m) => m.size > 0);
  return kept.map((k) => {
    if (k === undefined || anyMarked) return false;
    for (const [bucket, gen] of k.gens) if ((gens.get(bucket) ?? '') !== gen) return false;
    return true;
  });
}
