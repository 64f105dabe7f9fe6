// EventWriter with an in-memory sink: data rows before index rows and rollup markers, 400 bisection
// down to the offending row, refused rows get neither index rows nor markers, buckets travel with rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import PQueue from 'p-queue';
import { planBatch } from '../../../src/ingest/batch-plan.ts';
import { EventWriter } from '../../../src/ingest/event-writer.ts';
import { OutagePolicy } from '../../../src/ingest/outage-policy.ts';
import { OutageWatch } from '../../../src/ingest/outage-watch.ts';
import { RollupMarks } from '../../../src/ingest/rollup-marks.ts';
import { decodeMarkerKey, indexSaltOf, saltOf } from '../../../src/keys/index.ts';
import { parseWindow } from '../../../src/rollup/windows.ts';
import { FakeSink, RowRefused, SETTINGS, Transient, event, record, recordingObserver } from './fixtures.ts';

const TABLES = { data: 'd_t', index: 'i_t' };

function writer(
  sink: FakeSink,
  opts: { marks?: boolean; chunkRows?: number; watch?: OutageWatch } = {},
): { w: EventWriter; rec: ReturnType<typeof recordingObserver> } {
  const rec = recordingObserver();
  const w = new EventWriter({
    sink,
    queue: new PQueue({ concurrency: 2 }),
    tables: TABLES,
    chunk: { maxRows: opts.chunkRows ?? 100, maxBytes: 1 << 20 },
    policy: new OutagePolicy({
      retry: { baseMs: 1, maxMs: 2 },
      isRetriable: (e) => e instanceof Transient,
      isAnswer: (e) => e instanceof RowRefused,
      watch: opts.watch,
    }),
    isRowRejection: (e) => e instanceof RowRefused,
    observer: rec.observer,
    marks:
      opts.marks === true
        ? { table: 'r_t', planner: new RollupMarks({ window: parseWindow('1h'), graceMs: 60_000, keyspace: SETTINGS.keyspace, family: 'd', cacheSize: 0 }) }
        : undefined,
  });
  return { w, rec };
}

const ids = (n: number): string[] => Array.from({ length: n }, (_, i) => `dev-${i % 7}`);

void test('every data row is acknowledged before any index row or marker is sent', async () => {
  const sink = new FakeSink();
  const { w } = writer(sink, { marks: true, chunkRows: 3 });
  const events = Array.from({ length: 10 }, (_, i) => event(i));
  const plan = planBatch(
    events.map((e, i) => record(i, e)),
    SETTINGS,
  );
  const refused = await w.write(plan);
  assert.deepEqual(refused, []);
  const order = sink.attempts.map((p) => p.table);
  const lastData = order.lastIndexOf(TABLES.data);
  const firstOther = order.findIndex((t) => t !== TABLES.data);
  assert.ok(lastData >= 0 && firstOther > lastData, `data first, then the rest: ${order.join(',')}`);
  assert.equal(sink.keys(TABLES.data).length, 10);
  assert.equal(sink.keys(TABLES.index).length, 10, 'one index row per event with a site tag');
  const markerIds = sink.markedIds('r_t');
  assert.deepEqual([...markerIds].sort(), [...new Set(ids(10))].sort(), 'one mark per id touched (all in one hour)');
  assert.equal(new Set(sink.keys('r_t')).size, sink.keys('r_t').length, 'one row per (bucket, window)');
});

void test('a 400 is bisected to the offending row; it gets no index row and no marker', async () => {
  const sink = new FakeSink();
  const events = Array.from({ length: 16 }, (_, i) => (i === 5 ? { ...event(i), id: 'lonely' } : event(i)));
  const plan = planBatch(
    events.map((e, i) => record(i, e)),
    SETTINGS,
  );
  const bad = plan.events[5]?.data.row.key.toString('hex');
  sink.refuse = (row) => row.row.toString('hex') === bad;
  const { w } = writer(sink, { marks: true, chunkRows: 16 });
  const refused = await w.write(plan);
  assert.equal(refused.length, 1);
  assert.equal(refused[0]?.record.offset, '5');
  assert.equal(refused[0].reason, 'hbase_rejected');
  assert.ok(!sink.keys(TABLES.data).includes(bad ?? ''), 'the refused row was not written');
  assert.equal(sink.keys(TABLES.data).length, 15, 'every other row of the chunk was written');
  const indexed = plan.events.filter((e) => e.record.offset !== '5').flatMap((e) => e.index.map((r) => r.row.key.toString('hex')));
  assert.deepEqual(sink.keys(TABLES.index).sort(), indexed.sort(), 'index rows only for written events');
  const markerIds = sink.markedIds('r_t');
  assert.ok(!markerIds.includes('lonely'), 'no marker for the refused event');
  assert.ok(markerIds.includes('dev-0'), 'markers for the written ones');
  // Bisection halves the chunk: 1 + 2·log2(16) tries, not one per row.
  assert.equal(sink.attempts.filter((a) => a.table === TABLES.data).length, 9);
});

void test('a refused index row: the event is dead-lettered saying its data row (mark, catalog row) is stored, the rest stand', async () => {
  const sink = new FakeSink();
  const events = Array.from({ length: 16 }, (_, i) => (i === 5 ? { ...event(i), id: 'lonely' } : event(i)));
  const plan = planBatch(
    events.map((e, i) => record(i, e)),
    SETTINGS,
  );
  const data = plan.events[5]?.data.row.key.toString('hex') ?? '';
  const bad = plan.events[5]?.index[0]?.row.key.toString('hex');
  assert.ok(bad !== undefined, 'event 5 has an index row');
  sink.refuse = (row) => row.row.toString('hex') === bad;
  const { w } = writer(sink, { marks: true, chunkRows: 16 });
  const refused = await w.write(plan);
  assert.equal(refused.length, 1);
  const r = refused[0];
  assert.equal(r?.record.offset, '5');
  assert.equal(r.reason, 'hbase_rejected');
  assert.equal(r.stored, 'data-row', 'the DLQ record says the data row is kept');
  assert.match(r.detail, /refused the index row; the data row is stored/);
  assert.ok(sink.keys(TABLES.data).includes(data), 'its data row stands');
  assert.ok(sink.markedIds('r_t').includes('lonely'), 'its rollup mark stands (the window holds its data row)');
  assert.ok(!sink.keys(TABLES.index).includes(bad), 'the refused index row is not written');
  assert.equal(sink.keys(TABLES.index).length, 15, "every other event's index row is written");
  // a refused data row says nothing is stored
  const other = new FakeSink();
  other.refuse = (row) => row.row.toString('hex') === data;
  const dataRefused = await writer(other, { marks: true, chunkRows: 16 }).w.write(plan);
  assert.equal(dataRefused[0]?.stored, undefined);
});

void test('written rows carry the salt bucket the planner computed', async () => {
  const sink = new FakeSink();
  const { w, rec } = writer(sink, { marks: true });
  const events = Array.from({ length: 9 }, (_, i) => event(i));
  await w.write(
    planBatch(
      events.map((e, i) => record(i, e)),
      SETTINGS,
    ),
  );
  const byKey = new Map(rec.written.flatMap((x) => x.rows.map((r) => [`${x.table}:${r.key.toString('hex')}`, r.bucket] as const)));
  const plan = planBatch(
    events.map((e, i) => record(i, e)),
    SETTINGS,
  );
  for (const e of plan.events) {
    assert.equal(byKey.get(`${TABLES.data}:${e.data.row.key.toString('hex')}`), saltOf(e.id, SETTINGS.keyspace.buckets));
    for (const r of e.index) {
      const site = (events[Number(e.record.offset)]?.['tags'] as { site: string }).site;
      assert.equal(
        byKey.get(`${TABLES.index}:${r.row.key.toString('hex')}`),
        indexSaltOf({ indexName: 'site', value: site, id: e.id }, SETTINGS.keyspace.buckets, 'entry'),
      );
    }
  }
  const markerKeys = sink.keys('r_t');
  assert.ok(markerKeys.length > 0);
  for (const k of markerKeys) {
    const { salt } = decodeMarkerKey(Buffer.from(k, 'hex'), SETTINGS.keyspace.buckets);
    assert.equal(byKey.get(`r_t:${k}`), salt, 'a marker row is counted in its own bucket');
  }
  for (const id of new Set(plan.events.map((e) => e.id))) {
    assert.ok(
      markerKeys.some((k) => Buffer.from(k, 'hex')[0] === saltOf(id, SETTINGS.keyspace.buckets)),
      `a marker row in ${id}'s bucket was written`,
    );
  }
});

void test('retriable failures are retried; the watch hears the failure and the acknowledgement', async () => {
  const sink = new FakeSink();
  sink.failures = [new Transient('503'), new Transient('503')];
  const heard: string[] = [];
  const watch = new OutageWatch({ deadlineMs: 1000 });
  watch.listen({ onOutage: () => heard.push('outage'), onRecovered: () => heard.push('recovered'), onFailing: () => heard.push('failing') });
  const { w } = writer(sink, { watch });
  await w.write(planBatch([record(0, event(0, false))], SETTINGS));
  assert.equal(sink.keys(TABLES.data).length, 1);
  assert.equal(sink.attempts.length, 3, 'two failures, then success');
  assert.deepEqual(heard, ['failing'], 'one failing stretch reported, no outage within the deadline');
  assert.equal(watch.unacknowledgedMs(), 0, 'nothing pending afterwards');
});

void test('a non-retriable, non-400 error fails the write', async () => {
  const sink = new FakeSink();
  sink.failures = [new Error('table is gone')];
  const { w } = writer(sink);
  await assert.rejects(w.write(planBatch([record(0, event(0))], SETTINGS)), /table is gone/);
  assert.equal(sink.keys(TABLES.index).length, 0, 'no index row after a failed data write');
});
