// WriteCoalescer in front of a real EventWriter with an in-memory sink: units handed in together are one
// write (one put per table), each unit gets back only its own refused events, a failure fails every
// unit of the write, a full group is written without waiting, and merge/split are exact.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import PQueue from 'p-queue';
import { planBatch, type BatchPlan } from '../../../src/ingest/batch-plan.ts';
import { EventWriter } from '../../../src/ingest/event-writer.ts';
import { OutagePolicy } from '../../../src/ingest/outage-policy.ts';
import { WriteCoalescer, mergePlans, splitRefused } from '../../../src/ingest/write-coalescer.ts';
import { FakeSink, RowRefused, SETTINGS, event, record, recordingObserver } from './fixtures.ts';

const TABLES = { data: 'd_t', index: 'i_t' };

function eventWriter(sink: FakeSink): EventWriter {
  return new EventWriter({
    sink,
    queue: new PQueue({ concurrency: 4 }),
    tables: TABLES,
    chunk: { maxRows: 1000, maxBytes: 1 << 20 },
    policy: new OutagePolicy({ retry: { baseMs: 1, maxMs: 2 }, isRetriable: () => false }),
    isRowRejection: (e) => e instanceof RowRefused,
    observer: recordingObserver().observer,
  });
}

/** `units` plans of `size` events each, offsets numbered across them. */
function plans(units: number, size: number): BatchPlan[] {
  return Array.from({ length: units }, (_, u) =>
    planBatch(
      Array.from({ length: size }, (_v, i) => record(u * size + i, event(u * size + i))),
      SETTINGS,
    ),
  );
}

void test("units handed in within the linger are one write: one put per table holding every unit's rows", async () => {
  const sink = new FakeSink();
  const c = new WriteCoalescer({ writer: eventWriter(sink), lingerMs: 20, maxRows: 10_000 });
  const ps = plans(4, 5);
  const results = await Promise.all(ps.map((p) => c.write(p)));
  assert.deepEqual(results, [[], [], [], []]);
  assert.equal(sink.attempts.filter((p) => p.table === TABLES.data).length, 1, 'one data put');
  assert.equal(sink.attempts.filter((p) => p.table === TABLES.index).length, 1, 'one index put');
  assert.deepEqual(sink.keys(TABLES.data).sort(), ps.flatMap((p) => p.events.map((e) => e.data.row.key.toString('hex'))).sort());
});

void test('each unit gets back only its own refused events; the others are written', async () => {
  const sink = new FakeSink();
  const ps = plans(3, 4);
  const bad = ps[1]?.events[2];
  assert.ok(bad !== undefined);
  sink.refuse = (row) => row.row.equals(bad.data.row.key);
  const c = new WriteCoalescer({ writer: eventWriter(sink), lingerMs: 20, maxRows: 10_000 });
  const [r0, r1, r2] = await Promise.all(ps.map((p) => c.write(p)));
  assert.deepEqual(r0, []);
  assert.deepEqual(r2, []);
  assert.deepEqual(
    r1?.map((r) => [r.record, r.reason]),
    [[bad.record, 'hbase_rejected']],
  );
  assert.equal(sink.keys(TABLES.data).length, 11, "every other event's data row");
});

void test('a failed write fails every unit in it; the next write is a new group', async () => {
  const sink = new FakeSink();
  sink.failures = [new Error('gateway gone')];
  const c = new WriteCoalescer({ writer: eventWriter(sink), lingerMs: 20, maxRows: 10_000 });
  const ps = plans(2, 3);
  const settled = await Promise.allSettled(ps.map((p) => c.write(p)));
  assert.deepEqual(
    settled.map((s) => s.status),
    ['rejected', 'rejected'],
  );
  assert.match(String((settled[0] as PromiseRejectedResult).reason), /gateway gone/);
  assert.deepEqual(await c.write(ps[0] as BatchPlan), []);
  assert.equal(sink.keys(TABLES.data).length, 3, 'only the retried unit is written');
});

void test('a group reaching maxRows is written at once, without waiting for the linger', async () => {
  const sink = new FakeSink();
  const c = new WriteCoalescer({ writer: eventWriter(sink), lingerMs: 500, maxRows: 10 });
  const ps = plans(3, 5);
  const first = Promise.all([c.write(ps[0] as BatchPlan), c.write(ps[1] as BatchPlan)]);
  await new Promise((r) => setImmediate(r));
  assert.equal(sink.attempts.filter((p) => p.table === TABLES.data).length, 1, 'the two units (10 rows) were sent before any timer ran');
  assert.deepEqual(await first, [[], []]);
  const third = c.write(ps[2] as BatchPlan);
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(sink.attempts.filter((p) => p.table === TABLES.data).length, 1, 'a group below maxRows waits for its linger');
  assert.deepEqual(await c.write({ events: [], rejects: [], fences: new Map() }), [], 'a unit without events is not written and does not wait');
  assert.deepEqual(await third, []);
  assert.equal(sink.keys(TABLES.data).length, 15, 'the third unit after its linger');
});

void test('mergePlans keeps every event in hand-in order; splitRefused returns each refusal to its unit', () => {
  const ps = plans(3, 2);
  const merged = mergePlans(ps);
  assert.deepEqual(
    merged.events,
    ps.flatMap((p) => p.events),
  );
  assert.equal(mergePlans([ps[0] as BatchPlan]), ps[0], 'one plan is written as it is');
  const refusal = (p: number, e: number) => ({
    record: (ps[p] as BatchPlan).events[e]?.record ?? record(-1, null),
    reason: 'hbase_rejected' as const,
    detail: 'x',
  });
  const parts = splitRefused(ps, [refusal(2, 1), refusal(0, 0), refusal(2, 0)]);
  assert.deepEqual(
    parts.map((r) => r.map((x) => x.record.offset)),
    [['0'], [], ['5', '4']],
  );
  assert.throws(() => splitRefused(ps, [{ record: record(99, null), reason: 'hbase_rejected', detail: 'x' }]), /belongs to no unit/);
});
