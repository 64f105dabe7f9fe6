// Marker reads asked at nearly the same time share one read, and each ask gets exactly the marks a
// read of its own would have found (the series store over the in-memory HBase, real marker rows).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { putRowOf } from '../../../src/rollup/fold.ts';
import { markWindows, type MarkSpan } from '../../../src/series-data/windows.ts';
import { marksFor, marksTrain, unionSpan } from '../../../src/series-store/marks-train.ts';
import { NO_SPREAD } from '../../../src/keys/index.ts';
import { fixedSpread, SeriesStore } from '../../../src/series-store/series-store.ts';
import { FakeHBase } from '../../support/fake-hbase.ts';
import { testKeyspace } from '../../support/keyspace.ts';

const B = 4;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2026, 10, 10);
const NOW = T0 + 12 * HOUR + 600_000;
const keyspace = testKeyspace(B);
const ids = Array.from({ length: 80 }, (_, i) => `id-${i}`);
const budget = { take: () => undefined };

function storeOf(port: FakeHBase): SeriesStore {
  return new SeriesStore(port, {
    keyspace,
    data: { name: 'd', family: 'd' },
    rollup: { name: 'r', family: 'r' },
    meta: { name: 'm', family: 'm' },
    spread: { ...fixedSpread(NO_SPREAD), lookupFor: () => Promise.reject(new Error('not read')) },
    deadlineMs: 10_000,
    idTagKey: 'id',
    blockFamily: null,
  });
}

async function mark(port: FakeHBase, w: { readonly id: string; readonly windowSec: number; readonly windowStart: number }, stamp: number): Promise<void> {
  const { id } = w;
  const key = keyspace.markerKey(w);
  await port.put('r', [putRowOf({ key, cells: [{ family: 'r', qualifier: Buffer.from(id), value: Buffer.alloc(0), timestamp: stamp }] })]);
}

/** Marks over a week: hours and days, closed and open, of some of the ids. */
async function world(): Promise<FakeHBase> {
  const port = new FakeHBase();
  for (let i = 0; i < ids.length; i += 3) {
    const id = ids[i] as string;
    await mark(port, { id, windowSec: 3600, windowStart: T0 + 12 * HOUR }, NOW - 1000); // the open hour
    await mark(port, { id, windowSec: 3600, windowStart: T0 + (i % 12) * HOUR }, NOW - 5000); // a closed hour of today
    await mark(port, { id, windowSec: 3600, windowStart: T0 - 3 * DAY + (i % 24) * HOUR }, NOW - 9000); // an hour three days ago
    await mark(port, { id, windowSec: 86_400, windowStart: T0 - (i % 6) * DAY }, NOW - 7000); // a day
  }
  return port;
}

const spans = {
  day: { sizesMs: [HOUR], from: NOW - DAY, to: NOW, closedBy: NOW - 300_000 },
  week: { sizesMs: [HOUR, DAY], from: NOW - 7 * DAY, to: NOW, closedBy: NOW - 300_000 },
  hour: { sizesMs: [HOUR], from: NOW - HOUR, to: NOW + HOUR },
} satisfies Record<string, MarkSpan>;

void test('markWindows / unionSpan / marksFor: the union holds every window asked; the filter gives back each span’s', () => {
  const u = unionSpan([spans.day, spans.week, spans.hour]);
  assert.deepEqual(u.sizesMs, [HOUR, DAY]);
  assert.equal(u.closedBy, undefined, 'an ask without closedBy: the union has none');
  for (const s of Object.values(spans)) {
    for (const [size, [first, stop]] of markWindows(s)) {
      const w = markWindows(u).get(size);
      assert.ok(w !== undefined && w[0] <= first && w[1] >= stop, `size ${size}`);
    }
  }
  const got = new Map([
    [
      'a',
      [
        { startMs: T0, sizeMs: HOUR, stamp: 1 },
        { startMs: T0 + 12 * HOUR, sizeMs: HOUR, stamp: 1 },
        { startMs: T0 - 8 * DAY, sizeMs: HOUR, stamp: 1 },
        { startMs: T0, sizeMs: DAY, stamp: 1 },
      ],
    ],
    ['b', [{ startMs: T0, sizeMs: HOUR, stamp: 1 }]],
  ]);
  assert.deepEqual(marksFor(got, ['a'], spans.day), new Map([['a', [{ startMs: T0, sizeMs: HOUR, stamp: 1 }]]]));
});

void test('asks at the same time: one read; each answered exactly what a read of its own finds', async () => {
  const port = await world();
  const store = storeOf(port);
  const alone = new Map<string, unknown>();
  const entries = Object.entries(spans) as [keyof typeof spans, MarkSpan][];
  const subsets: Record<keyof typeof spans, string[]> = { day: ids, week: ids.slice(0, 70), hour: ids.slice(10) };
  for (const [k, s] of entries) alone.set(k, (await store.marksAndTouchesOf(subsets[k], { marks: s }, budget)).marks);
  const before = port.count('scan', 'r');
  const got = await Promise.all(entries.map(async ([k, s]) => [k, await store.marksOf(subsets[k], s, budget)] as const));
  const scans = port.count('scan', 'r') - before;
  for (const [k, m] of got) {
    assert.deepEqual(m, alone.get(k), k);
    assert.ok(m.size > 0, `${k}: some marks`);
  }
  assert.ok(scans <= B, `one read of the union: ${scans} scans for three asks (${B} buckets)`);
});

void test('an ask made while a read is under way waits for the next: a marker written before it is seen', async () => {
  const port = await world();
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const reads: number[] = [];
  const store = storeOf(port);
  const read = marksTrain(
    async (asked, span, b, c) => {
      reads.push(asked.length);
      const got = (await store.marksAndTouchesOf(asked, { marks: span }, b, c)).marks;
      if (reads.length === 1) await gate; // the first read has scanned: it stays under way until released
      return got;
    },
    { lingerMs: 1, minIds: 2 },
  );
  const first = read(ids, spans.day, budget, undefined);
  await new Promise((r) => setTimeout(r, 10)); // the first read is under way
  await mark(port, { id: 'id-1', windowSec: 3600, windowStart: T0 + 2 * HOUR }, NOW); // a late event's marker, written before the next ask
  const second = read(ids, spans.day, budget, undefined);
  release();
  const [a, b] = await Promise.all([first, second]);
  assert.equal(reads.length, 2, 'the second ask did not board the read under way');
  assert.equal(a.get('id-1'), undefined);
  assert.deepEqual(b.get('id-1'), [{ startMs: T0 + 2 * HOUR, sizeMs: HOUR, stamp: NOW }]);
});

void test('a few ids read alone at once; a budget that stops rejects its ask alone; a failed read rejects every ask', async () => {
  const port = await world();
  const store = storeOf(port);
  const calls: number[] = [];
  const read = marksTrain(
    async (asked, span, b, c) => {
      calls.push(asked.length);
      b.take(0);
      return (await store.marksAndTouchesOf(asked, { marks: span }, b, c)).marks;
    },
    { lingerMs: 1, minIds: 64 },
  );
  await read(['id-0'], spans.day, budget, undefined);
  assert.deepEqual(calls, [1], 'read on its own');
  const stopped = {
    take: () => {
      throw new Error('deadline');
    },
  };
  const [ok, refused] = await Promise.allSettled([read(ids, spans.day, budget, undefined), read(ids, spans.week, stopped, undefined)]);
  assert.equal(ok.status, 'fulfilled');
  assert.equal(refused.status, 'rejected');
  port.fail({ op: 'scan', error: new Error('gateway down') });
  const both = await Promise.allSettled([read(ids, spans.day, budget, undefined), read(ids, spans.hour, budget, undefined)]);
  assert.deepEqual(
    both.map((s) => s.status),
    ['rejected', 'rejected'],
  );
});
