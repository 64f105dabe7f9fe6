import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SlotRing } from '../../../src/load/slot-ring.ts';

function ring(): SlotRing<string[]> {
  return new SlotRing<string[]>(
    60_000,
    12,
    () => [],
    (v) => {
      v.length = 0;
    },
  );
}

void test('a time lands in the slot of its epoch; the window is the current slot and the 11 before it', () => {
  const r = ring();
  assert.equal(r.slotMs, 5000);
  r.at(0).push('a');
  r.at(4999).push('b');
  r.at(5000).push('c');
  assert.deepEqual(r.live(5000).flat().sort(), ['a', 'b', 'c']);
  assert.deepEqual(r.live(59_999).flat().sort(), ['a', 'b', 'c']);
  assert.deepEqual(r.live(60_000).flat(), ['c'], 'slot 0 left the window');
  assert.deepEqual(r.live(65_000).flat(), []);
});

void test('a slot reused by a newer epoch starts empty; a clock that steps back keeps newer counts', () => {
  const r = ring();
  r.at(0).push('old');
  assert.deepEqual(r.at(60_000), [], 'slot 0 reused one window later');
  r.at(60_000).push('new');
  assert.deepEqual(r.at(0), ['new'], 'an older time does not wipe the newer slot');
  assert.equal(r.all().length, 12);
});

void test('the window length is checked', () => {
  assert.throws(
    () =>
      new SlotRing(
        0,
        1,
        () => 0,
        () => undefined,
      ),
    /windowMs must be a positive number/,
  );
});
