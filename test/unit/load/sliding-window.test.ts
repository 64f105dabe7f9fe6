import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_SLOTS, DEFAULT_WINDOW_MS, SlidingWindow } from '../../../src/load/sliding-window.ts';

void describe('SlidingWindow', () => {
  void it('defaults to 60 s in 12 slots of 5 s', () => {
    const w = new SlidingWindow();
    assert.equal(w.windowMs, DEFAULT_WINDOW_MS);
    assert.equal(w.slotMs, DEFAULT_WINDOW_MS / DEFAULT_SLOTS);
    assert.equal(w.slotMs, 5000);
  });

  void it('sums per key over the window and drops slots that left it', () => {
    const w = new SlidingWindow({ windowMs: 60_000, slots: 12 });
    w.add(0, 'a', 2);
    w.add(4_999, 'a', 1); // same slot
    w.add(5_000, 'b', 4);
    w.add(59_000, 'a', 1);
    assert.deepEqual(
      w.totals(59_999),
      new Map([
        ['a', 4],
        ['b', 4],
      ]),
    );
    assert.deepEqual(
      w.totals(60_000),
      new Map([
        ['a', 1],
        ['b', 4],
      ]),
    ); // slot [0, 5 s) expired
    assert.deepEqual(w.totals(65_000), new Map([['a', 1]]));
    assert.deepEqual(w.totals(120_000), new Map());
  });

  void it('reuses ring slots after a full turn without leaking old counts', () => {
    const w = new SlidingWindow({ windowMs: 4, slots: 2 });
    w.add(0, 'a', 1);
    w.add(4, 'a', 10); // same ring position as t=0, one turn later
    assert.deepEqual(w.totals(4), new Map([['a', 10]]));
  });

  void it('ignores slots ahead of a clock that stepped back, and adds zero as a no-op', () => {
    const w = new SlidingWindow({ windowMs: 10, slots: 2 });
    w.add(20, 'a', 1);
    assert.deepEqual(w.totals(15), new Map());
    w.add(21, 'b', 0);
    assert.deepEqual(w.totals(21), new Map([['a', 1]]));
  });

  void it('deletes a key from every slot', () => {
    const w = new SlidingWindow();
    w.add(0, 'a', 1);
    w.add(10_000, 'a', 1);
    w.add(10_000, 'b', 1);
    w.delete('a');
    assert.deepEqual(w.totals(10_000), new Map([['b', 1]]));
  });

  void it('rejects invalid options', () => {
    assert.throws(() => new SlidingWindow({ windowMs: -1 }), RangeError);
    assert.throws(() => new SlidingWindow({ windowMs: Number.NaN }), RangeError);
    assert.throws(() => new SlidingWindow({ slots: 0 }), RangeError);
  });
});
