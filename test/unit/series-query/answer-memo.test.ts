// The answer memo (src/series-query/answer-memo.ts): its key holds all a sub-query's results depend on but
// its position, it keeps the newest answers for a bounded time, and its probe keeps an answer only
// while every bucket's generation is unchanged and none of the ids has a pending marker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AnswerMemo, answerKey, probeKept, type KeptAnswer, type ProbeReads } from '../../../src/series-query/answer-memo.ts';
import type { SubQueryPlan } from '../../../src/series-query/plan.ts';
import type { PointBudget } from '../../../src/series-data/points.ts';
import type { MarkedWindow, MarkSpan } from '../../../src/series-data/windows.ts';
import { parseQueryBody } from '../../../src/series-language/parse-query.ts';

const H = 3_600_000;
const budget: PointBudget = { take: () => undefined };
const plan = { path: 'rollup', windowMs: H, intervalMs: H, scan: { startMs: 0, endMs: 24 * H } } as unknown as SubQueryPlan;

void test('answerKey: the same sub-query at another position is the same key; another range, aggregator or catalog version is not', () => {
  const body = (start: number, agg: string): Record<string, unknown> => ({
    start,
    end: start + 24 * H,
    queries: [
      { aggregator: 'sum', metric: 'hum', downsample: '1h-avg' },
      { aggregator: agg, metric: 'temp', downsample: '1h-avg' },
    ],
  });
  const q = parseQueryBody(body(1_700_000_000_000, 'avg'), new URLSearchParams(), 1_800_000_000_000);
  const moved = parseQueryBody(
    { ...body(1_700_000_000_000, 'avg'), queries: [(body(0, 'avg')['queries'] as unknown[])[1]] },
    new URLSearchParams(),
    1_800_000_000_000,
  );
  const k = answerKey(q.queries[1] as never, q, plan, 1);
  assert.equal(answerKey(moved.queries[0] as never, moved, plan, 1), k, 'index 1 and index 0 alike');
  assert.notEqual(answerKey(q.queries[1] as never, q, plan, 2), k, 'catalog version');
  const later = parseQueryBody(body(1_700_000_000_000 + H, 'avg'), new URLSearchParams(), 1_800_000_000_000);
  assert.notEqual(answerKey(later.queries[1] as never, later, plan, 1), k, 'range');
  const max = parseQueryBody(body(1_700_000_000_000, 'max'), new URLSearchParams(), 1_800_000_000_000);
  assert.notEqual(answerKey(max.queries[1] as never, max, plan, 1), k, 'aggregator');
});

function kept(ids: string[], gens: [number, string][], at = 0): KeptAnswer<string> {
  return { ids, gens: new Map(gens), marks: { sizesMs: [H], from: 0, to: 24 * H }, results: [], series: ids.length, counts: 'c', at };
}

void test('AnswerMemo: the newest maxEntries, each for maxAgeMs', () => {
  const m = new AnswerMemo<string>(2, 1000);
  m.keep('a', kept(['x'], [], 0));
  m.keep('b', kept(['x'], [], 0));
  m.keep('c', kept(['x'], [], 0));
  assert.equal(m.get('a', 0), undefined, 'the oldest went');
  assert.ok(m.get('b', 1000) !== undefined);
  assert.equal(m.get('b', 1001), undefined, 'too old');
});

class Probe implements ProbeReads {
  gens = new Map<number, string>();
  marked = new Set<string>();
  marksReads = 0;
  /** run after the first read of the probe, whichever it is (a writer acting between the two) */
  afterFirstRead: (() => void) | undefined;
  generations(): Promise<Map<number, string>> {
    const tokens = new Map(this.gens);
    this.#after();
    return Promise.resolve(tokens);
  }
  marksOf(ids: readonly string[], marks: MarkSpan): Promise<Map<string, MarkedWindow[]>> {
    this.marksReads++;
    const found = new Map(ids.filter((id) => this.marked.has(id)).map((id) => [id, [{ startMs: marks.from, sizeMs: H }]]));
    this.#after();
    return Promise.resolve(found);
  }
  #after(): void {
    const run = this.afterFirstRead;
    this.afterFirstRead = undefined;
    run?.();
  }
}

void test('probeKept: the markers are read before the generations, so a job that bumps and then removes its marker between the two reads is seen', async () => {
  const p = new Probe();
  p.gens.set(0, 'g0');
  const a = kept(['x'], [[0, 'g0']]);
  // a late event of x waits for the job; the job writes the window, bumps bucket 0, removes the marker
  p.marked.add('x');
  p.afterFirstRead = () => {
    p.gens.set(0, 'g1');
    p.marked.delete('x');
  };
  assert.deepEqual(await probeKept([a], p, budget, 4), [false], 'whichever read comes second sees the job: the kept answer is not given again');
});

void test('probeKept: one generations read and one marker read for answers of the same marker span; a changed bucket or a marker ends them', async () => {
  const p = new Probe();
  p.gens.set(0, 'g0').set(1, 'g1');
  const a = kept(
    ['x', 'y'],
    [
      [0, 'g0'],
      [1, 'g1'],
    ],
  );
  const b = kept(['z'], [[2, '']]);
  assert.deepEqual(await probeKept([a, undefined, b], p, budget, 4), [true, false, true]);
  assert.equal(p.marksReads, 1, 'one marker read for both');
  p.gens.set(2, 'new');
  assert.deepEqual(await probeKept([a, b], p, budget, 4), [true, false], "b's bucket was written since ('' → 'new')");
  p.marked.add('y');
  assert.deepEqual(await probeKept([a], p, budget, 4), [false], 'a late event of y waits for the job');
});
