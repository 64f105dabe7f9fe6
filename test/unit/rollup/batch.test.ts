// The batched recompute: its planning (one scan over the windows' own source ranges, spread windows
// left single, one cascade marker per coarser window), and a
// bad source row failing its own window only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cascadeMarkers, planBatch, rangeCursor } from '../../../src/rollup/batch-plan.ts';
import { RollupJob } from '../../../src/rollup/job.ts';
import { putRowOf } from '../../../src/rollup/fold.ts';
import { parseMarkerRow, sourceOf, type FoundMarker } from '../../../src/rollup/plan.ts';
import { markerRow } from '../../../src/rollup/marker.ts';
import type { RollupSettings } from '../../../src/rollup/rollup-settings.ts';
import type { RollupKeyParts } from '../../../src/keys/index.ts';
import { fixedSpread, testKeyspace } from '../../support/keyspace.ts';
import { bruteSummaries, sorted, summariesOfRows, type Ev } from './brute.ts';
import { FakeHBase } from '../../support/fake-hbase.ts';
import { B, DAY0, HOUR, MIN, markEvents, marksIn, randomEvents, readMetrics, settings, silentLog, writeEvents } from './job-fixture.ts';

function found(s: RollupSettings, parts: RollupKeyParts, stamp = 5): FoundMarker {
  const row = markerRow(parts, { keyspace: s.keyspace, family: s.rollupFamily, stamp });
  const m = parseMarkerRow(row.key, row.cells, s.keyspace)?.windows[0];
  assert.ok(m !== undefined);
  return m;
}

/** The (id, window) marks of put rows, as `id|windowSec|windowStart` in row order, then cell order. */
function marksOf(s: RollupSettings, rows: readonly { row: Buffer; cells: readonly { column: Buffer; value: Buffer; timestamp?: number }[] }[]): string[] {
  return rows.flatMap((r) => {
    const cells = r.cells.map((c) => ({ qualifier: c.column.subarray(c.column.indexOf(0x3a) + 1), value: c.value, timestamp: c.timestamp ?? 0 }));
    return (parseMarkerRow(r.row, cells, s.keyspace)?.windows ?? []).map((m) => `${m.parts.id}|${m.parts.windowSec}|${m.parts.windowStart}`);
  });
}

const key = (b: number, ...rest: number[]): Buffer => Buffer.from([b, ...rest]);

void test('rangeCursor: each ascending key to the range holding it, keys between or after ranges to none', () => {
  const at = rangeCursor([
    { startRow: key(1), stopRow: key(3) },
    { startRow: key(5), stopRow: key(6) },
    { startRow: key(6), stopRow: key(8) },
  ]);
  assert.deepEqual([key(0), key(1), key(2, 9), key(3), key(4), key(5), key(5, 255), key(6), key(7), key(8), key(9)].map(at), [
    undefined,
    0,
    0,
    undefined,
    undefined,
    1,
    1,
    2,
    2,
    undefined,
    undefined,
  ]);
  assert.equal(rangeCursor([])(key(1)), undefined);
});

void test("planBatch: finest size = the windows' own data ranges, sorted, in one filtered scan", () => {
  const s = settings(['1m', '1h']);
  const markers = [
    found(s, { id: 'b', windowSec: 60, windowStart: DAY0 + MIN }),
    found(s, { id: 'a', windowSec: 60, windowStart: DAY0 + 5 * MIN }),
    found(s, { id: 'a', windowSec: 60, windowStart: DAY0 }),
  ];
  const plan = planBatch(s.windows, markers, s.keyspace);
  assert.deepEqual(plan.singles, []);
  const own = (m: FoundMarker): Buffer => {
    const src = sourceOf(s.windows, { id: m.parts.id, windowSec: 60, start: m.parts.windowStart }, s.keyspace);
    assert.ok(src.kind === 'data' && src.ranges.length === 1);
    return (src.ranges[0] as { startRow: Buffer }).startRow;
  };
  const starts = plan.windows.map((w) => w.range.startRow);
  assert.deepEqual(
    starts,
    [...starts].sort((a, b) => Buffer.compare(a, b)),
    'sorted',
  );
  assert.deepEqual(new Set(plan.windows.map((w) => w.marker)), new Set(markers));
  for (const w of plan.windows) assert.ok(w.range.startRow.equals(own(w.marker)), "each window's range is what its own scan reads");
  assert.ok(plan.scan !== undefined);
  assert.equal(plan.scan.source, 'data');
  assert.ok(plan.scan.startRow.equals(starts[0] as Buffer));
  assert.ok(plan.scan.stopRow.equals(plan.windows.at(-1)?.range.stopRow ?? Buffer.alloc(0)));
  assert.equal('timeRange' in plan.scan, false, "no cell time range (it defeats the filter's seeks)");
  assert.ok(plan.scan.filter.type === 'MultiRowRangeFilter' && plan.scan.filter.ranges.length === 3);
});

void test('planBatch: a coarser size reads finer summaries; spread windows stay single', () => {
  const spread = { hot: { epochs: [{ since: DAY0 + 30 * MIN, k: 2 }], fence: null } };
  const s = settings(['1m', '1h'], { keyspace: testKeyspace(B, 'binary', 'entry', fixedSpread(spread)) });
  const coarse = planBatch(
    s.windows,
    [found(s, { id: 'a', windowSec: 3600, windowStart: DAY0 }), found(s, { id: 'hot', windowSec: 3600, windowStart: DAY0 })],
    s.keyspace,
  );
  assert.equal(coarse.scan?.source, 'summaries');
  assert.equal(coarse.windows.length, 2, 'summaries of a spread id are in its base bucket: one range');
  const before = found(s, { id: 'hot', windowSec: 60, windowStart: DAY0 + 29 * MIN });
  const after = found(s, { id: 'hot', windowSec: 60, windowStart: DAY0 + 30 * MIN });
  const fine = planBatch(s.windows, [before, after, found(s, { id: 'a', windowSec: 60, windowStart: DAY0 })], s.keyspace);
  assert.deepEqual(fine.singles, [after], 'rows in 2 buckets: recomputed on its own');
  assert.deepEqual(fine.windows.map((w) => w.marker.parts.id).sort(), ['a', 'hot']);
  assert.equal(planBatch(s.windows, [after], s.keyspace).scan, undefined);
});

void test('cascadeMarkers: one mark per enclosing coarser window, one row per (bucket, coarser window), none for the coarsest size', () => {
  const s = settings(['1m', '1h', '1d']);
  let stamp = 100;
  const o = { keyspace: s.keyspace, family: s.rollupFamily, stamp: () => stamp++ };
  const ids = Array.from({ length: 12 }, (_, i) => `dev-${i}`);
  const windows = [
    found(s, { id: 'a', windowSec: 60, windowStart: DAY0 }),
    found(s, { id: 'a', windowSec: 60, windowStart: DAY0 + MIN }),
    found(s, { id: 'a', windowSec: 60, windowStart: DAY0 + HOUR }),
    ...ids.map((id) => found(s, { id, windowSec: 60, windowStart: DAY0 })),
  ];
  const rows = cascadeMarkers(s.windows, windows, o);
  assert.deepEqual(marksOf(s, rows).sort(), [`a|3600|${DAY0}`, `a|3600|${DAY0 + HOUR}`, ...ids.map((id) => `${id}|3600|${DAY0}`)].sort());
  const keys = rows.map((r) => r.row.toString('hex'));
  assert.equal(new Set(keys).size, keys.length, 'one row per (bucket, window)');
  assert.ok(rows.length < ids.length + 2, `ids of a bucket share its row (${B} buckets)`);
  assert.deepEqual(new Set(rows.flatMap((r) => r.cells.map((c) => c.timestamp))), new Set([100]), 'one stamp for the whole cascade');
  assert.equal(stamp, 101);
  assert.deepEqual(cascadeMarkers(s.windows, [found(s, { id: 'a', windowSec: 86_400, windowStart: DAY0 })], o), []);
});

void test("a bad row in one window's source fails that window only (the batch is redone window by window)", async () => {
  const s = settings(['1m', '1h']);
  const store = new FakeHBase();
  const events = randomEvents({ seed: 21, n: 120, ids: 5, from: DAY0, hours: 1 });
  await writeEvents(store, s, events);
  await markEvents(store, s, events);
  // a data row whose metric cell is not an 8-byte double, in a window of its own
  const bad: Ev = { id: 'dev-1', ts: DAY0 + 2 * HOUR + 5, metric: 'temp', value: 0 };
  await store.put(s.dataTable, [
    { row: s.keyspace.dataKey(bad.id, bad.ts), cells: [{ column: Buffer.from('d:temp'), value: Buffer.from([1, 2, 3]), timestamp: bad.ts }] },
  ]);
  await store.put(s.rollupTable, [
    putRowOf(markerRow({ id: bad.id, windowSec: 60, windowStart: bad.ts - (bad.ts % MIN) }, { keyspace: s.keyspace, family: s.rollupFamily, stamp: 7 })),
  ]);
  const { metrics } = readMetrics(s);
  const report = await new RollupJob({ store, settings: s, metrics, log: silentLog, now: () => DAY0 + 10 * 24 * HOUR }).run();
  assert.equal(report.errors, 1);
  assert.equal(report.sizes[0]?.errors, 1);
  assert.deepEqual(marksIn(store, s), [`${bad.id}|60|${bad.ts - (bad.ts % MIN)}`], 'only the bad window keeps its mark');
  assert.deepEqual(sorted(summariesOfRows(store.rows(s.rollupTable))), sorted(bruteSummaries(events, [60, 3600])), 'every other window is exact');
});
