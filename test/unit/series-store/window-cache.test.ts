// The window cache (src/series-store/window-cache.ts): windows kept per id, span and start under their
// bucket's generation, answered only while it holds and while young enough, bounded in bytes with a
// second chance for the ones used; and the cached reads: ids whose every window is kept are not read
// again (their markers are), a changed generation sends its bucket's ids back to HBase, point blocks
// never go through the cache.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PointBudget, TaggedPoints } from '../../../src/series-data/points.ts';
import type { MarkedWindow, MarkSpan, StoredWindow, WindowSpan, WindowsAsk, WindowsRead } from '../../../src/series-data/windows.ts';
import { cachedReads, MAX_SPARES, spanKey, WindowCache, type CacheableReads } from '../../../src/series-store/window-cache.ts';

const H = 3_600_000;
const D = 24 * H;
const budget: PointBudget = { take: () => undefined };

/** A stored window of one point (`sum` as every summary figure), with `pack` when given. */
function windowOf(sizeMs: number, startMs: number, sum: number, pack?: Float64Array): StoredWindow {
  return { startMs, sizeMs, summary: { startMs, count: 1, sum, min: sum, max: sum, first: sum, last: sum }, block: undefined, pack };
}

void test('WindowCache: a window answers under its generation only, while young enough; absent windows are kept as null', () => {
  let now = 1000;
  const c = new WindowCache({ maxBytes: 1 << 20, maxAgeMs: 500, now: () => now });
  const w = windowOf(H, 0, 1);
  c.set({ id: 'a', gen: 'g1', now }, 'k', 0, w);
  c.set({ id: 'a', gen: 'g1', now }, 'k', H, null);
  assert.equal(c.get({ id: 'a', gen: 'g1', now }, 'k', 0), w);
  assert.equal(c.get({ id: 'a', gen: 'g1', now }, 'k', H), null, 'known absent');
  assert.equal(c.get({ id: 'a', gen: 'g1', now }, 'k', 2 * H), undefined, 'never read');
  assert.equal(c.get({ id: 'a', gen: 'g2', now }, 'k', 0), undefined, 'another generation: a write since');
  assert.equal(c.get({ id: 'b', gen: 'g1', now }, 'k', 0), undefined, 'another id');
  assert.equal(c.get({ id: 'a', gen: 'g1', now }, 'k2', 0), undefined, 'another span key');
  now += 501;
  assert.equal(c.get({ id: 'a', gen: 'g1', now }, 'k', 0), undefined, 'older than maxAgeMs');
  const s = c.stats();
  assert.equal(s.hits, 2);
  assert.equal(s.misses, 5);
  assert.equal(s.entries, 2);
});

void test('WindowCache: bounded in bytes; the oldest unused entry goes first, a used one gets a second chance', () => {
  const c = new WindowCache({ maxBytes: 4 * 460 + 100, maxAgeMs: 1e9, now: () => 0 });
  for (let i = 0; i < 4; i++) c.set({ id: `id${i}`, gen: 'g', now: 0 }, 'k', 0, windowOf(H, 0, i));
  assert.equal(c.stats().entries, 4);
  assert.ok(c.get({ id: 'id0', gen: 'g', now: 0 }, 'k', 0) !== undefined, 'id0 used');
  c.set({ id: 'id4', gen: 'g', now: 0 }, 'k', 0, windowOf(H, 0, 4));
  assert.equal(c.stats().entries, 4, 'one went');
  assert.ok(c.get({ id: 'id0', gen: 'g', now: 0 }, 'k', 0) !== undefined, 'the used one stayed');
  assert.equal(c.get({ id: 'id1', gen: 'g', now: 0 }, 'k', 0), undefined, 'the oldest unused one went');
  assert.ok(c.stats().bytes <= 4 * 460 + 100);
  // a pack counts its run's bytes: a big one pushes out more
  c.set({ id: 'big', gen: 'g', now: 0 }, 'k', 0, windowOf(D, 0, 1, new Float64Array(24 * 7)));
  assert.ok(c.stats().entries < 4);
  assert.ok(c.stats().bytes <= 4 * 460 + 100);
});

/** An in-memory HBase for the reads: windows by id, generations by bucket, markers by id; counts what it is asked. */
class Backing implements CacheableReads {
  readonly windows = new Map<string, StoredWindow[]>();
  readonly gens = new Map<number, string>();
  readonly marks = new Map<string, MarkedWindow[]>();
  readonly windowReads: string[][] = [];
  readonly markReads: string[][] = [];
  generationReads = 0;
  /** run after a generations read has taken its tokens (a writer acting between two reads) */
  afterGenerations: (() => void) | undefined;

  rawPointsOf(): Promise<Map<string, Map<string, Map<string, TaggedPoints>>>> {
    return Promise.resolve(new Map<string, Map<string, Map<string, TaggedPoints>>>());
  }

  windowsOf(ask: WindowsAsk): Promise<WindowsRead> {
    const { ids, metrics, spans, marks } = ask;
    this.windowReads.push([...ids]);
    const inSpan = (w: StoredWindow): boolean => spans.some((sp) => sp.sizeMs === w.sizeMs && w.startMs >= sp.from && w.startMs < sp.to);
    return Promise.resolve({
      windows: new Map(metrics.map((m) => [m, new Map(ids.map((id) => [id, (this.windows.get(`${m}|${id}`) ?? []).filter(inSpan)]))])),
      marks: this.#marks(ids, marks),
      cachedIds: new Set<string>(),
    });
  }

  marksOf(ids: readonly string[], marks: MarkSpan): Promise<Map<string, MarkedWindow[]>> {
    this.markReads.push([...ids]);
    return Promise.resolve(this.#marks(ids, marks));
  }

  generations(): Promise<Map<number, string>> {
    this.generationReads++;
    const tokens = new Map(this.gens);
    this.afterGenerations?.();
    this.afterGenerations = undefined;
    return Promise.resolve(tokens);
  }

  #marks(ids: readonly string[], span: MarkSpan): Map<string, MarkedWindow[]> {
    const out = new Map<string, MarkedWindow[]>();
    for (const id of ids) {
      const list = (this.marks.get(id) ?? []).filter((m) => span.sizesMs.includes(m.sizeMs) && m.startMs >= span.from && m.startMs < span.to);
      if (list.length > 0) out.set(id, list);
    }
    return out;
  }
}

const bucketOf = (id: string): number => (id === 'a' || id === 'b' ? 0 : 1);
const spans: WindowSpan[] = [
  { sizeMs: D, from: 0, to: D, with: 'pack', finerMs: H },
  { sizeMs: H, from: D, to: D + H, with: 'summary' },
];
const marks: MarkSpan = { sizesMs: [H, D], from: 0, to: D + H };

function backing(): Backing {
  const b = new Backing();
  for (const id of ['a', 'b', 'c']) {
    b.windows.set(`temp|${id}`, [windowOf(D, 0, 10, new Float64Array(7)), windowOf(H, D, 11)]);
    b.windows.set(`hum|${id}`, [windowOf(D, 0, 20, new Float64Array(7))]);
  }
  b.gens.set(0, 'g0');
  return b;
}

const sums = (r: WindowsRead, m: string, id: string): number[] => (r.windows.get(m)?.get(id) ?? []).map((w) => w.summary.sum);
/** The windows read are kept after the answer is on its way (the next turn of the event loop). */
const kept = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

void test('cached reads: the second read of the same windows reads only the markers, and answers the same', async () => {
  const b = backing();
  const cache = new WindowCache({ maxBytes: 1 << 20, maxAgeMs: 60_000, now: () => 0 });
  const reads = cachedReads(b, cache, bucketOf);
  const first = await reads.windowsOf({ ids: ['a', 'b', 'c'], metrics: ['temp', 'hum'], spans, marks }, budget);
  await kept();
  assert.deepEqual(b.windowReads, [['a', 'b', 'c']]);
  assert.equal(first.cachedIds.size, 0);
  assert.deepEqual(
    first.gens,
    new Map([
      [0, 'g0'],
      [1, ''],
    ]),
    'the generations read, "" for a bucket never bumped',
  );
  const second = await reads.windowsOf({ ids: ['a', 'b', 'c'], metrics: ['temp', 'hum'], spans, marks }, budget);
  assert.deepEqual(b.windowReads, [['a', 'b', 'c']], 'no second window read');
  assert.deepEqual(b.markReads, [['a', 'b', 'c']], 'the markers were read');
  assert.deepEqual([...second.cachedIds].sort(), ['a', 'b', 'c']);
  for (const id of ['a', 'b', 'c']) {
    assert.deepEqual(sums(second, 'temp', id), sums(first, 'temp', id));
    assert.deepEqual(sums(second, 'hum', id), [20], 'the hour a metric has no window in: known absent');
  }
  assert.equal(
    spanKey('temp', spans[0] as WindowSpan) === spanKey('temp', { ...(spans[0] as WindowSpan), finerMs: 60_000 }),
    false,
    'a pack of another finer size is another key',
  );
});

void test('cached reads: a bumped bucket sends its ids back to HBase, and the new content is read; markers pass through', async () => {
  const b = backing();
  const cache = new WindowCache({ maxBytes: 1 << 20, maxAgeMs: 60_000, now: () => 0 });
  const reads = cachedReads(b, cache, bucketOf);
  await reads.windowsOf({ ids: ['a', 'b', 'c'], metrics: ['temp'], spans, marks }, budget);
  await kept();
  // the job rewrote a's day (its put, then its bump) and a late event marked c's hour
  b.windows.set('temp|a', [windowOf(D, 0, 99, new Float64Array(7)), windowOf(H, D, 11)]);
  b.gens.set(0, 'g1');
  b.marks.set('c', [{ startMs: D, sizeMs: H }]);
  const r = await reads.windowsOf({ ids: ['a', 'b', 'c'], metrics: ['temp'], spans, marks }, budget);
  assert.deepEqual(b.windowReads.at(-1), ['a', 'b'], "bucket 0's ids read again");
  assert.deepEqual(b.markReads.at(-1), ['a', 'b', 'c'], 'the markers of the ids the cache holds, read beside the lookups');
  assert.deepEqual(sums(r, 'temp', 'a'), [99, 11], 'the rewritten window, not the kept one');
  assert.deepEqual(r.marks.get('c'), [{ startMs: D, sizeMs: H }], 'the marker reaches the planner');
  assert.deepEqual([...r.cachedIds], ['c']);
});

void test('cached reads: a job that writes, bumps and removes its marker between the generations read and the markers read does not leave the old window answering', async () => {
  const b = backing();
  const cache = new WindowCache({ maxBytes: 1 << 20, maxAgeMs: 60_000, now: () => 0 });
  const reads = cachedReads(b, cache, bucketOf);
  await reads.windowsOf({ ids: ['a'], metrics: ['temp'], spans, marks }, budget);
  await kept();
  // a late event for a's day, acknowledged before the query: its marker is pending
  b.marks.set('a', [{ startMs: 0, sizeMs: D }]);
  // the job finishes the day after the generations the lookups go under were read (the last read:
  // the first query's) and before this query's markers read: its put, its bump, then its marker removed
  b.windows.set('temp|a', [windowOf(D, 0, 99, new Float64Array(7)), windowOf(H, D, 11)]);
  b.gens.set(0, 'g1');
  b.marks.delete('a');
  const reads0 = b.generationReads;
  const r = await reads.windowsOf({ ids: ['a'], metrics: ['temp'], spans, marks }, budget);
  const stale = sums(r, 'temp', 'a')[0] === 10 && r.marks.get('a') === undefined;
  assert.equal(stale, false, 'the kept day (without the late event) answers with no marker: a stale answer');
  assert.deepEqual(sums(r, 'temp', 'a'), [99, 11], 'the hit whose bucket moved after the markers is read again');
  assert.deepEqual([...r.cachedIds], [], 'not counted as answered from the cache');
  assert.equal(b.generationReads - reads0, 1, 'one generations read, after the markers: none before the lookups');
  assert.equal(r.gens?.get(0), 'g1', 'the tokens the answer holds under (the answer memo keeps them): those its windows were read again after');
  // the same job on a's hour, acting just after that read (after this query's markers were read):
  // the marker read is pending, so the planner reads the hour raw whatever the window says
  await kept();
  b.marks.set('a', [{ startMs: D, sizeMs: H }]);
  b.afterGenerations = () => {
    b.windows.set('temp|a', [windowOf(D, 0, 99, new Float64Array(7)), windowOf(H, D, 12)]);
    b.gens.set(0, 'g2');
    b.marks.delete('a');
  };
  const late = await reads.windowsOf({ ids: ['a'], metrics: ['temp'], spans, marks }, budget);
  assert.deepEqual(late.marks.get('a'), [{ startMs: D, sizeMs: H }], 'the marker read before the job removed it reaches the planner');
});

void test('cached reads: point blocks are kept (copied out of the response); reads past MAX_CACHED_LOOKUPS go straight to HBase', async () => {
  const b = backing();
  const cache = new WindowCache({ maxBytes: 1 << 20, maxAgeMs: 60_000, now: () => 0 });
  const reads = cachedReads(b, cache, bucketOf);
  const blocks: WindowSpan[] = [{ sizeMs: H, from: 0, to: D, with: 'block' }];
  await reads.windowsOf({ ids: ['a'], metrics: ['temp'], spans: blocks, marks }, budget);
  await kept();
  const again = await reads.windowsOf({ ids: ['a'], metrics: ['temp'], spans: blocks, marks }, budget);
  assert.equal(b.windowReads.length, 1, 'the second read from the cache');
  assert.ok(cache.stats().entries > 0);
  assert.deepEqual(again.cachedIds, new Set(['a']));
  const ids = Array.from({ length: 3000 }, (_, i) => `x${i}`);
  const long: WindowSpan[] = [{ sizeMs: 60_000, from: 0, to: 2 * D, with: 'summary' }];
  await reads.windowsOf({ ids, metrics: ['temp', 'hum'], spans: long, marks }, budget);
  await kept();
  await reads.windowsOf({ ids, metrics: ['temp', 'hum'], spans: long, marks }, budget);
  assert.equal(b.windowReads.length, 3, '3,000 ids × 2,880 windows × 2 metrics: not through the cache');
});

void test('cached reads: a read with no id kept tags what it keeps with the generations read last (read before its scan), without reading them again', async () => {
  const b = backing();
  const cache = new WindowCache({ maxBytes: 1 << 20, maxAgeMs: 60_000, now: () => 0 });
  const r = cachedReads(b, cache, bucketOf);
  await r.windowsOf({ ids: ['a'], metrics: ['temp'], spans, marks }, budget);
  await kept();
  assert.equal(b.generationReads, 1, 'the first read: none read before');
  // b and c: nothing kept of them, so no lookup and no generations read; tagged with g0, read before
  b.gens.set(0, 'g1');
  const bc = await r.windowsOf({ ids: ['b', 'c'], metrics: ['temp'], spans, marks }, budget);
  await kept();
  assert.equal(b.generationReads, 1);
  assert.deepEqual(
    bc.gens,
    new Map([
      [0, 'g0'],
      [1, ''],
    ]),
    'the older tokens',
  );
  // a lookup under those (the last read) and a read after the markers: b was kept under g0, bucket 0
  // is at g1 now, so b is read again; c holds
  const again = await r.windowsOf({ ids: ['b', 'c'], metrics: ['temp'], spans, marks }, budget);
  assert.equal(b.generationReads, 2, 'after the markers only');
  assert.deepEqual([...again.cachedIds], ['c']);
  assert.deepEqual(b.windowReads.at(-1), ['b'], 'the id of the moved bucket read again');
});

void test('WindowCache: past its bound at 80k+ entries, every set() does constant eviction work, used entries or not (issue 37)', () => {
  const n = 80_000;
  const c = new WindowCache({ maxBytes: n * 160, maxAgeMs: 1e12, now: () => 0 });
  for (let i = 0; i < n; i++) c.set({ id: `id${i}`, gen: 'g', now: 0 }, 'k', 0, null);
  assert.equal(c.stats().entries, n, 'full to its bound, nothing evicted yet');
  // every entry used: the eviction that once moved each of them to the back (O(n²) in a Set) in one set()
  for (let i = 0; i < n; i++) c.get({ id: `id${i}`, gen: 'g', now: 0 }, 'k', 0);
  let worst = 0;
  for (let i = 0; i < n; i++) {
    const before = c.stats().evictionSteps;
    c.set({ id: `new${i}`, gen: 'g', now: 0 }, 'k', 0, null);
    worst = Math.max(worst, c.stats().evictionSteps - before);
  }
  const s = c.stats();
  assert.equal(s.entries, n, 'still at its bound');
  assert.ok(worst <= MAX_SPARES + 1, `at most ${MAX_SPARES} spares and one eviction per set() of a same-size entry (worst: ${worst})`);
  assert.ok(s.evictionSteps <= (MAX_SPARES + 1) * n, 'constant work per set over the run');
  assert.equal(s.evictions, n);
  assert.equal(c.get({ id: 'new0', gen: 'g', now: 0 }, 'k', 0), undefined, 'the first new one is gone by now (every old one was spared once)');
  assert.equal(c.get({ id: `new${n - 1}`, gen: 'g', now: 0 }, 'k', 0), null, 'the newest is kept');
});

void test('cached reads: with no markers asked (nothing to confirm after), the lookups go under generations read before them, not the last ones', async () => {
  const b = backing();
  const cache = new WindowCache({ maxBytes: 1 << 20, maxAgeMs: 60_000, now: () => 0 });
  const reads = cachedReads(b, cache, bucketOf);
  const none: MarkSpan = { sizesMs: [H, D], from: 0, to: 0 };
  await reads.windowsOf({ ids: ['a'], metrics: ['temp'], spans, marks: none }, budget);
  await kept();
  b.windows.set('temp|a', [windowOf(D, 0, 99, new Float64Array(7)), windowOf(H, D, 11)]);
  b.gens.set(0, 'g1');
  const r = await reads.windowsOf({ ids: ['a'], metrics: ['temp'], spans, marks: none }, budget);
  assert.deepEqual(sums(r, 'temp', 'a'), [99, 11], 'the rewritten day: its bucket moved since the last read');
  assert.deepEqual([...r.cachedIds], []);
});
