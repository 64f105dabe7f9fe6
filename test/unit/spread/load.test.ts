import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clusterLoad, decodeLoad, encodeLoad, promotionsFor, sizeK, type LoadReport } from '../../../src/spread/load.ts';
import { fenceFor, sinceFor, spreadTiming } from '../../../src/spread/timing.ts';

const POLICY = { minShare: 0.003, minEvents: 1000, kFactor: 64, buckets: 16, maxK: 16 };
const report = (instance: string, at: number, total: number, top: [string, number][]): LoadReport => ({ instance, at, windowMs: 60_000, total, top });

void test('a load report round-trips; anything else is skipped, not thrown', () => {
  const r = report('i-1', 1_700_000_000_000, 5000, [
    ['hot', 900],
    ['warm', 30],
  ]);
  assert.deepEqual(decodeLoad(encodeLoad(r)), r);
  for (const bad of [
    'x',
    '{"v":2}',
    '{"v":1,"instance":"a","at":1,"windowMs":1,"total":1,"top":[["a",-1]]}',
    '{"v":1,"instance":"a","at":1,"windowMs":1,"total":1,"top":"no"}',
  ]) {
    assert.equal(decodeLoad(Buffer.from(bad)), undefined, bad);
  }
});

void test('the cluster load sums fresh reports only (a stopped instance drops out)', () => {
  const now = 1_000_000;
  const load = clusterLoad(
    [
      report('a', now - 1000, 6000, [
        ['hot', 3000],
        ['x', 10],
      ]),
      report('b', now - 2000, 4000, [
        ['hot', 1000],
        ['y', 50],
      ]),
      report('gone', now - 200_000, 9000, [['z', 9000]]),
    ],
    now,
    180_000,
  );
  assert.equal(load.instances, 2);
  assert.equal(load.total, 10_000);
  assert.deepEqual([...load.counts].sort(), [
    ['hot', 4000],
    ['x', 10],
    ['y', 50],
  ]);
});

void test('K is the smallest power of two ≥ share × B × kFactor, at least 2, at most maxK', () => {
  assert.equal(sizeK(0.15, POLICY), 16, 'the top Zipf id: capped at B');
  assert.equal(sizeK(0.005, POLICY), 8, '0.005 × 16 × 64 = 5.1 → 8');
  assert.equal(sizeK(0.003, POLICY), 4, '3.07 → 4');
  assert.equal(sizeK(0.0001, POLICY), 2, 'at least 2');
  assert.equal(sizeK(0.15, { ...POLICY, maxK: 6 }), 6, 'maxK need not be a power of two');
  assert.equal(sizeK(0.15, { ...POLICY, maxK: 1 }), 1, 'maxK 1: spreading off');
});

void test('promotions: ids at or above minShare whose K would grow, largest share first; none below minEvents', () => {
  const load = clusterLoad(
    [
      report('a', 0, 10_000, [
        ['hot', 1500],
        ['mid', 50],
        ['cold', 20],
        ['done', 1500],
      ]),
    ],
    0,
    1,
  );
  const current = (id: string): number => (id === 'done' ? 16 : 1);
  assert.deepEqual(promotionsFor(load, POLICY, current), [
    { id: 'hot', k: 16, share: 0.15 },
    { id: 'mid', k: 8, share: 0.005 },
  ]);
  assert.deepEqual(promotionsFor(load, { ...POLICY, minEvents: 10_001 }, current), [], 'too few events to judge');
  assert.deepEqual(
    promotionsFor(load, POLICY, () => 8).map((p) => p.id),
    ['done', 'hot'],
    'an id with 8 buckets that needs 16 grows (equal shares: by id)',
  );
});

void test('timing: the fence-ahead is what the lead leaves after the snapshot validity and two clock tolerances', () => {
  const t = spreadTiming({ leadMs: 60_000, refreshMs: 2000, clockToleranceMs: 5000 });
  assert.deepEqual(t, { leadMs: 60_000, refreshMs: 2000, validityMs: 6000, fenceAheadMs: 44_000, clockToleranceMs: 5000 });
  assert.throws(() => spreadTiming({ leadMs: 16_000, refreshMs: 2000, clockToleranceMs: 5000 }), /must exceed 3 × refreshMs \+ 2 × clockToleranceMs \(16000\)/);
  assert.equal(sinceFor(1000, t, undefined, null), 61_000);
  assert.equal(sinceFor(1000, t, 90_000, null), 90_001, 'after the last epoch');
  assert.equal(sinceFor(1000, t, undefined, 500_000), 500_001, 'after the fence');
  assert.equal(fenceFor(1_000_000, t), 1_044_000);
});
