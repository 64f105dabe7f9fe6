// OpenTSDB 2.4.1 aggregators (test/core/TestAggregators.java) and commons-math3 Percentile.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { getAggregator } from '../../../src/series-compute/aggregators.ts';
import { percentile } from '../../../src/series-compute/percentile.ts';
import { AGGREGATOR_NAMES } from '../../../src/series-language/types.ts';

const run = (name: (typeof AGGREGATOR_NAMES)[number], values: number[]): number => getAggregator(name).run(values);
const close = (actual: number, expected: number, rel = 1e-9): void => {
  assert.ok(Math.abs(actual - expected) <= rel * Math.max(1, Math.abs(expected)), `${actual} ≉ ${expected}`);
};

test('every aggregator name has the interpolation of Aggregators.java', () => {
  const expected: Record<string, string> = {
    sum: 'LERP',
    min: 'LERP',
    max: 'LERP',
    avg: 'LERP',
    dev: 'LERP',
    mult: 'LERP',
    diff: 'LERP',
    median: 'LERP',
    zimsum: 'ZIM',
    count: 'ZIM',
    squareSum: 'ZIM',
    first: 'ZIM',
    last: 'ZIM',
    none: 'ZIM',
    mimmin: 'MAX',
    mimmax: 'MIN',
    pfsum: 'PREV',
  };
  for (const name of AGGREGATOR_NAMES) {
    const want = expected[name] ?? 'LERP'; // percentiles are LERP
    assert.equal(getAggregator(name).interpolation, want, name);
  }
});

test('TestAggregators.testStdDevKnownValues: dev of 0..9999 is numpy.std (population) 2886.7513315143719', () => {
  close(
    run(
      'dev',
      Array.from({ length: 10000 }, (_, i) => i),
    ),
    2886.7513315143719,
    1e-12,
  );
});

test('TestAggregators.testStdDevNoDeviation / testStdDevFewDataInputs: {3,3,3} → 0, {1,2} → 0.5', () => {
  assert.equal(run('dev', [3, 3, 3]), 0);
  assert.equal(run('dev', [1, 2]), 0.5);
  assert.equal(run('dev', [7]), 0);
});

test('TestAggregators.testPercentiles: 1..1000 with the legacy estimation (double path: p*, ep*r3 and ep*r7 alike)', () => {
  const values = Array.from({ length: 1000 }, (_, i) => i + 1);
  // legacy: pos = p/100 × (n + 1), linear between the neighbours; the Java test allows ±1 around 500, 750, …
  const want: [string, number][] = [
    ['50', 500.5],
    ['75', 750.75],
    ['90', 900.9],
    ['95', 950.95],
    ['99', 990.99],
    ['999', 999.999],
  ];
  for (const [p, v] of want) {
    for (const prefix of ['p', 'ep']) {
      for (const suffix of prefix === 'p' ? [''] : ['r3', 'r7']) {
        const name = `${prefix}${p}${suffix}` as (typeof AGGREGATOR_NAMES)[number];
        close(run(name, values), v);
      }
    }
  }
});

test('Percentile estimation types R_3 and R_7 (commons-math3 3.4.1) by hand', () => {
  const values = Array.from({ length: 1000 }, (_, i) => i + 1);
  assert.equal(percentile(values, 50, 'r3'), 500); // rint(500) → sorted[499]
  assert.equal(percentile(values, 99.9, 'r3'), 999); // rint(999) → sorted[998]
  close(percentile(values, 50, 'r7'), 500.5); // 1 + 999 × 0.5
  close(percentile(values, 99.9, 'r7'), 999.001); // 1 + 999 × 0.999 = 999.001
  close(percentile([1, 2, 3, 4], 25, 'legacy'), 1.25); // pos 1.25
  assert.equal(percentile([1, 2, 3, 4], 10, 'legacy'), 1); // pos 0.5 < 1 → min
  assert.equal(percentile([1, 2, 3, 4], 90, 'legacy'), 4); // pos 4.5 ≥ n → max
  assert.equal(percentile([42], 99, 'legacy'), 42);
  assert.ok(Number.isNaN(percentile([], 50, 'legacy')));
});

test('TestAggregators.testFirst / testLast', () => {
  const doubles = Array.from({ length: 10 }, (_, i) => i + 0.5);
  assert.equal(run('first', doubles), 0.5);
  assert.equal(run('last', doubles), 9.5);
});

test('TestAggregators.testMedian: the upper median, no averaging; empty → NaN', () => {
  close(run('median', [5.1, 2.434, -1.99, 400.69487, 3.15168]), 3.15168);
  close(run('median', [5.1, 2.434, -1.99, 400.69487, 3.15168, -42]), 3.15168);
  assert.equal(run('median', [42.5]), 42.5);
  assert.ok(Number.isNaN(run('median', [])));
});

test('TestAggregators.testSquareSumFewDataInputs: {1,2} → 5', () => {
  assert.equal(run('squareSum', [1, 2]), 5);
});

test('NaN handling of runDouble: skipped by sum/avg/min/max/count/dev/percentiles, kept by mult/first/last', () => {
  const v = [Number.NaN, 2, Number.NaN, 4];
  assert.equal(run('sum', v), 6);
  assert.equal(run('zimsum', v), 6);
  assert.equal(run('avg', v), 3);
  assert.equal(run('min', v), 2);
  assert.equal(run('max', v), 4);
  assert.equal(run('count', v), 2);
  assert.equal(run('dev', v), 1);
  assert.equal(run('squareSum', v), 20);
  assert.equal(run('p50', v), 3); // legacy: pos 1.5 over [2, 4]
  assert.ok(Number.isNaN(run('mult', v)));
  assert.ok(Number.isNaN(run('first', v)));
  assert.equal(run('last', v), 4);
  assert.equal(run('diff', v), 2); // last − first non-NaN
  assert.ok(Number.isNaN(run('diff', [1, Number.NaN]))); // the last value is taken as is
  for (const name of ['sum', 'avg', 'min', 'max', 'dev', 'median', 'p99'] as const) {
    assert.ok(Number.isNaN(run(name, [Number.NaN, Number.NaN])), name);
  }
  assert.equal(run('count', [Number.NaN]), 0);
});

test('mult, diff and none', () => {
  assert.equal(run('mult', [2, 3, 4]), 24);
  assert.equal(run('diff', [10, 3, 25]), 15);
  assert.equal(run('diff', [10]), 0);
  assert.equal(run('none', [7]), 7);
  assert.throws(() => run('none', [1, 2]), /More than one value/);
});
