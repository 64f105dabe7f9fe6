// The reads of one query, coalesced: what the sub-queries ask in one turn of the event loop is read
// once (every metric over the same range, or the same window spans, and nearly the same ids in one
// read of their union), and a read asked later starts its own. Also the scan chunks: ranges sorted across buckets, 256 a scan.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PointBudget, RawAsk, TaggedPoints } from '../../../src/series-data/points.ts';
import { coalescedReads, clusterAsks } from '../../../src/series-query/coalesce-reads.ts';
import type { SeriesReads } from '../../../src/series-query/series-reads.ts';
import { bucketChunks, scanChunks, scansFor } from '../../../src/series-store/series-store.ts';
import type { MarkedWindow, StoredWindow, WindowSpan, WindowsAsk, WindowsRead } from '../../../src/series-data/windows.ts';

const budget: PointBudget = { take: () => undefined };

/** Answers from plain values and records every call it got. */
class RecordingReads implements SeriesReads {
  readonly calls: string[] = [];
  failRaw = false;

  rawPointsOf(ask: RawAsk): Promise<Map<string, Map<string, Map<string, TaggedPoints>>>> {
    const { ids, metrics, from, to } = ask;
    this.calls.push(`raw ${[...ids].join(',')} ${[...metrics].sort().join(',')} ${from}-${to}`);
    if (this.failRaw) return Promise.reject(new Error('gateway down'));
    return Promise.resolve(
      new Map(metrics.map((m) => [m, new Map(ids.map((id) => [id, new Map([['[]', { tagsJson: '[]', ts: [from], values: [m.length] }]])]))])),
    );
  }

  windowsOf(ask: WindowsAsk): Promise<WindowsRead> {
    const { ids, metrics, spans, marks } = ask;
    this.calls.push(
      `win ${[...ids].join(',')} ${[...metrics].sort().join(',')} ${spans.map((sp) => `${sp.sizeMs}:${sp.with}`).join(',')} marks ${marks.sizesMs.join(',')}`,
    );
    const window = (m: string): StoredWindow => ({
      startMs: 0,
      sizeMs: spans[0]?.sizeMs ?? 0,
      summary: { startMs: 0, count: 1, sum: m.length, min: 1, max: 1, first: 1, last: 1 },
      block: undefined,
      pack: undefined,
    });
    return Promise.resolve({
      windows: new Map(metrics.map((m) => [m, new Map(ids.map((id) => [id, [window(m)]]))])),
      marks: new Map(ids.map((id): [string, MarkedWindow[]] => [id, [{ startMs: 0, sizeMs: marks.sizesMs[0] ?? 0 }]])),
      cachedIds: new Set<string>(),
    });
  }
}

void test('sub-queries over the same range and nearly the same ids share one read of the union for all their metrics; each gets its own metric', async () => {
  const inner = new RecordingReads();
  const reads = coalescedReads(inner, budget, 4);
  const [temp, hum, sub, other] = await Promise.all([
    reads.rawPointsOf(['a', 'b'], 'temp', 0, 100),
    reads.rawPointsOf(['b', 'a'], 'hum', 0, 100), // same ids in another order
    reads.rawPointsOf(['a'], 'load', 0, 100), // a subset: joins the union
    reads.rawPointsOf(['x', 'y', 'z'], 'temp', 0, 100), // mostly other ids: its own read
  ]);
  assert.deepEqual(inner.calls.sort(), ['raw a,b hum,load,temp 0-100', 'raw x,y,z temp 0-100']);
  assert.deepEqual(temp.get('a')?.get('[]')?.values, [4]);
  assert.deepEqual(hum.get('b')?.get('[]')?.values, [3]);
  assert.deepEqual(sub.get('a')?.get('[]')?.values, [4]);
  assert.deepEqual([...other.keys()].sort(), ['x', 'y', 'z']);
});

void test('clusters: a union at most 1.25 times the largest ask joins; otherwise apart', () => {
  const ask = (ids: string[]): { ids: string[] } => ({ ids });
  const ids = (n: number, from = 0): string[] => Array.from({ length: n }, (_, i) => `i${from + i}`);
  const near = clusterAsks([ask(ids(100)), ask(ids(100, 10)), ask(ids(98, 2))]);
  assert.equal(near.length, 1, '10 % more ids: one read');
  assert.equal(near[0]?.ids.size, 110);
  assert.equal(clusterAsks([ask(ids(100)), ask(ids(100, 30))]).length, 2, '30 % more: apart');
  assert.equal(clusterAsks([ask(ids(4)), ask(ids(1, 100))]).length, 1, 'one more id over four: 5 ≤ 1.25 × 4');
});

void test('window reads share by spans, markers and ids: one read for all their metrics, each gets its own metric and every mark', async () => {
  const inner = new RecordingReads();
  const reads = coalescedReads(inner, budget, 4);
  const hour = [{ sizeMs: 3_600_000, from: 0, to: 100, with: 'pack' as const }];
  const marks = { sizesMs: [3_600_000], from: 0, to: 100 };
  const [t, h, d, b] = await Promise.all([
    reads.windowsOf(['a'], 'temp', hour, marks),
    reads.windowsOf(['a'], 'hum', hour, marks),
    reads.windowsOf(['a'], 'hum', [{ ...(hour[0] as WindowSpan), with: 'block' }], marks), // other content: its own read
    reads.windowsOf(['b'], 'hum', hour, marks), // other ids: its own read
  ]);
  assert.deepEqual(inner.calls.sort(), [
    'win a hum 3600000:block marks 3600000',
    'win a hum,temp 3600000:pack marks 3600000',
    'win b hum 3600000:pack marks 3600000',
  ]);
  assert.equal(t.windows.get('a')?.[0]?.summary.sum, 4);
  assert.equal(h.windows.get('a')?.[0]?.summary.sum, 3);
  assert.equal(d.windows.get('a')?.length, 1);
  assert.equal(b.marks.get('b')?.[0]?.sizeMs, 3_600_000);
});

void test('a read asked in a later turn starts its own; a failed read fails every sub-query that joined it', async () => {
  const inner = new RecordingReads();
  const reads = coalescedReads(inner, budget, 4);
  await reads.rawPointsOf(['a'], 'temp', 0, 100);
  await reads.rawPointsOf(['a'], 'hum', 0, 100);
  assert.deepEqual(inner.calls, ['raw a temp 0-100', 'raw a hum 0-100']);
  inner.failRaw = true;
  const both = await Promise.allSettled([reads.rawPointsOf(['a'], 'temp', 0, 9), reads.rawPointsOf(['a'], 'hum', 0, 9)]);
  assert.deepEqual(
    both.map((r) => r.status),
    ['rejected', 'rejected'],
  );
  assert.equal(inner.calls.length, 3);
});

void test('scan chunks: ranges sorted by start row across buckets, in near-equal parts, at most 256 a scan', () => {
  const range = (salt: number, id: number): { startRow: Buffer; stopRow: Buffer } => ({
    startRow: Buffer.from([salt, id]),
    stopRow: Buffer.from([salt, id, 0xff]),
  });
  const ranges = [];
  for (let id = 0; id < 200; id++) for (const salt of [3, 1]) ranges.push(range(salt, id));
  const one = scanChunks(ranges, 1);
  assert.deepEqual(
    one.map((c) => c.length),
    [200, 200],
    '400 ranges: two scans of at most 256',
  );
  const flat = one.flat();
  for (let i = 1; i < flat.length; i++)
    assert.ok(Buffer.compare((flat[i - 1] as { startRow: Buffer }).startRow, (flat[i] as { startRow: Buffer }).startRow) < 0);
  assert.deepEqual((one[0] as { startRow: Buffer }[])[0]?.startRow, Buffer.from([1, 0]));
  assert.deepEqual(
    scanChunks(ranges, 8).map((c) => c.length),
    [50, 50, 50, 50, 50, 50, 50, 50],
  );
  assert.deepEqual(
    scanChunks(ranges.slice(0, 3), 8).map((c) => c.length),
    [1, 1, 1],
    'never an empty scan',
  );
  assert.deepEqual(scanChunks([], 4), []);
});

void test('a few ids are one scan; many are split up to the concurrency', () => {
  assert.equal(scansFor(1, 8), 1);
  assert.equal(scansFor(4, 8), 1);
  assert.equal(scansFor(12, 8), 3);
  assert.equal(scansFor(1430, 8), 8);
  assert.equal(scansFor(1430, 1), 1);
});

void test('bucket chunks: the scan chunks, each cut where the salt bucket changes (no rollup scan crosses a region)', () => {
  const range = (salt: number, id: number): { startRow: Buffer; stopRow: Buffer } => ({
    startRow: Buffer.from([salt, id]),
    stopRow: Buffer.from([salt, id, 0xff]),
  });
  const few = [range(9, 1), range(0, 1), range(4, 2), range(4, 1)];
  assert.deepEqual(
    bucketChunks(few, 1).map((c) => c.map((r) => `${r.startRow[0]}/${r.startRow[1]}`)),
    [['0/1'], ['4/1', '4/2'], ['9/1']],
    'one scan chunk of three buckets: three scans, each sorted',
  );
  const many = [];
  for (let id = 0; id < 100; id++) for (const salt of [1, 2]) many.push(range(salt, id));
  assert.deepEqual(
    bucketChunks(many, 3).map((c) => c.length),
    [66, 34, 33, 67],
    'near-equal parts first, then cut at the bucket boundary',
  );
  for (const c of bucketChunks(many, 3)) assert.equal(new Set(c.map((r) => r.startRow[0])).size, 1);
  assert.deepEqual(bucketChunks([], 4), []);
});
