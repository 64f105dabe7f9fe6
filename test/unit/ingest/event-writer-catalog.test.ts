// EventWriter and the series catalog: catalog rows only after the data rows are acknowledged, only for
// events HBase accepted, once per series (repeat units write none), counted through catalogWritten
// and not reported as data/index rows; a failed catalog put fails the unit and nothing is remembered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import PQueue from 'p-queue';
import { decodeSeriesRow, GENERATION_ROW, JOURNAL_KEEP_MS, JOURNAL_PREFIX } from '../../../src/catalog/rows.ts';
import { planBatch } from '../../../src/ingest/batch-plan.ts';
import { CatalogMarks } from '../../../src/catalog/marks.ts';
import { EventWriter, type WriteObserver } from '../../../src/ingest/event-writer.ts';
import { OutagePolicy } from '../../../src/ingest/outage-policy.ts';
import { FakeSink, RowRefused, SETTINGS, Transient, event, record } from './fixtures.ts';

const TABLES = { data: 'd_t', index: 'i_t' };

function writer(sink: FakeSink) {
  const counted: { table: string; rows: number }[] = [];
  const writtenTables: string[] = [];
  const observer: WriteObserver = {
    written: (table) => {
      writtenTables.push(table);
    },
    failed: () => undefined,
    retried: () => undefined,
    catalogWritten: (table, rows) => {
      counted.push({ table, rows });
    },
  };
  const planner = new CatalogMarks({ family: 'm', cacheSize: 1000 });
  const w = new EventWriter({
    sink,
    queue: new PQueue({ concurrency: 2 }),
    tables: TABLES,
    chunk: { maxRows: 4, maxBytes: 1 << 20 },
    policy: new OutagePolicy({ retry: { baseMs: 1, maxMs: 2 }, isRetriable: (e) => e instanceof Transient, isAnswer: (e) => e instanceof RowRefused }),
    isRowRejection: (e) => e instanceof RowRefused,
    observer,
    catalog: { table: 'meta_t', planner },
  });
  return { w, counted, writtenTables, planner };
}

const series = (sink: FakeSink) =>
  sink.puts
    .filter((p) => p.table === 'meta_t')
    .flatMap((p) =>
      p.rows
        .filter((r) => !r.row.equals(GENERATION_ROW) && !r.row.subarray(0, JOURNAL_PREFIX.length).equals(JOURNAL_PREFIX))
        .map((r) => {
          const s = decodeSeriesRow(r.row, r.cells[0]?.value ?? Buffer.alloc(0));
          assert.equal(r.cells[0]?.column.toString(), 'm:t');
          return `${s?.metric}|${s?.id}|${JSON.stringify(s?.tags)}`;
        }),
    )
    .sort();

void test('catalog rows follow the data rows, once per series; repeat units write none', async () => {
  const sink = new FakeSink();
  const { w, counted, writtenTables } = writer(sink);
  const evs = Array.from({ length: 21 }, (_, i) => event(i)); // ids dev-0…6, sites s0…2: 21 distinct series
  assert.deepEqual(
    await w.write(
      planBatch(
        evs.map((e, i) => record(i, e)),
        SETTINGS,
      ),
    ),
    [],
  );
  const order = sink.attempts.map((p) => p.table);
  assert.ok(order.lastIndexOf(TABLES.data) < order.indexOf('meta_t'), `data first: ${order.join(',')}`);
  const want = [...new Set(evs.map((e) => `temp|${String(e['id'])}|${JSON.stringify(e['tags'])}`))].sort();
  assert.equal(want.length, 21);
  assert.deepEqual(series(sink), want);
  assert.equal(
    counted.reduce((s, c) => s + c.rows, 0),
    21,
  );
  assert.ok(counted.every((c) => c.table === 'meta_t'));
  assert.ok(!writtenTables.includes('meta_t'), 'catalog rows are not reported as written data rows');
  // the catalog's generation: replaced once, after every series row of the unit is acknowledged
  const metaPuts = sink.puts.filter((p) => p.table === 'meta_t');
  const bumps = metaPuts.flatMap((p, i) => (p.rows.some((r) => r.row.equals(GENERATION_ROW)) ? [i] : []));
  assert.deepEqual(bumps, [metaPuts.length - 1], 'one generation put, the last');
  assert.equal(metaPuts.at(-1)?.rows.length, 1, 'alone in its put');
  assert.deepEqual(
    metaPuts.at(-1)?.rows[0]?.cells.map((c) => c.column.toString()),
    ['m:g', 'm:j'],
    'the token, and again in j: this writer keeps the journal',
  );
  assert.ok(metaPuts.at(-1)?.rows[0]?.cells[0]?.value.equals(metaPuts.at(-1)?.rows[0]?.cells[1]?.value ?? Buffer.alloc(0)));
  // the journal: one row of the minute, a cell per series row (its key, its cell), acknowledged before the generation
  const journals = metaPuts.flatMap((p, i) => p.rows.filter((r) => r.row.subarray(0, JOURNAL_PREFIX.length).equals(JOURNAL_PREFIX)).map((r) => ({ i, r })));
  assert.equal(journals.length, 1, 'one journal row');
  const j = journals[0] as (typeof journals)[number];
  assert.ok(j.i < metaPuts.length - 1, 'before the generation');
  assert.match(j.r.row.toString('latin1'), /^catalog\/journal\/\d{4}$/);
  const listed = j.r.cells.map((c) => {
    const s = decodeSeriesRow(c.column.subarray(2), c.value);
    return `${s?.metric}|${s?.id}|${JSON.stringify(s?.tags)}`;
  });
  assert.deepEqual(listed.sort(), want, 'the journal lists every series row of the unit');
  assert.ok(j.r.cells.every((c) => c.column.subarray(0, 2).toString() === 'm:'));
  const stamp = j.r.cells[0]?.timestamp as number;
  assert.deepEqual(
    sink.deletes,
    [{ table: 'meta_t', row: j.r.row.toString('latin1'), timestamp: stamp - JOURNAL_KEEP_MS }],
    "the row's cells older than it keeps, swept once",
  );
  const before = sink.attempts.length;
  await w.write(
    planBatch(
      evs.map((e, i) => record(100 + i, e)),
      SETTINGS,
    ),
  );
  assert.equal(sink.attempts.filter((a, i) => i >= before && a.table === 'meta_t').length, 0, 'second pass: no catalog put');
  assert.equal(
    counted.reduce((s, c) => s + c.rows, 0),
    21,
  );
});

void test('a refused event gets no catalog row; a failed catalog put fails the unit and is retried next time', async () => {
  const sink = new FakeSink();
  const { w, planner } = writer(sink);
  const evs = [{ ...event(0), id: 'lonely' }, event(1)];
  const plan = planBatch(
    evs.map((e, i) => record(i, e)),
    SETTINGS,
  );
  const bad = plan.events[0]?.data.row.key.toString('hex');
  sink.refuse = (row) => row.row.toString('hex') === bad;
  const refused = await w.write(plan);
  assert.equal(refused.length, 1);
  assert.deepEqual(
    series(sink).map((s) => s.split('|')[1]),
    ['dev-1'],
  );

  const sink2 = new FakeSink();
  const { w: w2, planner: p2 } = writer(sink2);
  sink2.refuse = (row) => row.row.toString('latin1').startsWith('series/');
  await assert.rejects(w2.write(planBatch([record(0, event(3))], SETTINGS)), RowRefused);
  assert.equal(p2.cached, 0, 'nothing remembered without the acknowledgement');
  sink2.refuse = () => false;
  const bumpsBefore = sink2.puts.filter((p) => p.rows.some((r) => r.row.equals(GENERATION_ROW))).length;
  assert.equal(bumpsBefore, 0, 'no generation put for a unit whose series rows failed');
  await w2.write(planBatch([record(0, event(3))], SETTINGS));
  assert.equal(series(sink2).length, 1);
  assert.equal(sink2.puts.filter((p) => p.rows.some((r) => r.row.equals(GENERATION_ROW))).length, 1);
  assert.equal(planner.cached, 1);
});
