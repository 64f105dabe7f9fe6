// Downsampler / FillingDownsampler, ported vectors from test/core/TestDownsampler.java and
// TestFillingDownsampler.java (OpenTSDB 2.4.1).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { previousInterval } from '../../../src/series-compute/calendar.ts';
import { Downsampler, FillingDownsampler, downsampleFixed } from '../../../src/series-compute/downsampler.ts';
import { AGGREGATOR_NAMES } from '../../../src/series-language/types.ts';
import { allSpec, assertPoints, calendarSpec, drainView, spec, view } from './compute-helpers.ts';

const NaN_ = Number.NaN;

test('TestFillingDownsampler.testNaNMissingInterval: 100ms-sum-nan fills every bucket of [start, end)', () => {
  const b = 500;
  const src = view([4, 5, 7, 12, 15, 24, 25, 26, 27].map((k) => [b + 25 * k, 1] as const));
  const ds = new FillingDownsampler(src, { startMs: b, endMs: b + 36 * 25 }, spec(100, 'ms', 'sum', 'nan'), { startMs: 0, endMs: 0 });
  assertPoints(drainView(ds), [
    [500, NaN_],
    [600, 3],
    [700, NaN_],
    [800, 2],
    [900, NaN_],
    [1000, NaN_],
    [1100, 4],
    [1200, NaN_],
    [1300, NaN_],
  ]);
});

test('TestFillingDownsampler.testZeroMissingInterval: 100ms-sum-zero', () => {
  const b = 500;
  const src = view([4, 5, 7, 12, 15, 24, 25, 26, 27].map((k) => [b + 25 * k, 1] as const));
  const ds = new FillingDownsampler(src, { startMs: b, endMs: b + 36 * 25 }, spec(100, 'ms', 'sum', 'zero'), { startMs: 0, endMs: 0 });
  assertPoints(drainView(ds), [
    [500, 0],
    [600, 3],
    [700, 0],
    [800, 2],
    [900, 0],
    [1000, 0],
    [1100, 4],
    [1200, 0],
    [1300, 0],
  ]);
});

test('TestFillingDownsampler.testWithoutMissingIntervals', () => {
  const b = 1000;
  const src = view(Array.from({ length: 12 }, (_, k) => [b + 25 * k, 12 - k] as const));
  const ds = new FillingDownsampler(src, { startMs: b, endMs: b + 12 * 25 }, spec(100, 'ms', 'sum', 'nan'), { startMs: 0, endMs: 0 });
  assertPoints(drainView(ds), [
    [1000, 42],
    [1100, 26],
    [1200, 10],
  ]);
});

test('TestFillingDownsampler.testWithOutOfBoundsData: earlier buckets are consumed, later ones not emitted', () => {
  const b = 1425335895000;
  const src = view([
    [b - 300000 + 320, 53],
    [b - 120000 + 8839, 16],
    [b + 849, 9],
    [b + 3849, 8],
    [b + 6210, 7],
    [b + 42216, 6],
    [b + 60000 + 167, 5],
    [b + 60000 + 28593, 4],
    [b + 120000 + 30384, 37],
    [b + 240000 + 1530, 86],
  ]);
  const ds = new FillingDownsampler(src, { startMs: b, endMs: b + 120000 }, spec(1, 'm', 'sum', 'nan'), { startMs: 0, endMs: 0 });
  assertPoints(drainView(ds), [
    [1425335880000, 30],
    [1425335940000, 9],
  ]);
});

test('TestFillingDownsampler.testDownsampler_allFullRange: 0all-sum-nan → one point at query start', () => {
  const B = 1356998400000;
  const src = view([5, 15, 25, 35, 45, 55].map((s, i) => [B + s * 1000, 2 ** i] as const));
  const ds = new FillingDownsampler(src, { startMs: B + 5000, endMs: B + 55000 }, allSpec('sum', 'nan'), { startMs: 0, endMs: Number.MAX_SAFE_INTEGER });
  assertPoints(drainView(ds), [[0, 63]]);
});

test('0all with query bounds: values in [queryStart, queryEnd) only, stamped queryStart (Downsampler run_all)', () => {
  const B = 1356998400000;
  const src = view([5, 15, 25, 35, 45, 55].map((s, i) => [B + s * 1000, 2 ** i] as const));
  const ds = new Downsampler(src, allSpec('sum', 'none'), B + 15000, B + 45000);
  assertPoints(drainView(ds), [[B + 15000, 2 + 4 + 8]]);
});

test('TestFillingDownsampler.testDownsampler_calendarDay: fixed 1d control and 1dc in Pacific/Funafuti (+12)', () => {
  const DST_TS = 1450137600000;
  const pts = [
    [DST_TS, 1],
    [DST_TS + 86399000, 2],
    [DST_TS + 126001000, 3],
    [DST_TS + 172799000, 4],
    [DST_TS + 172800000, 5],
    [DST_TS + 242999000, 6],
  ] as const;
  const control = new FillingDownsampler(view(pts), { startMs: DST_TS, endMs: DST_TS + 86400000 * 4 }, spec(1, 'd', 'sum', 'nan'), {
    startMs: 0,
    endMs: Number.MAX_SAFE_INTEGER,
  });
  assertPoints(drainView(control), [
    [DST_TS, 3],
    [DST_TS + 86400000, 7],
    [DST_TS + 2 * 86400000, 11],
    [DST_TS + 3 * 86400000, NaN_],
  ]);
  const tv = new FillingDownsampler(
    view(pts),
    { startMs: 1450094400000 - 86400000, endMs: DST_TS + 86400000 * 5 },
    calendarSpec(spec(1, 'd', 'sum', 'nan'), 'Pacific/Funafuti'),
    { startMs: 0, endMs: Number.MAX_SAFE_INTEGER },
  );
  const t0 = 1450094400000 - 86400000;
  assertPoints(drainView(tv), [
    [t0, NaN_],
    [t0 + 86400000, 1],
    [t0 + 2 * 86400000, 5],
    [t0 + 3 * 86400000, 9],
    [t0 + 4 * 86400000, 6],
    [t0 + 5 * 86400000, NaN_],
  ]);
});

test('TestFillingDownsampler.testDownsampler_calendarMonth: fixed 1n (30 d) control and 1nc in Pacific/Funafuti', () => {
  const dec1 = 1448928000000;
  const pts = [
    [dec1, 1],
    [1451559600000, 2],
    [1451606400000, 3],
    [1454284800000, 4],
    [1456704000000, 5],
    [1456772400000, 6],
  ] as const;
  const control = new FillingDownsampler(view(pts), { startMs: dec1, endMs: dec1 + 2592000000 * 5 }, spec(1, 'n', 'sum', 'nan'), {
    startMs: 0,
    endMs: Number.MAX_SAFE_INTEGER,
  });
  assertPoints(drainView(control), [
    [dec1, 1],
    [dec1 + 2592000000, 5],
    [dec1 + 2 * 2592000000, 4],
    [dec1 + 3 * 2592000000, 11],
    [dec1 + 4 * 2592000000, NaN_],
  ]);
  const tv = new FillingDownsampler(view(pts), { startMs: dec1, endMs: dec1 + 2592000000 * 6 }, calendarSpec(spec(1, 'n', 'sum', 'nan'), 'Pacific/Funafuti'), {
    startMs: 0,
    endMs: Number.MAX_SAFE_INTEGER,
  });
  assertPoints(drainView(tv), [
    [1448884800000, 3],
    [1451563200000, 3],
    [1454241600000, 9],
    [1456747200000, 6],
    [1459425600000, NaN_],
  ]);
});

test('Downsampler (fill none): TestDownsampler-style 10s avg, empty buckets absent, bucket on epoch multiples', () => {
  const B = 1356998400000;
  const src = view([
    [B + 0, 1],
    [B + 7000, 3],
    [B + 10000, 5],
    [B + 35000, 6],
    [B + 38000, 8],
  ]);
  const ds = new Downsampler(src, spec(10, 's', 'avg', 'none'), 0, 0);
  assertPoints(drainView(ds), [
    [B, 2],
    [B + 10000, 5],
    [B + 30000, 7],
  ]);
});

test('Downsampler.seek aligns up to the next bucket: a partial first bucket is skipped', () => {
  const B = 1356998400000;
  const src = view([
    [B + 1000, 100],
    [B + 9000, 100],
    [B + 10000, 1],
    [B + 12000, 3],
  ]);
  const ds = new Downsampler(src, spec(10, 's', 'sum', 'none'), 0, 0);
  ds.seek(B + 1000);
  assertPoints(drainView(ds), [[B + 10000, 4]]);
});

test('DateTime.previousInterval: 1d in Asia/Shanghai at 16:00 UTC, weeks on Sunday, months, 7m from the top of the day', () => {
  const t = Date.UTC(2024, 4, 15, 3, 0, 0); // Wed 2024-05-15 03:00 UTC = 11:00 in Shanghai
  assert.equal(previousInterval(t, 1, 'd', 'Asia/Shanghai'), Date.UTC(2024, 4, 14, 16));
  assert.equal(previousInterval(t, 1, 'w', 'UTC'), Date.UTC(2024, 4, 12)); // Sunday
  assert.equal(previousInterval(t, 1, 'n', 'UTC'), Date.UTC(2024, 4, 1));
  assert.equal(previousInterval(t, 3, 'n', 'UTC'), Date.UTC(2024, 3, 1)); // Jan, Apr, Jul, Oct
  assert.equal(previousInterval(t, 1, 'y', 'UTC'), Date.UTC(2024, 0, 1));
  assert.equal(previousInterval(Date.UTC(2024, 4, 15, 0, 20), 7, 'm', 'UTC'), Date.UTC(2024, 4, 15, 0, 14));
  assert.equal(previousInterval(Date.UTC(2024, 4, 15, 5, 20), 6, 'h', 'Asia/Kabul'), Date.UTC(2024, 4, 15, 1, 30)); // 09:50 +04:30 → 06:00 local
});

test("DateTime.previousInterval across DST, values from java.util.Calendar (JDK 17, en locale) running 2.4.1's code", () => {
  // 3w steps 7 days from a January anchor; the Oct 18 2015 midnight DST gap in Sao Paulo moves it to 01:00
  assert.equal(previousInterval(1450233375568, 3, 'w', 'America/Sao_Paulo'), 1449975600000);
  // 1dc in Pacific/Fiji over its Jan 2016 DST end (TestFillingDownsampler's FJ zone)
  assert.equal(previousInterval(1450137600000, 1, 'd', 'Pacific/Fiji'), 1450090800000);
});

test('downsampleFixed gives what the Downsampler gives (fixed intervals, every aggregator, random series with repeated stamps)', () => {
  let seed = 7;
  const rand = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (const agg of AGGREGATOR_NAMES) {
    for (const [count, unit] of [
      [1, 'm'],
      [5, 'm'],
      [250, 'ms'],
    ] as const) {
      const points: [number, number][] = [];
      let t = 1_700_000_000_000 + Math.floor(rand() * 100_000);
      for (let i = 0; i < 400; i++) {
        t += rand() < 0.1 ? 0 : Math.floor(rand() * 40_000);
        points.push([t, rand() < 0.2 ? Math.floor(rand() * 10) : rand() * 100 - 50]);
      }
      const sp = spec(count, unit, agg, 'none');
      const old = (): [number, number][] => drainView(new Downsampler(view(points), sp, 0, Number.MAX_SAFE_INTEGER));
      const fast = (): { ts: number[]; values: number[] } =>
        downsampleFixed(
          points.map((p) => p[0]),
          points.map((p) => p[1]),
          sp.intervalMs,
          sp.fn,
        );
      let expected: [number, number][];
      try {
        expected = old();
      } catch (err) {
        // (`none` refuses a bucket of two values: both refuse alike)
        assert.throws(fast, { message: (err as Error).message }, `${count}${unit}-${agg}`);
        continue;
      }
      const got = fast();
      assert.deepEqual(
        got.ts.map((x, i) => [x, got.values[i]]),
        expected,
        `${count}${unit}-${agg}`,
      );
    }
  }
  assert.deepEqual(downsampleFixed([], [], 60_000, spec(1, 'm', 'sum', 'none').fn), { ts: [], values: [] });
});
