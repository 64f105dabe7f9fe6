// Marker rows (one per bucket and window, one cell per id, one version cell): how the job takes and
// removes them. One check-and-delete per row; a re-mark of ANY id of the row during the run keeps
// the whole row (found re-marked); settling ids stay while the others go; rows wider than a page; per-id
// markers of earlier versions; a row holding only its version cell.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeIdMarkerKey, saltOf } from '../../../src/keys/index.ts';
import { RollupJob } from '../../../src/rollup/job.ts';
import { LEGACY_QUALIFIER, VERSION_QUALIFIER, markerRow, newMarkerValue } from '../../../src/rollup/marker.ts';
import { putRowOf } from '../../../src/rollup/fold.ts';
import type { RollupSettings } from '../../../src/rollup/rollup-settings.ts';
import type { RollupStore } from '../../../src/rollup/store.ts';
import { bruteSummaries, sorted, summariesOfRows, type Ev } from './brute.ts';
import { FakeHBase } from '../../support/fake-hbase.ts';
import { B, DAY0, HOUR, MIN, markEvents, markerRows, marksIn, readMetrics, recording, settings, silentLog, writeEvents } from './job-fixture.ts';

const NOW = DAY0 + 5 * 24 * HOUR;

function run(store: RollupStore, s: RollupSettings, now: () => number = () => NOW): Promise<Awaited<ReturnType<RollupJob['run']>>> {
  return new RollupJob({ store, settings: s, metrics: readMetrics(s).metrics, log: silentLog, now }).run();
}

/** `n` ids that all hash to bucket `salt` of B. */
function idsOfBucket(salt: number, n: number): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < n; i++) if (saltOf(`dev-${i}`, B) === salt) out.push(`dev-${i}`);
  return out;
}

const mark = (s: RollupSettings, id: string, windowStart: number, stamp: number): ReturnType<typeof putRowOf> =>
  putRowOf(markerRow({ id, windowSec: 60, windowStart }, { keyspace: s.keyspace, family: s.rollupFamily, stamp }));

void test('a row wider than a page is recomputed in chunks and removed by one check-and-delete', async () => {
  const s = settings(['1m', '1h'], { pageRows: 5 });
  const store = new FakeHBase();
  const ids = idsOfBucket(1, 23);
  const events: Ev[] = ids.map((id, i) => ({ id, ts: DAY0 + 7, metric: 'x', value: i }));
  await writeEvents(store, s, events);
  await markEvents(store, s, events);
  assert.equal(markerRows(store, s).length, 1, 'one row marks all 23 ids');
  const rec = recording(store);
  const report = await run(rec.store, s);
  assert.equal(report.sizes[0]?.written, 23);
  assert.equal(rec.log.filter((c) => c.op === 'scan' && c.table === s.dataTable).length, 5, '23 windows in chunks of 5');
  assert.equal(rec.log.filter((c) => c.op === 'checkAndDelete' && c.keys[0]?.readUInt32BE(2) === 60).length, 1, 'one delete for the row');
  assert.deepEqual(marksIn(store, s), []);
  assert.deepEqual(sorted(summariesOfRows(store.rows(s.rollupTable))), sorted(bruteSummaries(events, [60, 3600])));
});

void test('a re-mark of another id of the row during the run keeps the whole row (found re-marked); the next run redoes it', async () => {
  const s = settings();
  const store = new FakeHBase();
  const [a, b] = idsOfBucket(2, 2) as [string, string];
  const t0 = DAY0 + 3 * HOUR;
  const first: Ev[] = [{ id: a, ts: t0 + 1, metric: 'v', value: 1 }];
  const late: Ev = { id: b, ts: t0 + 2, metric: 'v', value: 5 };
  await writeEvents(store, s, first);
  await markEvents(store, s, first);
  let raced = false;
  // b's event arrives (data, then its mark in the same row) while the job reads a's data
  const racing: RollupStore = {
    scan: (table, opts) => {
      if (table !== s.dataTable || raced) return store.scan(table, opts);
      raced = true;
      return (async function* () {
        const rows = [];
        for await (const r of store.scan(table, opts)) rows.push(r);
        await writeEvents(store, s, [late]);
        await store.put(s.rollupTable, [mark(s, b, t0, 50_000_000)]);
        yield* rows;
      })();
    },
    put: (t, r) => store.put(t, r),
    checkAndDelete: (t, d) => store.checkAndDelete(t, d),
  };
  const one = await run(racing, s);
  assert.equal(raced, true);
  assert.equal(one.sizes[0]?.remarked, 1, "a's window: its row was re-marked");
  assert.equal(one.ok, true);
  assert.deepEqual(marksIn(store, s), [`${a}|60|${t0}`, `${b}|60|${t0}`], 'nothing marked is lost');
  const two = await run(store, s);
  assert.equal(two.sizes[0]?.written, 2);
  assert.deepEqual(marksIn(store, s), []);
  assert.deepEqual(sorted(summariesOfRows(store.rows(s.rollupTable))), sorted(bruteSummaries([...first, late], [60, 3600])));
});

void test('settling ids of a row stay while its settled ids are rolled up and removed', async () => {
  const settle = 120_000;
  const s = settings(['1m', '1h'], { markerSettleMs: settle });
  const store = new FakeHBase();
  const [old, fresh] = idsOfBucket(3, 2) as [string, string];
  const t0 = DAY0 + 10 * HOUR;
  const events: Ev[] = [
    { id: old, ts: t0 + 5, metric: 'x', value: 1 },
    { id: fresh, ts: t0 + 6, metric: 'x', value: 2 },
  ];
  await writeEvents(store, s, events);
  await store.put(s.rollupTable, [mark(s, old, t0, NOW - 200_000)]);
  await store.put(s.rollupTable, [mark(s, fresh, t0, NOW - 30_000)]);
  assert.equal(markerRows(store, s).filter((k) => k.readUInt32BE(2) === 60).length, 1, 'both ids in one row');
  const one = await run(store, s);
  assert.deepEqual([one.sizes[0]?.pending, one.sizes[0]?.settling, one.sizes[0]?.written], [2, 1, 1]);
  assert.deepEqual(
    marksIn(store, s).filter((m) => m.includes('|60|')),
    [`${fresh}|60|${t0}`],
    'the settling id is still marked',
  );
  const two = await run(store, s, () => NOW + settle);
  assert.equal(two.sizes[0]?.written, 1);
  assert.deepEqual(marksIn(store, s), []);
  assert.deepEqual(sorted(summariesOfRows(store.rows(s.rollupTable))), sorted(bruteSummaries(events, [60, 3600])));
});

void test('per-id markers of earlier versions are rolled up and removed, beside marker rows of the same window', async () => {
  const s = settings();
  const store = new FakeHBase();
  const t0 = DAY0 + 4 * HOUR;
  const [legacy, current] = idsOfBucket(0, 2) as [string, string];
  const events: Ev[] = [
    { id: legacy, ts: t0 + 1, metric: 'x', value: 3 },
    { id: current, ts: t0 + 2, metric: 'x', value: 4 },
  ];
  await writeEvents(store, s, events);
  const legacyKey = encodeIdMarkerKey({ id: legacy, windowSec: 60, windowStart: t0 }, B);
  await store.put(s.rollupTable, [
    { row: legacyKey, cells: [{ column: Buffer.concat([Buffer.from('r:'), LEGACY_QUALIFIER]), value: newMarkerValue(77), timestamp: 77 }] },
  ]);
  await store.put(s.rollupTable, [mark(s, current, t0, 78)]);
  assert.deepEqual(marksIn(store, s), [`${legacy}|60|${t0}`, `${current}|60|${t0}`].sort());
  const report = await run(store, s);
  assert.equal(report.sizes[0]?.written, 2);
  assert.deepEqual(markerRows(store, s), [], 'both kinds removed (the cascade wrote marker rows only, and they are done)');
  assert.deepEqual(sorted(summariesOfRows(store.rows(s.rollupTable))), sorted(bruteSummaries(events, [60, 3600])));
});

void test('a row holding only its version cell is removed; a version cell is never taken for an id', async () => {
  const s = settings();
  const store = new FakeHBase();
  const key = s.keyspace.markerKey({ id: 'x', windowSec: 60, windowStart: DAY0 });
  await store.put(s.rollupTable, [
    { row: key, cells: [{ column: Buffer.concat([Buffer.from('r:'), VERSION_QUALIFIER]), value: newMarkerValue(9), timestamp: 9 }] },
  ]);
  const report = await run(store, s);
  assert.deepEqual([report.sizes[0]?.pending, report.sizes[0]?.written, report.errors], [0, 0, 0]);
  assert.deepEqual(markerRows(store, s), []);
});

void test('an id cell of the wrong bucket is an error of its row; other rows are rolled up', async () => {
  const s = settings();
  const store = new FakeHBase();
  const [good] = idsOfBucket(1, 1) as [string];
  const [foreign] = idsOfBucket(2, 1) as [string];
  const events: Ev[] = [{ id: good, ts: DAY0 + 5, metric: 'x', value: 1 }];
  await writeEvents(store, s, events);
  await markEvents(store, s, events);
  // a cell naming an id of bucket 2 in a row of bucket 1 (not something ingest writes)
  const badRow = s.keyspace.markerKey({ id: good, windowSec: 60, windowStart: DAY0 + MIN });
  await store.put(s.rollupTable, [{ row: badRow, cells: [{ column: Buffer.from(`r:${foreign}`), value: Buffer.alloc(0), timestamp: 5 }] }]);
  const fine = (await run(store, s)).sizes[0];
  assert.ok(fine !== undefined);
  assert.deepEqual([fine.errors, fine.written], [1, 1]);
  assert.deepEqual(
    markerRows(store, s).map((k) => k.toString('hex')),
    [badRow.toString('hex')],
    'the bad row stays for a human',
  );
});
