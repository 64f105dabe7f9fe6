import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EXPIRE_PER_CALL, RollupMarks } from '../../../src/ingest/rollup-marks.ts';
import { decodeMarkerKey, saltOf } from '../../../src/keys/index.ts';
import { LATE_REMARK_EVERY_MS, VERSION_QUALIFIER } from '../../../src/rollup/marker.ts';
import { parseWindow } from '../../../src/rollup/windows.ts';
import { testKeyspace } from '../../support/keyspace.ts';

const HOUR = parseWindow('1h');
const T0 = Date.UTC(2026, 10, 22, 10, 0, 0); // 10:00 UTC, a window start

function marks(now: { t: number }, cacheSize = 100, graceMs = 300_000): RollupMarks {
  return new RollupMarks({ window: HOUR, graceMs, keyspace: testKeyspace(16), family: 'd', cacheSize, now: () => now.t });
}

test('one id cell per distinct (id, window), one row per (bucket, window) with a version cell unique to the put', () => {
  const now = { t: T0 + 30 * 60_000 };
  const ids = Array.from({ length: 40 }, (_, i) => `dev${i}`);
  const touches = [
    { id: 'dev1', ts: T0 + 1 },
    { id: 'dev1', ts: T0 + 3_599_999 }, // same window (last ms)
    { id: 'dev1', ts: T0 + 3_600_000 }, // next window (its first ms)
    ...ids.map((id) => ({ id, ts: T0 + 17 })),
  ];
  const rows = marks(now).rowsFor(touches);
  // expected: the distinct (id, window) pairs, grouped by (salt(id), window)
  const want = new Map<string, Set<string>>();
  for (const [id, start] of [['dev1', T0 + 3_600_000] as const, ...ids.map((id) => [id, T0] as const)]) {
    const k = `${saltOf(id, 16)}|${start}`;
    want.set(k, (want.get(k) ?? new Set()).add(id));
  }
  const got = new Map<string, Set<string>>();
  for (const r of rows) {
    const d = decodeMarkerKey(r.row.key, 16);
    assert.equal(d.id, null, 'a marker row key names no id');
    assert.equal(d.windowSec, 3600);
    assert.equal(r.windowStart, d.windowStart);
    const idCells = r.row.cells.filter((c) => c.qualifier[0] !== 0x00);
    const version = r.row.cells.filter((c) => c.qualifier.equals(VERSION_QUALIFIER));
    assert.equal(version.length, 1, 'one version cell');
    assert.equal(version[0]?.value.readBigInt64BE(0), BigInt(r.stamp), 'the version holds writtenAt');
    for (const c of r.row.cells) assert.equal(c.timestamp, r.stamp);
    assert.deepEqual(
      idCells.map((c) => c.qualifier.toString('utf8')),
      [...r.ids],
    );
    assert.deepEqual(
      r.cacheKeys,
      r.ids.map((id) => `${d.windowStart}\u0000${id}`),
    );
    got.set(`${d.salt}|${d.windowStart}`, new Set(r.ids));
  }
  assert.deepEqual(got, want);
  assert.equal(rows.length, want.size, 'one row per (bucket, window)');
  const versions = rows.map((r) => r.row.cells.find((c) => c.qualifier.equals(VERSION_QUALIFIER))?.value.toString('hex'));
  assert.equal(new Set(versions).size, rows.length, 'every version value is unique');
  assert.deepEqual(marks(now).rowsFor([]), [], 'nothing touched: no row');
});

test('cell timestamps strictly increase even when the clock stands still', () => {
  const now = { t: T0 };
  const m = marks(now, 0);
  const a = m.rowsFor([{ id: 'x', ts: T0 }])[0]?.row.cells[0]?.timestamp ?? 0;
  const b = m.rowsFor([{ id: 'x', ts: T0 }])[0]?.row.cells[0]?.timestamp ?? 0;
  assert.ok(b > a, `${b} > ${a}`);
});

test('an acknowledged mark of an open window is not rewritten; a late touch after close re-marks', () => {
  const now = { t: T0 + 10 * 60_000 };
  const m = marks(now);
  const first = m.rowsFor([{ id: 'hot', ts: T0 + 5 }]);
  assert.equal(first.length, 1);
  // not yet acknowledged: still written again
  assert.equal(m.rowsFor([{ id: 'hot', ts: T0 + 6 }]).length, 1);
  m.acknowledged(first);
  assert.equal(m.rowsFor([{ id: 'hot', ts: T0 + 7 }]).length, 0, 'window open, marker known to exist');
  // window end 11:00 + 5 min grace − 60 s margin = 11:04: from then on every touch re-marks
  now.t = T0 + 3_600_000 + 240_000;
  assert.equal(m.rowsFor([{ id: 'hot', ts: T0 + 8 }]).length, 1, 'close to closing: re-mark');
});

test('entries that expire together leave a few at a time; an expired entry still in the cache re-marks', () => {
  const now = { t: T0 + 60_000 };
  const m = new RollupMarks({ window: HOUR, graceMs: 300_000, keyspace: testKeyspace(16), family: 'd', cacheSize: 100_000, now: () => now.t });
  const ids = Array.from({ length: 3 * EXPIRE_PER_CALL + 10 }, (_, i) => `dev${i}`);
  m.acknowledged(m.rowsFor(ids.map((id) => ({ id, ts: T0 + 1 }))));
  assert.equal(m.cached, ids.length);
  // past the window's end + grace − margin: every entry expired at once
  now.t = T0 + 3_600_000 + 300_000;
  const one = m.rowsFor([{ id: 'late', ts: T0 + 3_600_000 + 5 }]);
  m.acknowledged(one);
  assert.equal(m.cached, ids.length + 1 - EXPIRE_PER_CALL, 'one call removed EXPIRE_PER_CALL expired entries, no more');
  assert.equal(m.rowsFor([{ id: ids.at(-1) as string, ts: T0 + 2 }]).length, 1, 'an expired entry not removed yet: re-marked all the same');
  for (let i = 0; i < 3; i++) m.acknowledged([]);
  assert.equal(m.cached, 1, 'the next calls removed the rest; the new window entry stays');
});

test('the cache is bounded and cacheSize 0 disables it', () => {
  const now = { t: T0 };
  const m = marks(now, 3);
  const rows = m.rowsFor(['a', 'b', 'c', 'd', 'e'].map((id) => ({ id, ts: T0 })));
  m.acknowledged(rows);
  assert.equal(m.cached, 3);
  assert.equal(m.rowsFor([{ id: 'e', ts: T0 }]).length, 0, 'most recent entries kept');
  assert.equal(m.rowsFor([{ id: 'a', ts: T0 }]).length, 1, 'oldest entries evicted');
  const off = marks(now, 0);
  const r = off.rowsFor([{ id: 'a', ts: T0 }]);
  off.acknowledged(r);
  assert.equal(off.cached, 0);
  assert.equal(off.rowsFor([{ id: 'a', ts: T0 }]).length, 1);
});

test('with a settle period, a closed window is re-marked once per settle period, not per touch', () => {
  // Catching up two days late: every window is closed, only the settle period keeps the marker in place.
  const now = { t: T0 + 2 * 86_400_000 };
  const m = new RollupMarks({ window: HOUR, graceMs: 300_000, settleMs: 120_000, keyspace: testKeyspace(16), family: 'd', cacheSize: 100, now: () => now.t });
  const first = m.rowsFor([{ id: 'late', ts: T0 + 5 }]);
  assert.equal(first.length, 1);
  assert.equal(first[0]?.stamp, first[0]?.row.cells[0]?.timestamp, 'the stamp is the cell timestamp');
  m.acknowledged(first);
  assert.equal(m.rowsFor([{ id: 'late', ts: T0 + 6 }]).length, 0, 'marker younger than the settle period: the job cannot have taken it');
  // settle 120 s − margin min(60 s, settle/2) = 60 s after the stamp, the job may soon take it: re-mark
  now.t += 59_999;
  assert.equal(m.rowsFor([{ id: 'late', ts: T0 + 7 }]).length, 0);
  now.t += 1;
  assert.equal(m.rowsFor([{ id: 'late', ts: T0 + 8 }]).length, 1, 'past the settle period minus the margin: re-mark');
  // without a settle period every touch of a closed window re-marks
  const none = marks({ t: T0 + 2 * 86_400_000 });
  none.acknowledged(none.rowsFor([{ id: 'late', ts: T0 + 5 }]));
  assert.equal(none.rowsFor([{ id: 'late', ts: T0 + 6 }]).length, 1);
});

test('a late touch (written lateMs after its ts, younger than the horizon) re-marks a cached window; live and old touches do not', () => {
  const now = { t: T0 + 30 * 60_000 };
  const m = new RollupMarks({
    window: HOUR,
    graceMs: 300_000,
    settleMs: 120_000,
    keyspace: testKeyspace(16),
    family: 'd',
    cacheSize: 100,
    lateMs: 30_000,
    lateHorizonMs: 7_200_000,
    now: () => now.t,
  });
  const first = m.rowsFor([{ id: 'a', ts: now.t - 1000 }]);
  assert.equal(first.length, 1);
  m.acknowledged(first);
  const ids = (rows: ReturnType<RollupMarks['rowsFor']>): string[] => rows.flatMap((r) => [...r.ids]);
  now.t += 60_000;
  assert.deepEqual(ids(m.rowsFor([{ id: 'a', ts: now.t - 100 }])), [], 'a live touch of a cached open window: skipped');
  assert.deepEqual(ids(m.rowsFor([{ id: 'a', ts: now.t - 29_000 }])), [], 'younger than lateMs: not late');
  assert.deepEqual(ids(m.rowsFor([{ id: 'a', ts: now.t - 31_000 }])), ['a'], 'older than lateMs: re-marked');
  // a unit whose first touch of the pair is live and a later one late: marked once
  assert.deepEqual(
    ids(
      m.rowsFor([
        { id: 'a', ts: now.t - 10 },
        { id: 'a', ts: now.t - 40_000 },
        { id: 'a', ts: now.t - 50_000 },
      ]),
    ),
    ['a'],
  );
  // older than the horizon: a catch-up of old data marks as before (its window is not cached: marked once, then skipped)
  const old = T0 - 3 * 3_600_000;
  const r = m.rowsFor([{ id: 'b', ts: old }]);
  assert.deepEqual(ids(r), ['b']);
  m.acknowledged(r);
  assert.deepEqual(ids(m.rowsFor([{ id: 'b', ts: old + 1 }])), [], 'older than the horizon: skipped while its marker settles, as without late re-marks');
});

test('no late re-marks without a horizon (series.tailCache.horizonMs 0)', () => {
  const now = { t: T0 + 30 * 60_000 };
  const m = marks(now);
  m.acknowledged(m.rowsFor([{ id: 'a', ts: T0 + 1 }]));
  assert.deepEqual(m.rowsFor([{ id: 'a', ts: T0 + 2 }]), []);
});

test('a late pair re-marked (and acknowledged) less than LATE_REMARK_EVERY_MS ago is not re-marked again; after it, it is', () => {
  const now = { t: T0 + 30 * 60_000 };
  const m = new RollupMarks({
    window: HOUR,
    graceMs: 300_000,
    keyspace: testKeyspace(16),
    family: 'd',
    cacheSize: 100,
    lateMs: 30_000,
    lateHorizonMs: 7_200_000,
    now: () => now.t,
  });
  const late = (): { id: string; ts: number } => ({ id: 'a', ts: now.t - 60_000 });
  const first = m.rowsFor([late()]);
  assert.equal(first.length, 1);
  m.acknowledged(first);
  now.t += LATE_REMARK_EVERY_MS - 1;
  assert.deepEqual(m.rowsFor([late()]), [], 'covered by the re-mark before it');
  now.t += 1;
  assert.equal(m.rowsFor([late()]).length, 1, 'a second later: re-marked');
  // a re-mark that was never acknowledged covers nothing
  const unacked = m.rowsFor([{ id: 'b', ts: now.t - 60_000 }]);
  assert.equal(unacked.length, 1);
  assert.equal(m.rowsFor([{ id: 'b', ts: now.t - 60_000 }]).length, 1);
});
