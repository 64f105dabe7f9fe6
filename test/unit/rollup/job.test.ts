import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeMarkerKey, encodeRollupKey } from '../../../src/keys/index.ts';
import { RollupJob } from '../../../src/rollup/job.ts';
import { bucketRuns, formatRunReport, type RunReport, type SizeReport } from '../../../src/rollup/run-report.ts';
import { VERSION_QUALIFIER, markerRow } from '../../../src/rollup/marker.ts';
import { putRowOf } from '../../../src/rollup/fold.ts';
import type { RollupStore } from '../../../src/rollup/store.ts';
import { bruteSummaries, sorted, summariesOfRows, type Ev } from './brute.ts';
import { FakeHBase } from '../../support/fake-hbase.ts';
import { B, DAY0, HOUR, MIN, markEvents, markerRows, marksIn, randomEvents, readMetrics, recording, settings, silentLog, writeEvents } from './job-fixture.ts';

const NOW = DAY0 + 5 * 24 * HOUR;

function size(r: RunReport, i: number): SizeReport {
  const s = r.sizes[i];
  assert.ok(s, `report of size #${i}`);
  return s;
}

function job(store: RollupStore, s = settings(), now = () => NOW): { job: RollupJob; metrics: ReturnType<typeof readMetrics>['metrics'] } {
  const { metrics } = readMetrics(s);
  return { job: new RollupJob({ store, settings: s, metrics, log: silentLog, now }), metrics };
}

async function metricValue(
  m: { get(): Promise<{ values: { labels: Record<string, string | number>; value: number }[] }> },
  labels: Record<string, string>,
): Promise<number> {
  const got = await m.get();
  return got.values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value ?? Number.NaN;
}

void test('one run: finest windows from events, coarser from finer (cascade), markers gone, = brute force', async () => {
  const s = settings();
  const store = new FakeHBase();
  // across a day boundary, with window-edge events and a duplicate
  const events: Ev[] = [
    ...randomEvents({ seed: 1, n: 400, ids: 5, from: DAY0 + 22 * HOUR, hours: 4 }),
    { id: 'edge', ts: DAY0 + 23 * HOUR, metric: 'm', value: 1 }, // = window start
    { id: 'edge', ts: DAY0 + 23 * HOUR + MIN - 1, metric: 'm', value: 2 }, // last ms
    { id: 'edge', ts: DAY0 + 23 * HOUR + MIN, metric: 'm', value: 4 }, // = end → next window
    { id: 'edge', ts: DAY0 + 24 * HOUR, metric: 'm', value: 8 }, // next hour and day
  ];
  const dup = { ...(events[0] as Ev) };
  await writeEvents(store, s, [...events, dup]);
  const marked = await markEvents(store, s, events);
  const { job: j, metrics } = job(store, s);
  const report = await j.run();
  const expected = bruteSummaries([...events, dup], [60, 3600]);
  assert.deepEqual(sorted(summariesOfRows(store.rows(s.rollupTable))), sorted(expected));
  assert.deepEqual(markerRows(store, s), [], 'no marker left');
  const fine = [...expected.keys()].filter((k) => k.split('|')[1] === '60').map((k) => k.split('|').slice(0, 3).join('|'));
  const coarse = [...expected.keys()].filter((k) => k.split('|')[1] === '3600').map((k) => k.split('|').slice(0, 3).join('|'));
  assert.equal(size(report, 0).pending, marked);
  assert.equal(size(report, 0).written, new Set(fine).size);
  assert.equal(size(report, 1).written, new Set(coarse).size, 'every touched hour re-marked by the cascade and rolled up in the same run');
  assert.equal(report.ok, true);
  assert.equal(report.errors, 0);
  assert.equal(await metricValue(metrics.rollupWindowsWritten, { window: '1m' }), new Set(fine).size);
  assert.equal(await metricValue(metrics.rollupMarkersRemarked, { window: '1m' }), 0);
  assert.equal((await metrics.rollupBucketsWorked.get()).values[0]?.value, B, 'every bucket worked');
  assert.equal(await metricValue(metrics.rollupRuns, { outcome: 'ok' }), 1);
  assert.equal(await metricValue(metrics.rollupLag, { window: '1m' }), 0, 'caught up');
  assert.equal(await metricValue(metrics.rollupPendingMarkers, { window: '1m' }), marked);
  assert.equal(
    formatRunReport({ ...report, durationMs: 1200 }),
    `rollup run: buckets worked ${B} of ${B} (0-${B - 1}), marked windows found ${marked + size(report, 1).pending}, windows written ${report.written} (1m ${size(report, 0).written}, 1h ${size(report, 1).written}), windows without data 0, markers found re-marked 0, errors 0, duration 1.20s`,
  );
  // Idempotent: a second run finds nothing, changes nothing.
  const before = sorted(summariesOfRows(store.rows(s.rollupTable)));
  const again = await j.run();
  assert.equal(again.written, 0);
  assert.deepEqual(sorted(summariesOfRows(store.rows(s.rollupTable))), before);
});

void test('open windows are left alone; lag and pending measure the closed backlog', async () => {
  const s = settings(['1m', '1h'], { graceMs: 30_000 });
  const store = new FakeHBase();
  const t0 = DAY0 + 10 * HOUR;
  const events: Ev[] = [
    { id: 'a', ts: t0 + 5, metric: 'x', value: 1 },
    { id: 'a', ts: t0 + MIN + 5, metric: 'x', value: 2 },
    { id: 'b', ts: t0 + 2 * MIN + 5, metric: 'x', value: 3 },
  ];
  await writeEvents(store, s, events);
  await markEvents(store, s, events);
  // now: window t0+1m ends at t0+2m, closed once now >= t0+2m+grace; window t0+2m is still open.
  const now = t0 + 2 * MIN + 30_000;
  const { job: j, metrics } = job(store, s, () => now);
  // Break the first window's recompute so its marker stays and the lag is measurable afterwards: the
  // batch's put fails (its windows are redone one by one), then the first window's own put.
  store.fail({ op: 'put', table: 'r', times: 2 });
  const report = await j.run();
  assert.equal(size(report, 0).pending, 2, 'two closed 1m windows');
  assert.equal(size(report, 0).errors, 1);
  assert.equal(report.ok, false);
  const left = marksIn(store, s);
  assert.ok(
    markerRows(store, s).some((k) => k.equals(encodeMarkerKey({ id: 'b', windowSec: 60, windowStart: t0 + 2 * MIN }, B))),
    'open window keeps its marker row',
  );
  assert.ok(left.includes(`b|60|${t0 + 2 * MIN}`), 'open window keeps its mark');
  assert.equal(left.filter((k) => k.startsWith('a|60|')).length, 1, 'the failed window keeps its mark, the other is gone');
  const lag = await metricValue(metrics.rollupLag, { window: '1m' });
  // the remaining closed marker is the one that failed: either t0 (end t0+1m) or t0+1m (end t0+2m)
  assert.ok(lag === (now - (t0 + MIN)) / 1000 || lag === (now - (t0 + 2 * MIN)) / 1000, `lag ${lag}`);
  assert.equal(await metricValue(metrics.rollupErrors, { stage: 'write' }), 1);
  assert.equal(await metricValue(metrics.rollupRuns, { outcome: 'error' }), 1);
  // The next run redoes the failed window.
  const second = await j.run();
  assert.equal(second.ok, true);
  assert.equal(size(second, 0).written, 1);
  assert.equal(await metricValue(metrics.rollupLag, { window: '1m' }), 0);
  const got = summariesOfRows(store.rows(s.rollupTable));
  assert.equal(got.get(`a|60|${t0}|x`)?.sum, 1);
  assert.equal(got.get(`a|60|${t0 + MIN}|x`)?.sum, 2);
  assert.equal(got.has(`b|60|${t0 + 2 * MIN}|x`), false, 'open window not rolled up');
  assert.equal(got.has(`a|3600|${t0}|x`), false, 'the hour is still open: its cascade marker waits');
});

void test('a marker re-marked during the recompute is not deleted (counted as found re-marked) and is redone next run', async () => {
  const s = settings();
  const store = new FakeHBase();
  const t0 = DAY0 + 3 * HOUR;
  const first: Ev = { id: 'late', ts: t0 + 10, metric: 'v', value: 1 };
  const lateEv: Ev = { id: 'late', ts: t0 + 20, metric: 'v', value: 10 };
  await writeEvents(store, s, [first]);
  await markEvents(store, s, [first]);
  let remarked = false;
  // The late event arrives (data, then a fresh marker) while the job reads the window's data.
  const racing: RollupStore = {
    scan: (table, opts) => {
      if (table === s.dataTable && !remarked) {
        remarked = true;
        return (async function* () {
          const rows = [];
          for await (const r of store.scan(table, opts)) rows.push(r);
          await writeEvents(store, s, [lateEv]);
          await store.put(s.rollupTable, [
            putRowOf(markerRow({ id: 'late', windowSec: 60, windowStart: t0 }, { keyspace: s.keyspace, family: s.rollupFamily, stamp: 10_000_000 })),
          ]);
          yield* rows;
        })();
      }
      return store.scan(table, opts);
    },
    put: (t, r) => store.put(t, r),
    checkAndDelete: (t, d) => store.checkAndDelete(t, d),
  };
  const { job: j, metrics } = job(racing, s);
  const one = await j.run();
  assert.equal(size(one, 0).remarked, 1);
  assert.equal(size(one, 0).written, 1, 'the window was written once, not twice');
  assert.equal(await metricValue(metrics.rollupMarkersRemarked, { window: '1m' }), 1);
  assert.equal(await metricValue(metrics.rollupWindowsWritten, { window: '1m' }), 1);
  assert.match(
    formatRunReport(one),
    /, windows written 2 \(1m 1, 1h 1\), windows without data 0, markers found re-marked 1 \(left for the next run\), errors 0,/,
  );
  assert.deepEqual(
    markerRows(store, s).map((k) => k.toString('hex')),
    [encodeMarkerKey({ id: 'late', windowSec: 60, windowStart: t0 }, B).toString('hex')],
  );
  assert.equal(summariesOfRows(store.rows(s.rollupTable)).get(`late|60|${t0}|v`)?.count, 1, 'the first recompute missed the late event');
  const two = await j.run();
  assert.equal(two.remarked, 0);
  assert.deepEqual(markerRows(store, s), []);
  assert.deepEqual(
    sorted(summariesOfRows(store.rows(s.rollupTable))),
    sorted(bruteSummaries([first, lateEv], [60, 3600])),
    'minute and hour include the late event',
  );
});

void test('summary cells carry the time the recompute started reading; a window without data writes nothing', async () => {
  const s = settings();
  const store = new FakeHBase();
  const t0 = DAY0;
  await writeEvents(store, s, [{ id: 'p', ts: t0 + 1, metric: 'q', value: 5 }]);
  await markEvents(store, s, [
    { id: 'p', ts: t0 + 1, metric: 'q', value: 5 },
    { id: 'ghost', ts: t0 + 1, metric: 'q', value: 0 },
  ]);
  let clock = NOW;
  const { job: j } = job(store, s, () => clock++);
  const report = await j.run();
  assert.equal(size(report, 0).empty, 1, 'ghost: marked without data');
  assert.equal(size(report, 0).written, 1);
  assert.deepEqual(markerRows(store, s), []);
  const rows = store.rows(s.rollupTable);
  assert.equal(
    rows.some((r) => r.row.equals(encodeRollupKey({ id: 'ghost', windowSec: 60, windowStart: t0 }, B))),
    false,
  );
  const fine = rows.find((r) => r.row.equals(encodeRollupKey({ id: 'p', windowSec: 60, windowStart: t0 }, B)));
  const ts = fine?.cells[0]?.timestamp ?? 0;
  assert.ok(ts >= NOW && ts < clock, `cell timestamp ${ts} comes from the job clock`);
});

void test("errors are isolated per marker row and counted by stage; a row goes only after its windows' summaries and cascade", async () => {
  const s = settings(['1m', '1h'], { concurrency: 1 });
  const store = new FakeHBase();
  const events = randomEvents({ seed: 5, n: 60, ids: 6, from: DAY0, hours: 1 });
  await writeEvents(store, s, events);
  const marked = await markEvents(store, s, events);
  const fineRows = markerRows(store, s).filter((k) => k.readUInt32BE(2) === 60);
  assert.ok(fineRows.length < marked, 'some rows mark several ids');
  store.fail({ op: 'checkAndDelete', table: 'r', times: 2 });
  const rec = recording(store);
  const { job: j, metrics } = job(rec.store, s);
  const one = await j.run();
  assert.equal(size(one, 0).errors, 2);
  assert.equal(await metricValue(metrics.rollupErrors, { stage: 'delete_marker' }), 2);
  assert.equal(size(one, 0).written, marked, 'every window was written');
  const expected = bruteSummaries(events, [60, 3600]);
  const fineOf = (m: ReadonlyMap<string, unknown>): string[] => [...m.keys()].filter((k) => k.split('|')[1] === '60').sort();
  assert.deepEqual(fineOf(summariesOfRows(store.rows(s.rollupTable))), fineOf(expected));
  assert.equal(markerRows(store, s).filter((k) => k.readUInt32BE(2) === 60).length, 2, 'the two failed deletes keep their rows');
  // One check-and-delete per finest marker row, each after the data read and after the put(s) of the
  // summaries and cascade markers of every window the row marks.
  const deletes = rec.log.filter((c) => c.op === 'checkAndDelete' && c.keys[0]?.readUInt32BE(2) === 60);
  assert.equal(deletes.length, fineRows.length, 'one check-and-delete per finest marker row, not per window');
  const idsOf = new Map<string, string[]>();
  for (const e of events) {
    const row = s.keyspace.markerKey({ id: e.id, windowSec: 60, windowStart: e.ts - (e.ts % MIN) }).toString('hex');
    if (!(idsOf.get(row) ?? []).includes(e.id)) idsOf.set(row, [...(idsOf.get(row) ?? []), e.id]);
  }
  rec.log.forEach((c, i) => {
    if (c.op !== 'checkAndDelete' || c.keys[0]?.readUInt32BE(2) !== 60) return;
    const { windowStart } = s.keyspace.decodeMarkerKey(c.keys[0]);
    const before = rec.log.slice(0, i);
    assert.ok(
      before.some((p) => p.op === 'scan' && p.table === s.dataTable),
      'data read first',
    );
    const ids = idsOf.get(c.keys[0].toString('hex')) ?? [];
    assert.ok(ids.length > 0);
    for (const id of ids) {
      const summary = s.keyspace.rollupKey({ id, windowSec: 60, windowStart });
      const cascade = s.keyspace.markerKey({ id, windowSec: 3600, windowStart: windowStart - (windowStart % HOUR) });
      assert.ok(
        before.some((p) => p.op === 'put' && p.keys.some((k) => k.equals(summary)) && p.keys.some((k) => k.equals(cascade))),
        `summary + cascade put before the delete of the row of ${id}@${windowStart}`,
      );
    }
  });
  // batched: one data scan and one put per chunk of windows, far fewer than one per window
  const scans = rec.log.filter((c) => c.op === 'scan' && c.table === s.dataTable).length;
  assert.ok(scans > 0 && scans <= Math.ceil(marked / 3) + B, `${scans} data scans for ${marked} windows`);
  const two = await j.run();
  assert.equal(two.ok, true);
  assert.deepEqual(markerRows(store, s), []);
  assert.deepEqual(sorted(summariesOfRows(store.rows(s.rollupTable))), sorted(expected));
});

void test('scan errors of one bucket do not stop the other buckets; an aborted run stops early', async () => {
  const s = settings(['1m']);
  const store = new FakeHBase();
  const events = randomEvents({ seed: 9, n: 80, ids: 12, from: DAY0, hours: 1 });
  await writeEvents(store, s, events);
  await markEvents(store, s, events);
  store.fail({ op: 'scan', table: 'r', times: 1 });
  const { job: j, metrics } = job(store, s);
  const one = await j.run();
  assert.ok(one.errors >= 1);
  assert.ok((await metricValue(metrics.rollupErrors, { stage: 'scan_markers' })) >= 1);
  assert.ok(one.written > 0, 'other buckets rolled up');
  const ac = new AbortController();
  ac.abort();
  const aborted = await j.run(ac.signal);
  assert.equal(aborted.aborted, true);
  assert.equal(aborted.ok, false);
  assert.equal(aborted.written, 0);
  const done = await j.run();
  assert.equal(done.ok, true);
  assert.deepEqual(markerRows(store, s), []);
  assert.deepEqual(sorted(summariesOfRows(store.rows(s.rollupTable))), sorted(bruteSummaries(events, [60])));
});

void test('aborted mid-page, the run stops at its next batch: the marker rows not finished stay for the next run', async () => {
  // one wide marker row per bucket (200 ids in one minute, ~50 a row): a page of several batches of pageRows (7)
  const s = settings(['1m'], { concurrency: 1 });
  const store = new FakeHBase();
  const t0 = DAY0 + 3 * HOUR;
  const events: Ev[] = Array.from({ length: 200 }, (_, i) => ({ id: `wide-${i}`, ts: t0 + i, metric: 'v', value: i }));
  await writeEvents(store, s, events);
  const marked = await markEvents(store, s, events);
  const ac = new AbortController();
  // the stop arrives while the first batch writes its summaries
  const stopping: RollupStore = {
    scan: (table, opts) => store.scan(table, opts),
    put: async (table, rows) => {
      await store.put(table, rows);
      if (table === s.rollupTable) ac.abort();
    },
    checkAndDelete: (t, d) => store.checkAndDelete(t, d),
  };
  const stopped = await job(stopping, s).job.run(ac.signal);
  assert.equal(stopped.aborted, true);
  assert.equal(stopped.written, s.pageRows, 'the batch in flight finished, no other batch began');
  assert.equal(marksIn(store, s).length, marked, 'every mark left: no marker row was finished');
  const done = await job(store, s).job.run();
  assert.equal(done.ok, true);
  assert.deepEqual(markerRows(store, s), []);
  assert.deepEqual(sorted(summariesOfRows(store.rows(s.rollupTable))), sorted(bruteSummaries(events, [60])));
});

void test('two runners at once give what one runner gives', async () => {
  const s = settings(['1m', '1h', '1d']);
  const events = randomEvents({ seed: 11, n: 300, ids: 7, from: DAY0 + 20 * HOUR, hours: 6 });
  const a = new FakeHBase();
  await writeEvents(a, s, events);
  await markEvents(a, s, events);
  const b = a.clone();
  await job(a, s).job.run();
  await Promise.all([job(b, s).job.run(), job(b, s).job.run()]);
  assert.deepEqual(sorted(summariesOfRows(b.rows(s.rollupTable))), sorted(summariesOfRows(a.rows(s.rollupTable))));
  assert.deepEqual(sorted(summariesOfRows(a.rows(s.rollupTable))), sorted(bruteSummaries(events, [60, 3600, 86_400])));
  assert.deepEqual(markerRows(b, s), []);
  // the version cell qualifier is reserved, never a metric nor an id
  assert.equal(VERSION_QUALIFIER[0], 0x00);
});

void test('bucketRuns: the buckets a run worked, as runs of consecutive numbers', () => {
  assert.equal(bucketRuns([0, 1, 2, 3, 7, 9, 10]), '0-3 7 9-10');
  assert.equal(bucketRuns([5]), '5');
  assert.equal(bucketRuns([]), 'none');
});
