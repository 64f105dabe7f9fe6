// The touch ring's timing (src/rollup/touch.ts): which ring rows a reader's span of stamps reads.
// A span of a few slices reads those slots, in one run or two across the wrap; a span as long as the
// ring or longer reads every row once (exact either way: a reader filters the cells by stamp).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TOUCH_EVERY_MS, TOUCH_RING_SLICES, TOUCH_SLICE_MS, TOUCH_TRUST_MS, touchSlotOf, touchSlotRuns } from '../../../src/rollup/touch.ts';

const slice = (n: number): number => n * TOUCH_SLICE_MS;

void test('touchSlotOf: the slice number modulo the ring, for stamps before 1970 too', () => {
  assert.equal(touchSlotOf(slice(0)), 0);
  assert.equal(touchSlotOf(slice(TOUCH_RING_SLICES) + 1), 0, 'the same row one ring later');
  assert.equal(touchSlotOf(slice(3) + TOUCH_SLICE_MS - 1), 3 % TOUCH_RING_SLICES);
  assert.equal(touchSlotOf(-1), TOUCH_RING_SLICES - 1);
});

void test('touchSlotRuns: the slots of the slices a span touches, split at the wrap; the whole ring at most', () => {
  const base = slice(1000 * TOUCH_RING_SLICES); // slot 0
  assert.deepEqual(touchSlotRuns(base + 10, base + 20), [[0, 0]], 'within one slice');
  assert.deepEqual(touchSlotRuns(base + 10, base + slice(1) + 5), [[0, 1]]);
  const last = TOUCH_RING_SLICES - 1;
  assert.deepEqual(
    touchSlotRuns(base - slice(1), base + slice(1)),
    [
      [last, last],
      [0, 1],
    ],
    'across the wrap: two runs',
  );
  assert.deepEqual(touchSlotRuns(base, base + slice(TOUCH_RING_SLICES)), [[0, last]], 'a span longer than the ring: every row once');
  assert.deepEqual(touchSlotRuns(base + slice(1), base), [], 'a span that ends a slice before it starts');
});

void test("the reader's longest span with a 5 s clock tolerance stays within the ring (no row read twice, none missed)", () => {
  const tolerance = 5000;
  const span = TOUCH_TRUST_MS + tolerance + TOUCH_EVERY_MS + tolerance; // oldest touchSince .. now + tolerance
  const slices = Math.ceil(span / TOUCH_SLICE_MS) + 1;
  assert.ok(slices <= TOUCH_RING_SLICES, `${slices} slices of ${TOUCH_RING_SLICES}`);
  const now = slice(77) + 59_000;
  const runs = touchSlotRuns(now - span + tolerance, now + tolerance);
  const read = runs.reduce((n, [a, b]) => n + (b - a + 1), 0);
  assert.ok(read <= slices && read < TOUCH_RING_SLICES, `${read} rows read`);
});
