// The reads of one query, coalesced: what the sub-queries ask in one turn of the event loop is read
// once (every metric over the same ids and range in one read, markers for the union of ids), and a
// read asked later starts its own. Also the scan chunks: ranges sorted across buckets, 256 a scan.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { batchedReads, type MarkedWindow, type SeriesReads } from '../../../src/tsdb/read-batch.ts';
import { scanChunks, scansFor, type PointBudget, type TaggedPoints } from '../../../src/tsdb/series-store.ts';
import type { WindowSummary } from '../../../src/tsdb/compute/rollup-exact.ts';

const budget: PointBudget = { take: () => undefined };

/** Answers from plain values and records every call it got. */
class RecordingReads implements SeriesReads {
  readonly calls: string[] = [];
  failRaw = false;

  rawPointsOf(ids: readonly string[], metrics: readonly string[], from: number, to: number): Promise<Map<string, Map<string, Map<string, TaggedPoints>>>> {
    this.calls.push(`raw ${[...ids].join(',')} ${[...metrics].sort().join(',')} ${from}-${to}`);
    if (this.failRaw) return Promise.reject(new Error('gateway down'));
    return Promise.resolve(new Map(metrics.map((m) => [m, new Map(ids.map((id) => [id, new Map([['[]', { tagsJson: '[]', ts: [from], values: [m.length] }]])]))])));
  }

  summariesOf(ids: readonly string[], metrics: readonly string[], windowMs: number): Promise<Map<string, Map<string, WindowSummary[]>>> {
    this.calls.push(`sum ${[...ids].join(',')} ${[...metrics].sort().join(',')} ${windowMs}`);
    return Promise.resolve(new Map(metrics.map((m) => [m, new Map(ids.map((id) => [id, [{ startMs: 0, count: 1, sum: m.length, min: 1, max: 1, first: 1, last: 1 }]]))])));
  }

  markedWindows(ids: readonly string[], sizesMs: readonly number[]): Promise<Map<string, MarkedWindow[]>> {
    this.calls.push(`marks ${[...ids].sort().join(',')} ${sizesMs.join(',')}`);
    return Promise.resolve(new Map(ids.map((id) => [id, [{ startMs: 0, sizeMs: sizesMs[0] ?? 0 }]])));
  }
}

void test('sub-queries over the same ids and range share one read for all their metrics; each gets its own metric', async () => {
  const inner = new RecordingReads();
  const reads = batchedReads(inner, budget, 4);
  const [temp, hum, other] = await Promise.all([
    reads.rawPointsOf(['a', 'b'], 'temp', 0, 100),
    reads.rawPointsOf(['b', 'a'], 'hum', 0, 100), // same ids in another order
    reads.rawPointsOf(['a'], 'temp', 0, 100), // other ids: its own read
  ]);
  assert.deepEqual(inner.calls.sort(), ['raw a temp 0-100', 'raw a,b hum,temp 0-100']);
  assert.deepEqual(temp.get('a')?.get('[]')?.values, [4]);
  assert.deepEqual(hum.get('b')?.get('[]')?.values, [3]);
  assert.deepEqual([...other.keys()], ['a']);
});

void test('summaries share by window size and range; markers are one read for the union of ids', async () => {
  const inner = new RecordingReads();
  const reads = batchedReads(inner, budget, 4);
  const [t, h, d, ma, mb] = await Promise.all([
    reads.summariesOf(['a'], 'temp', 3_600_000, 0, 100),
    reads.summariesOf(['a'], 'hum', 3_600_000, 0, 100),
    reads.summariesOf(['a'], 'hum', 86_400_000, 0, 100),
    reads.markedWindows(['a'], [3_600_000], 0, 100),
    reads.markedWindows(['b'], [3_600_000], 0, 100),
  ]);
  assert.deepEqual(inner.calls.sort(), ['marks a,b 3600000', 'sum a hum 86400000', 'sum a hum,temp 3600000']);
  assert.equal(t.get('a')?.[0]?.sum, 4);
  assert.equal(h.get('a')?.[0]?.sum, 3);
  assert.equal(d.get('a')?.length, 1);
  assert.ok(ma.has('a') && ma.has('b'), 'each asker sees the whole answer and picks its ids');
  assert.equal(mb.get('b')?.[0]?.sizeMs, 3_600_000);
});

void test('a read asked in a later turn starts its own; a failed read fails every sub-query that joined it', async () => {
  const inner = new RecordingReads();
  const reads = batchedReads(inner, budget, 4);
  await reads.rawPointsOf(['a'], 'temp', 0, 100);
  await reads.rawPointsOf(['a'], 'hum', 0, 100);
  assert.deepEqual(inner.calls, ['raw a temp 0-100', 'raw a hum 0-100']);
  inner.failRaw = true;
  const both = await Promise.allSettled([reads.rawPointsOf(['a'], 'temp', 0, 9), reads.rawPointsOf(['a'], 'hum', 0, 9)]);
  assert.deepEqual(both.map((r) => r.status), ['rejected', 'rejected']);
  assert.equal(inner.calls.length, 3);
});

void test('scan chunks: ranges sorted by start row across buckets, in near-equal parts, at most 256 a scan', () => {
  const range = (salt: number, id: number): { startRow: Buffer; stopRow: Buffer } => ({ startRow: Buffer.from([salt, id]), stopRow: Buffer.from([salt, id, 0xff]) });
  const ranges = [];
  for (let id = 0; id < 200; id++) for (const salt of [3, 1]) ranges.push(range(salt, id));
  const one = scanChunks(ranges, 1);
  assert.deepEqual(one.map((c) => c.length), [200, 200], '400 ranges: two scans of at most 256');
  const flat = one.flat();
  for (let i = 1; i < flat.length; i++) assert.ok(Buffer.compare((flat[i - 1] as { startRow: Buffer }).startRow, (flat[i] as { startRow: Buffer }).startRow) < 0);
  assert.deepEqual((one[0] as { startRow: Buffer }[])[0]?.startRow, Buffer.from([1, 0]));
  assert.deepEqual(scanChunks(ranges, 8).map((c) => c.length), [50, 50, 50, 50, 50, 50, 50, 50]);
  assert.deepEqual(scanChunks(ranges.slice(0, 3), 8).map((c) => c.length), [1, 1, 1], 'never an empty scan');
  assert.deepEqual(scanChunks([], 4), []);
});

void test('a few ids are one scan; many are split up to the concurrency', () => {
  assert.equal(scansFor(1, 8), 1);
  assert.equal(scansFor(4, 8), 1);
  assert.equal(scansFor(12, 8), 3);
  assert.equal(scansFor(1430, 8), 8);
  assert.equal(scansFor(1430, 1), 1);
});
