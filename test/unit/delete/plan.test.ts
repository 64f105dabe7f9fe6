import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dataScans, indexRowsOf, markerAction, markerScan, recomputeMarks, summaryScans, windowCuts } from '../../../src/delete/plan.ts';
import { TAGS_QUALIFIER } from '../../../src/events/cells.ts';
import { encodeIdMarkerKey } from '../../../src/keys/rollup-key.ts';
import { LEGACY_QUALIFIER, VERSION_QUALIFIER } from '../../../src/rollup/marker.ts';
import { parseWindows } from '../../../src/rollup/windows.ts';
import { fixedSpread, testKeyspace } from '../../support/keyspace.ts';

const HOUR = 3_600_000;
const windows = parseWindows(['1h', '1d']);
const inRange = (key: Buffer, r: { startRow: Buffer; stopRow: Buffer }): boolean => Buffer.compare(key, r.startRow) >= 0 && Buffer.compare(key, r.stopRow) < 0;
const cell = (qualifier: Buffer, value = Buffer.alloc(0)): { qualifier: Buffer; value: Buffer; timestamp: number } => ({ qualifier, value, timestamp: 1 });

void test('data scans: one per bucket, each holding the id and never an id it is a prefix of', () => {
  const ks = testKeyspace(16, 'binary', 'entry', fixedSpread({ ab: { epochs: [{ since: 0, k: 4 }], fence: null } }));
  const scans = dataScans(ks, 'a', null);
  assert.equal(scans.length, 16);
  assert.deepEqual(
    scans.map((s) => s.unit),
    Array.from({ length: 16 }, (_, b) => `data/${b}`),
  );
  for (let b = 0; b < 16; b++) {
    const scan = scans[b];
    assert.ok(scan !== undefined);
    assert.ok(inRange(ks.dataKey('a', 5, (b - ks.baseSalt('a') + 16) % 16), scan.range), `bucket ${b} holds a's row`);
    for (let j = 0; j < 4; j++) {
      const ab = ks.dataKey('ab', 5, j);
      if (ab[0] === b) assert.equal(inRange(ab, scan.range), false, 'ab is not a');
    }
  }
});

void test('data scans of a range: the events in [from, to), to exclusive', () => {
  const ks = testKeyspace(4);
  const [scan] = dataScans(ks, 'dev', { from: 1000, to: 2000 }).filter((s) => s.bucket === ks.baseSalt('dev'));
  assert.ok(scan !== undefined);
  assert.equal(inRange(ks.dataKey('dev', 1000), scan.range), true);
  assert.equal(inRange(ks.dataKey('dev', 1999), scan.range), true);
  assert.equal(inRange(ks.dataKey('dev', 2000), scan.range), false);
  assert.equal(inRange(ks.dataKey('dev', 999), scan.range), false);
  assert.throws(() => dataScans(ks, 'dev', { from: 2000, to: 2000 }), /before --to/);
});

void test('index rows of a data row: its indexed tags, in the bucket of its spread offset', () => {
  const ks = testKeyspace(16, 'binary', 'entry', fixedSpread({ hot: { epochs: [{ since: 0, k: 4 }], fence: null } }));
  const key = ks.dataKey('hot', 1_732_262_400_000);
  const tags = cell(TAGS_QUALIFIER, Buffer.from('{"rack":"r1","site":"s1"}'));
  const r = indexRowsOf(ks, ['site', 'zone'], key, [cell(Buffer.from('temp')), tags]);
  assert.deepEqual(r.values, [{ tag: 'site', value: 's1' }]);
  assert.equal(r.ts, 1_732_262_400_000);
  const offset = ks.offsetOf('hot', r.ts);
  assert.deepEqual(r.keys, [ks.indexKey({ indexName: 'site', value: 's1', ts: r.ts, id: 'hot' }, offset)]);
  assert.deepEqual(indexRowsOf(ks, ['site'], key, [cell(Buffer.from('temp'))]).keys, [], 'no tags cell: no index row');
});

void test('window cuts: windows wholly inside [from, to) and the ones it cuts', () => {
  const [h, d] = windowCuts(windows, { from: 90 * 60_000, to: 5 * HOUR }).map((c) => ({ whole: c.whole, cut: c.cut }));
  assert.deepEqual(h, { whole: { fromStart: 2 * HOUR, toStart: 4 * HOUR }, cut: [1 * HOUR] });
  assert.deepEqual(d, { whole: null, cut: [0] });
  assert.deepEqual(recomputeMarks('x', windows, { from: 90 * 60_000, to: 5 * HOUR }), [
    { id: 'x', windowSec: 3600, windowStart: HOUR },
    { id: 'x', windowSec: 86400, windowStart: 0 },
  ]);
  assert.deepEqual(
    windowCuts(windows, { from: 0, to: 24 * HOUR }).map((c) => c.cut),
    [[], []],
  );
});

void test('summary scans: the whole id prefix, or the whole windows of a range', () => {
  const ks = testKeyspace(16);
  const [all] = summaryScans(ks, 'a', windows, null);
  assert.ok(all !== undefined);
  assert.equal(inRange(ks.rollupKey({ id: 'a', windowSec: 3600, windowStart: HOUR }), all), true);
  assert.equal(inRange(ks.rollupKey({ id: 'a', windowSec: 86400, windowStart: 0 }), all), true);
  assert.equal(inRange(ks.markerKey({ id: 'a', windowSec: 3600, windowStart: HOUR }), all), false, 'markers are apart');
  const scans = summaryScans(ks, 'a', windows, { from: HOUR, to: 3 * HOUR });
  assert.equal(scans.length, 1, 'no day lies wholly in two hours');
  const [hours] = scans;
  assert.ok(hours !== undefined);
  assert.equal(inRange(ks.rollupKey({ id: 'a', windowSec: 3600, windowStart: 2 * HOUR }), hours), true);
  assert.equal(inRange(ks.rollupKey({ id: 'a', windowSec: 3600, windowStart: 3 * HOUR }), hours), false);
});

void test('marker action: the id cell only (never the version cell or another id), legacy rows whole, ranges by window', () => {
  const ks = testKeyspace(1);
  const key = ks.markerKey({ id: 'a', windowSec: 3600, windowStart: HOUR });
  assert.equal(inRange(key, markerScan(ks, 'a')), true);
  const version = cell(VERSION_QUALIFIER, Buffer.alloc(16));
  assert.deepEqual(
    markerAction({ keyspace: ks, id: 'a', windows, range: null }, { row: key, cells: [cell(Buffer.from('a')), cell(Buffer.from('ab')), version] }),
    {
      kind: 'cell',
      qualifier: Buffer.from('a'),
    },
  );
  assert.equal(markerAction({ keyspace: ks, id: 'a', windows, range: null }, { row: key, cells: [cell(Buffer.from('ab')), version] }), null);
  assert.equal(
    markerAction({ keyspace: ks, id: 'a', windows, range: { from: 0, to: 2 * HOUR } }, { row: key, cells: [cell(Buffer.from('a'))] }) !== null,
    true,
  );
  assert.equal(
    markerAction({ keyspace: ks, id: 'a', windows, range: { from: 0, to: HOUR + 1 } }, { row: key, cells: [cell(Buffer.from('a'))] }),
    null,
    'a cut window keeps its mark',
  );
  const legacy = encodeIdMarkerKey({ id: 'a', windowSec: 3600, windowStart: HOUR }, 1);
  assert.deepEqual(markerAction({ keyspace: ks, id: 'a', windows, range: null }, { row: legacy, cells: [cell(LEGACY_QUALIFIER)] }), { kind: 'row' });
  assert.equal(markerAction({ keyspace: ks, id: 'ab', windows, range: null }, { row: legacy, cells: [cell(LEGACY_QUALIFIER)] }), null);
  // a touch row of the tail cache's ring, in the same scan: the whole id takes its cell, a range leaves it
  const touch = ks.touchKey(ks.baseSalt('a'), 17);
  assert.equal(inRange(touch, markerScan(ks, 'a')), true);
  const touched = { row: touch, cells: [cell(Buffer.from('a')), cell(Buffer.from('b'))] };
  assert.deepEqual(markerAction({ keyspace: ks, id: 'a', windows, range: null }, touched), { kind: 'cell', qualifier: Buffer.from('a') });
  assert.equal(markerAction({ keyspace: ks, id: 'a', windows, range: { from: 0, to: 100 * HOUR } }, touched), null);
});
