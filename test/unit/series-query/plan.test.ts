// The planner: which sub-queries may read the rollups, and which of a rollup plan's buckets must come
// from raw points (open, marked, cut by the scan range, past the TTL).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseQueryBody } from '../../../src/series-language/parse-query.ts';
import {
  bucketRanges,
  chooseWindow,
  expiredRawBuckets,
  markerSizes,
  planSubQuery,
  rawBuckets,
  type RollupTier,
  type SubQueryPlan,
} from '../../../src/series-query/plan.ts';
import type { SubQuery } from '../../../src/series-language/types.ts';

const H = 3_600_000;
const DAY = 24 * H;
const T0 = Date.UTC(2026, 2, 1);
const TIER: RollupTier = { windowsMs: [H, DAY], graceMs: 60_000, ttlMsByWindow: new Map(), rawTtlMs: null, blocksTtlMs: null, blocks: true };
const NOW = T0 + 10 * DAY;
const ttls = (byWindow: readonly (readonly [number, number | null])[], rawTtlMs: number | null = null, windowsMs = [H, DAY]): RollupTier => ({
  ...TIER,
  windowsMs,
  ttlMsByWindow: new Map(byWindow),
  rawTtlMs,
  blocksTtlMs: rawTtlMs,
});

function sub(q: Record<string, unknown>): { sub: SubQuery; range: { startMs: number; endMs: number } } {
  const parsed = parseQueryBody({ start: T0, end: T0 + DAY - 1, queries: [{ aggregator: 'sum', metric: 'temp', ...q }] }, new URLSearchParams(), T0 + 10 * DAY);
  return { sub: parsed.queries[0] as SubQuery, range: parsed };
}

void test('rollups answer fixed intervals a window divides with summary aggregators; the rest is raw, with the reason', () => {
  const plan = (q: Record<string, unknown>): SubQueryPlan => {
    const s = sub(q);
    return planSubQuery(s.sub, s.range, TIER, NOW);
  };
  assert.deepEqual(
    ['1h-avg', '2h-sum', '1d-max', '3h-count-zero'].map((d) => plan({ downsample: d }).path),
    ['rollup', 'rollup', 'rollup', 'rollup'],
  );
  const r = plan({ downsample: '2d-min' });
  assert.equal(r.path === 'rollup' ? r.windowMs : 0, DAY, 'the largest dividing window');
  for (const [d, reason] of [
    ['5m-avg', /no rollup window divides/],
    ['1h-dev', /dev is not computable/],
    ['1h-p99', /p99/],
    ['0all-sum', /0all/],
    ['1dc-sum', /calendar/],
  ] as const) {
    const p = plan({ downsample: d });
    assert.equal(p.path, 'raw', d);
    assert.match(p.reason, reason, d);
  }
  assert.equal(plan({}).path, 'raw', 'no downsample');
  const s = sub({ downsample: '1h-avg' });
  assert.equal(planSubQuery(s.sub, s.range, undefined, NOW).path, 'raw', 'rollups off');
});

void test('a rollup plan reads raw the buckets holding an open, marked, cut or expired window, and only those', () => {
  const s = sub({ downsample: '2h-avg' });
  const plan = planSubQuery(s.sub, s.range, TIER, NOW);
  assert.equal(plan.path, 'rollup');
  const longAfter = T0 + 10 * DAY;
  assert.deepEqual(
    [...rawBuckets(plan, TIER, [], longAfter)].sort((a, b) => a - b),
    [],
    'all closed, none marked: every bucket from summaries',
  );
  // A finer marked window (15 min inside hour 5) taints its 2 h bucket (4–6 h).
  const marked = rawBuckets(
    plan,
    TIER,
    [
      { startMs: T0 + 5 * H + 15 * 60_000, sizeMs: 15 * 60_000 },
      { startMs: T0 + 9 * H, sizeMs: H },
    ],
    longAfter,
  );
  assert.deepEqual(
    [...marked].sort((a, b) => a - b),
    [T0 + 4 * H, T0 + 8 * H],
  );
  // Now inside hour 23 of the day: the last bucket (22–24 h) holds an open window; grace keeps hour 21–22 open a minute longer.
  const open = rawBuckets(plan, TIER, [], T0 + 22 * H + 30_000);
  assert.ok(open.has(T0 + 22 * H) && open.has(T0 + 20 * H), [...open].join());
  assert.ok(!open.has(T0 + 18 * H));
  // The 1 h summaries' TTL: windows starting before now - ttl are read raw.
  const ttl = rawBuckets(plan, ttls([[H, 20 * H]]), [], T0 + 24 * H + 10 * 60_000);
  assert.ok(ttl.has(T0) && ttl.has(T0 + 2 * H) && !ttl.has(T0 + 6 * H), [...ttl].sort((a, b) => a - b).join());
});

void test('buckets of a window size that does not fit the scan range are read raw', () => {
  const s = sub({ downsample: '1d-sum' });
  const plan = planSubQuery(s.sub, s.range, TIER, NOW);
  assert.equal(plan.path, 'rollup');
  // The TSD scans the day [T0, T0+1d) and up to the next interval boundary: the day after is wholly inside.
  const raw = rawBuckets(plan, TIER, [], T0 + 10 * DAY);
  for (const b of raw) assert.ok(b < plan.scan.startMs || b + DAY > plan.scan.endMs, `bucket ${b} read raw only when cut by the scan range`);
});

void test('marker sizes are the window and the finer ones that divide it; bucket ranges coalesce', () => {
  assert.deepEqual(markerSizes({ ...TIER, windowsMs: [15 * 60_000, H, DAY] }, DAY), [15 * 60_000, H, DAY]);
  assert.deepEqual(markerSizes({ ...TIER, windowsMs: [15 * 60_000, H, DAY] }, H), [15 * 60_000, H]);
  assert.deepEqual(bucketRanges([4 * H, 0, 2 * H, 8 * H], 2 * H), [
    { from: 0, to: 6 * H },
    { from: 8 * H, to: 10 * H },
  ]);
});

void test('each window size has its own TTL: the planner reads the largest size that still holds the whole range', () => {
  // 1d-avg over the 30 days before NOW, 1 h and 1 d both divide the interval.
  const range = { startMs: NOW - 30 * DAY, endMs: NOW - 1 };
  const s = parseQueryBody(
    { start: range.startMs, end: range.endMs, queries: [{ aggregator: 'sum', metric: 'temp', downsample: '1d-avg' }] },
    new URLSearchParams(),
    NOW,
  );
  const plan = (tier: RollupTier): SubQueryPlan => planSubQuery(s.queries[0] as SubQuery, s, tier, NOW);
  const win = (p: SubQueryPlan): number => (p.path === 'rollup' ? p.windowMs : 0);
  assert.equal(win(plan(TIER)), DAY, 'no TTLs: the largest dividing size');
  assert.equal(
    win(
      plan(
        ttls([
          [H, 365 * DAY],
          [DAY, null],
        ]),
      ),
    ),
    DAY,
    'the usual retention (1 h a year, 1 d forever): 1 d',
  );
  assert.equal(
    win(
      plan(
        ttls([
          [H, 365 * DAY],
          [DAY, 7 * DAY],
        ]),
      ),
    ),
    H,
    '1 d kept a week only, 1 h a year: the 1 h tier, which still holds the whole month',
  );
  assert.equal(
    win(
      plan(
        ttls([
          [H, 10 * DAY],
          [DAY, 20 * DAY],
        ]),
      ),
    ),
    DAY,
    'neither holds the month: the one kept furthest back',
  );
  assert.equal(
    win(
      plan(
        ttls([
          [H, 20 * DAY],
          [DAY, 20 * DAY],
        ]),
      ),
    ),
    DAY,
    'a tie: the larger',
  );
  // 1h-avg: only 1 h divides the interval; a 1 d summary never answers 1 h buckets (not exact).
  const hourly = parseQueryBody(
    { start: range.startMs, end: range.endMs, queries: [{ aggregator: 'sum', metric: 'temp', downsample: '1h-avg' }] },
    new URLSearchParams(),
    NOW,
  );
  assert.equal(
    win(
      planSubQuery(
        hourly.queries[0] as SubQuery,
        hourly,
        ttls([
          [H, 7 * DAY],
          [DAY, null],
        ]),
        NOW,
      ),
    ),
    H,
  );
  assert.equal(
    chooseWindow(
      ttls(
        [
          [15 * 60_000, 2 * 365 * DAY],
          [H, 365 * DAY],
        ],
        null,
        [15 * 60_000, H, DAY],
      ),
      [15 * 60_000, H],
      NOW - 500 * DAY,
      NOW,
    ),
    15 * 60_000,
    'a finer size kept longer holds what the coarser lost',
  );
});

void test('a bucket the chosen size no longer holds is read raw; expired-buckets counts those the data table lost too', () => {
  // 1h-avg over the 30 days before NOW; 1 h summaries kept 7 days, raw data 14 days.
  const tier = ttls(
    [
      [H, 7 * DAY],
      [DAY, null],
    ],
    14 * DAY,
  );
  const q = parseQueryBody(
    { start: NOW - 30 * DAY, end: NOW - 2 * H, queries: [{ aggregator: 'sum', metric: 'temp', downsample: '1h-avg' }] },
    new URLSearchParams(),
    NOW,
  );
  const plan = planSubQuery(q.queries[0] as SubQuery, q, tier, NOW);
  assert.ok(plan.path === 'rollup');
  const raw = rawBuckets(plan, tier, [], NOW);
  const summarised = (b: number): boolean => !raw.has(b);
  assert.ok(!summarised(NOW - 20 * DAY) && !summarised(NOW - 8 * DAY), 'older than the 1 h TTL: never from 1 h summaries');
  assert.ok(summarised(NOW - 6 * DAY) && summarised(NOW - 3 * H), 'inside the TTL and closed: from summaries');
  // Raw holds the last 14 days: the buckets between 14 and 30 days back are answered with what is left there.
  assert.equal(expiredRawBuckets(raw, tier, NOW), 16 * 24);
  assert.equal(expiredRawBuckets(raw, { ...tier, rawTtlMs: null }, NOW), 0, 'raw kept forever: every expired summary is recomputed exactly from raw');
});
