// bench:blocks' point sets (scripts/lib/bench/block-sets.ts) cut into blocks as the rollup job cuts
// them, and the Gorilla encoding it measures version 2 against (gorilla.ts) reading back what it wrote.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BLOCK_SIZES_MS, blockSet, blocksOf, monitoringPoints } from '../../../scripts/lib/bench/block-sets.ts';
import { gorillaDecode, gorillaEncode } from '../../../scripts/lib/bench/gorilla.ts';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);

void test('blocksOf: one block per series and window of each size, its points ascending', () => {
  const set = blocksOf('t', 'two series', [
    { id: 'a', metric: 'm', ts: T0 + HOUR + 5, value: 2 },
    { id: 'a', metric: 'm', ts: T0 + 1, value: 1 },
    { id: 'b', metric: 'm', ts: T0 + 2, value: 3 },
    { id: 'a', metric: 'n', ts: T0 + 3, value: 4 },
  ]);
  assert.equal(set.points, 4);
  assert.deepEqual(BLOCK_SIZES_MS, [HOUR, 24 * HOUR]);
  assert.deepEqual(
    set.blocks.map((b) => [b.windowMs / HOUR, b.windowStart - T0, b.ts.map((t) => t - T0), b.values]),
    [
      [1, 0, [1], [1]],
      [1, HOUR, [HOUR + 5], [2]],
      [1, 0, [2], [3]],
      [1, 0, [3], [4]],
      [24, 0, [1, HOUR + 5], [1, 2]],
      [24, 0, [2], [3]],
      [24, 0, [3], [4]],
    ],
  );
});

void test('the monitoring sets: a day of points every 10 s per series, the same on every call', () => {
  const set = blockSet('status', { monitoringSeries: 2 });
  assert.equal(set.points, 2 * 8640);
  assert.equal(set.blocks.length, 2 * 24 + 2);
  const counter = [...monitoringPoints('counter', 1)];
  assert.ok(
    counter.every((p, i) => i === 0 || p.value >= (counter[i - 1]?.value ?? 0)),
    'a counter never falls',
  );
  assert.deepEqual([...monitoringPoints('gauge-f64', 1)].slice(0, 50), [...monitoringPoints('gauge-f64', 1)].slice(0, 50));
});

void test('gorilla: every block of a few sets reads back exactly', () => {
  for (const name of ['gauge-f64', 'counter', 'random-f64'] as const) {
    for (const b of blockSet(name, { monitoringSeries: 1 }).blocks) {
      const back = gorillaDecode(gorillaEncode(b.windowStart, b.ts, b.values), b.windowStart);
      assert.deepEqual(back, { ts: b.ts, values: b.values }, name);
    }
  }
  const special = [NaN, -0, Infinity, 5e-324, Number.MAX_VALUE, 1, 1, -1];
  const ts = special.map((_v, i) => T0 + i * i * 1000 + (i % 2) * 70 + (i >= 5 ? 3_000_000 : 0));
  assert.deepEqual(gorillaDecode(gorillaEncode(T0, ts, special), T0), { ts, values: special });
});
