import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COUNTER_MAX, DEFAULT_DATASET, SMALL_DATASET, countsByMetric, endMs, events, ids, missesHour, points } from '../../../scripts/lib/compat/dataset.ts';
import { suite } from '../../../scripts/lib/compat/suite.ts';

test('data set: deterministic, inside [start, end), both views the same points', () => {
  const a = points(SMALL_DATASET);
  assert.deepEqual(points(SMALL_DATASET), a);
  assert.ok(a.every((p) => p.timestamp >= SMALL_DATASET.startMs && p.timestamp < endMs(SMALL_DATASET) && p.timestamp % 1000 === 0));
  const e = events(SMALL_DATASET);
  assert.equal(e.length, a.length);
  assert.deepEqual(e[0], { id: a[0]?.tags.id, ts: a[0]?.timestamp, metric: a[0]?.metric, value: a[0]?.value, tags: { site: a[0]?.tags.site } });
  const c = countsByMetric(SMALL_DATASET);
  assert.equal(c.temp + c.hum + c.bytes, a.length);
});

test('data set: 12 ids, gaps of whole hours, one rollover and one reset of bytes', () => {
  assert.equal(ids().length, 12);
  const n02 = ids().find((s) => s.id === 'n02');
  assert.ok(n02 !== undefined && missesHour(n02, 2));
  assert.ok(
    !points(SMALL_DATASET).some(
      (p) => p.tags.id === 'n02' && p.timestamp >= SMALL_DATASET.startMs + 2 * 3_600_000 && p.timestamp < SMALL_DATASET.startMs + 3 * 3_600_000,
    ),
  );
  const drops = new Map<string, number>();
  let prev: { id: string; value: number } | undefined;
  for (const p of points(DEFAULT_DATASET).filter((x) => x.metric === 'bytes')) {
    if (prev?.id === p.tags.id && p.value < prev.value) drops.set(p.tags.id, (drops.get(p.tags.id) ?? 0) + 1);
    prev = { id: p.tags.id, value: p.value };
  }
  assert.deepEqual([...drops.entries()].sort(), [
    ['n01', 1],
    ['s02', 1],
  ]);
  assert.ok(points(DEFAULT_DATASET).every((p) => p.metric !== 'bytes' || (Number.isInteger(p.value) && p.value >= 0 && p.value < COUNTER_MAX)));
});

test('suite: at least 30 queries, unique names, the same names for every data set size', () => {
  const s = suite(DEFAULT_DATASET);
  assert.ok(s.length >= 30);
  assert.deepEqual(
    suite(SMALL_DATASET).map((q) => q.name),
    s.map((q) => q.name),
  );
  assert.ok(s.every((q) => (q.method === 'GET') === (q.body === undefined)));
  assert.throws(() => points({ ...SMALL_DATASET, startMs: SMALL_DATASET.startMs + 1 }), /whole hour/);
});
