import { test } from 'node:test';
import assert from 'node:assert/strict';
import { etaOf, formatDuration, fractionOf, ratePerSec } from '../../../src/toolkit/progress-math.ts';

void test('completion counts done units and the positions inside running ones; no units = complete', () => {
  assert.equal(fractionOf(0, 0, 4), 0);
  assert.equal(fractionOf(1, 0.5, 4), 0.375);
  assert.equal(fractionOf(4, 0.5, 4), 1, 'capped at 1');
  assert.equal(fractionOf(0, 0, 0), 1);
});

void test('the ETA is measured on this run only, in whole ms; unknown before progress', () => {
  assert.equal(etaOf(0, 0.25, 10_000), 30_000);
  assert.equal(etaOf(0.25, 0.5, 10_000), 20_000, 'a resumed run counts only its own progress');
  assert.equal(etaOf(0, 1 / 3, 1000), 2000);
  assert.equal(etaOf(0, 0.3, 1), 2, 'rounded');
  assert.equal(etaOf(0, 1, 5), 0);
  assert.equal(etaOf(0.5, 0.5, 5), null);
  assert.equal(etaOf(0, 0.5, 0), null, 'no time elapsed yet');
});

void test('rate per second; 0 before any time has passed', () => {
  assert.equal(ratePerSec(300, 3000), 100);
  assert.equal(ratePerSec(300, 0), 0);
});

void test('durations as people read them; unknown is ?', () => {
  assert.deepEqual([formatDuration(0), formatDuration(59_400), formatDuration(65_000), formatDuration(3_725_000)], ['0s', '59s', '1m05s', '1h02m']);
  assert.equal(formatDuration(65_000), '1m05s');
  assert.equal(formatDuration(3_725_000), '1h02m');
  assert.equal(formatDuration(undefined), '?');
  assert.deepEqual([formatDuration(59_500), formatDuration(3_599_000), formatDuration(3_600_000)], ['1m00s', '59m59s', '1h00m']);
  assert.deepEqual([formatDuration(null), formatDuration(Number.POSITIVE_INFINITY)], ['?', '?']);
});
