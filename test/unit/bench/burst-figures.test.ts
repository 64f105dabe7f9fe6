import { test } from 'node:test';
import assert from 'node:assert/strict';
import { burstFigures } from '../../../scripts/lib/bench/burst-figures.ts';
import type { PerSecond } from '../../../scripts/lib/bench/live-watch.ts';

const record = (lag: (number | null)[], p99: (number | null)[], max: (number | null)[]): PerSecond => ({
  startedAt: '2026-12-02T00:00:00.000Z',
  lag,
  loopP99Ms: p99,
  loopMaxMs: max,
  windowsWritten: lag.map(() => 0),
});

test('burstFigures: the worst seconds from the burst until the lag is back to 0, and the baseline before it', () => {
  const s = record([0, 5, 0, 0, 900, 4000, 1200, 0, 0, 30], [20, 60, 18, 19, 140, 75, 40, 22, 90, 20], [30, 70, 25, 25, 300, 120, 60, 30, 95, 30]);
  assert.deepEqual(burstFigures(s, 3), {
    startSecond: 3,
    beforeMaxP99Ms: 60,
    worstP99Ms: 140,
    worstMaxMs: 300,
    secondsOver50: 2,
    lagMax: 4000,
    secondsToLagZero: 4,
  });
});

test('burstFigures: a lag not back to 0 by the end is null, and seconds that did not answer are skipped', () => {
  const s = record([0, null, 800, 600], [10, null, 55, 51], [12, null, 80, 70]);
  const f = burstFigures(s, 1);
  assert.equal(f.secondsToLagZero, null);
  assert.equal(f.worstP99Ms, 55);
  assert.equal(f.secondsOver50, 2);
  assert.equal(f.lagMax, 800);
});

test('burstFigures: a backlog drained between two scrapes still counts its first seconds, and a later blip of the feed is not the burst', () => {
  const s = record(
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 300, 0],
    [10, 12, 90, 40, ...Array<number>(18).fill(10)],
    [12, 20, 220, 60, ...Array<number>(18).fill(12)],
  );
  const f = burstFigures(s, 1);
  assert.equal(f.secondsToLagZero, 0);
  assert.equal(f.lagMax, 0);
  assert.equal(f.worstP99Ms, 90);
  assert.equal(f.worstMaxMs, 220);
});

test('burstFigures: a second that did not answer does not end the backlog', () => {
  const s = record([0, 0, 500, null, 300, 0], [10, 10, 70, null, 60, 20], [12, 12, 90, null, 80, 25]);
  const f = burstFigures(s, 1);
  assert.equal(f.secondsToLagZero, 4);
  assert.equal(f.lagMax, 500);
  assert.equal(f.secondsOver50, 2);
});
