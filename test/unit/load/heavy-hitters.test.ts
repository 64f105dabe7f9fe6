import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SpaceSaving, WindowedHeavyHitters } from '../../../src/load/heavy-hitters.ts';
import { prng, zipfSampler } from '../../../src/demo/generate.ts';

/** True counts of a stream, computed independently of the sketch. */
function exactCounts(stream: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const id of stream) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
}

function zipfStream(n: number, ids: number, seed: number): string[] {
  const rank = zipfSampler(ids, 1.1, prng(seed));
  return Array.from({ length: n }, () => `id-${rank()}`);
}

void describe('SpaceSaving', () => {
  void it('keeps at most K counters whatever the number of distinct ids, and the exact total', () => {
    const sketch = new SpaceSaving(32);
    for (let i = 0; i < 50_000; i++) sketch.add(`unique-${i}`);
    assert.equal(sketch.size, 32);
    assert.equal(sketch.total, 50_000);
    assert.equal(sketch.top().length, 32);
  });

  void it('is exact while there are at most K distinct ids', () => {
    const stream = zipfStream(5000, 20, 7);
    const sketch = new SpaceSaving(20);
    for (const id of stream) sketch.add(id);
    const truth = exactCounts(stream);
    assert.equal(sketch.size, truth.size);
    for (const [id, n] of truth) assert.deepEqual(sketch.get(id), { id, count: n, error: 0 });
  });

  void it('counts a dominant id exactly among many distinct ids', () => {
    const random = prng(11);
    const stream: string[] = [];
    for (let i = 0; i < 20_000; i++) stream.push(random() < 0.3 ? 'hot-1' : `cold-${Math.floor(random() * 100_000)}`);
    const sketch = new SpaceSaving(16);
    for (const id of stream) sketch.add(id);
    const truth = exactCounts(stream).get('hot-1');
    assert.ok(truth !== undefined && truth > 5000);
    assert.deepEqual(sketch.top(1), [{ id: 'hot-1', count: truth, error: 0 }]);
  });

  void it('brackets every estimate within N/K and monitors every id above N/K', () => {
    const stream = zipfStream(30_000, 5000, 3);
    const K = 50;
    const sketch = new SpaceSaving(K);
    for (const id of stream) sketch.add(id);
    const truth = exactCounts(stream);
    const bound = stream.length / K;
    for (const h of sketch.top()) {
      const t = truth.get(h.id) ?? 0;
      assert.ok(h.count - h.error <= t && t <= h.count, `${h.id}: true ${t} not in [${h.count - h.error}, ${h.count}]`);
      assert.ok(h.error <= bound, `${h.id}: error ${h.error} > N/K = ${bound}`);
    }
    const monitored = new Set(sketch.top().map((h) => h.id));
    const frequent = [...truth].filter(([, n]) => n > bound).map(([id]) => id);
    assert.ok(frequent.length > 0, 'the Zipf stream has ids above N/K');
    for (const id of frequent) assert.ok(monitored.has(id), `${id} (true ${truth.get(id)}) > N/K but not monitored`);
    // An unmonitored id can have had at most the smallest counter.
    for (const [id, n] of truth) if (!monitored.has(id)) assert.ok(n <= sketch.floor(), `${id}: ${n} > floor ${sketch.floor()}`);
  });

  void it('adds weights, and orders equal counts by id', () => {
    const sketch = new SpaceSaving(3);
    sketch.add('b', 5);
    sketch.add('a', 5);
    sketch.add('c', 2.5);
    sketch.add('c', 0);
    assert.deepEqual(sketch.top(), [
      { id: 'a', count: 5, error: 0 },
      { id: 'b', count: 5, error: 0 },
      { id: 'c', count: 2.5, error: 0 },
    ]);
    sketch.add('d', 1); // evicts c (the minimum): count 2.5 + 1, error 2.5
    assert.deepEqual(sketch.get('d'), { id: 'd', count: 3.5, error: 2.5 });
    assert.equal(sketch.get('c'), undefined);
    assert.equal(sketch.total, 13.5);
  });

  void it('rejects a bad capacity or weight, naming it', () => {
    assert.throws(() => new SpaceSaving(0), /capacity must be an integer in 1…10000, got 0/);
    assert.throws(() => new SpaceSaving(2.5), /capacity/);
    const sketch = new SpaceSaving(2);
    assert.throws(() => {
      sketch.add('x', -1);
    }, /n must be a finite number ≥ 0, got -1/);
    assert.throws(() => {
      sketch.add('x', Number.NaN);
    }, /n must be/);
  });
});

void describe('WindowedHeavyHitters', () => {
  void it('holds at most slots × K entries and the exact window total', () => {
    const w = new WindowedHeavyHitters({ capacity: 8, windowMs: 1000, slots: 4 });
    for (let i = 0; i < 40_000; i++) w.add(i / 10, `u-${i}`); // 4 s of unique ids, 10 per ms
    assert.ok(w.entries() <= 4 * 8);
    const top = w.top(3999.9);
    assert.equal(top.total, 10_000); // the last four 250 ms slots
    assert.equal(top.errorBound, 10_000 / 8);
  });

  void it('forgets counts that left the window', () => {
    const w = new WindowedHeavyHitters({ capacity: 4, windowMs: 60_000, slots: 12 });
    w.add(1000, 'old', 100);
    w.add(30_000, 'new', 5);
    assert.deepEqual(
      w.top(59_000).hitters.map((h) => h.id),
      ['old', 'new'],
    );
    const later = w.top(61_000); // slot [0, 5000) has left the window
    assert.deepEqual(later.hitters, [{ id: 'new', count: 5, error: 0 }]);
    assert.equal(later.total, 5);
    assert.deepEqual(w.top(200_000), { hitters: [], total: 0, errorBound: 0 });
  });

  void it('merges slots: exact for a dominant id, every estimate bracketed within N_window / K', () => {
    const K = 20;
    const w = new WindowedHeavyHitters({ capacity: K, windowMs: 12_000, slots: 12 });
    const random = prng(5);
    const rank = zipfSampler(3000, 1.0, random);
    const inWindow: string[] = [];
    const now = 30_000;
    for (let t = 0; t < now; t += 2) {
      const id = random() < 0.25 ? 'dominant' : `z-${rank()}`;
      w.add(t, id);
      if (t >= now - 12_000) inWindow.push(id); // slots [18 000, 30 000) are the window at t = 29 999
    }
    const top = w.top(now - 1);
    const truth = exactCounts(inWindow);
    assert.equal(top.total, inWindow.length);
    assert.deepEqual(top.hitters[0], { id: 'dominant', count: truth.get('dominant'), error: 0 });
    for (const h of top.hitters) {
      const t = truth.get(h.id) ?? 0;
      assert.ok(h.count - h.error <= t && t <= h.count, `${h.id}: true ${t} not in [${h.count - h.error}, ${h.count}]`);
      assert.ok(h.error <= top.errorBound, `${h.id}: error ${h.error} > ${top.errorBound}`);
    }
  });

  void it('adds batches aggregated per id, and limits the list to n', () => {
    const w = new WindowedHeavyHitters({ capacity: 4 });
    w.addAll(
      10,
      new Map([
        ['a', 3],
        ['b', 7],
        ['c', 0],
      ]),
    );
    w.addAll(20, [['a', 5]]);
    assert.deepEqual(w.top(30, 1).hitters, [{ id: 'a', count: 8, error: 0 }]);
    assert.equal(w.top(30).hitters.length, 2);
  });

  void it('adds a batch heaviest first: its dominant id is exact even after more than K light ids', () => {
    const w = new WindowedHeavyHitters({ capacity: 4 });
    const batch = new Map<string, number>();
    for (let i = 0; i < 10; i++) batch.set(`light-${i}`, 1);
    batch.set('heavy', 20);
    w.addAll(0, batch);
    const top = w.top(0);
    assert.deepEqual(top.hitters[0], { id: 'heavy', count: 20, error: 0 });
    assert.equal(top.total, 30);
  });

  void it('counts into a newer slot when the clock steps back, keeping newer counts', () => {
    const w = new WindowedHeavyHitters({ capacity: 4, windowMs: 10_000, slots: 10 });
    w.add(5500, 'a', 2);
    w.add(5200, 'b', 1); // same slot epoch 5: kept together
    w.add(4100, 'c', 1); // earlier slot, still in the window
    assert.deepEqual(
      w.top(5900).hitters.map((h) => [h.id, h.count]),
      [
        ['a', 2],
        ['b', 1],
        ['c', 1],
      ],
    );
  });

  void it('reuses a top until the next add or the next slot, never a stale one', () => {
    const w = new WindowedHeavyHitters({ capacity: 4, windowMs: 10_000, slots: 10 });
    w.add(500, 'a', 2);
    const first = w.top(600);
    assert.equal(w.top(900), first, 'same slot, no add: the same result');
    assert.notEqual(w.top(900, 1), first, 'another n is another result');
    w.add(700, 'b', 5);
    assert.deepEqual(
      w.top(900).hitters.map((h) => [h.id, h.count]),
      [
        ['b', 5],
        ['a', 2],
      ],
      'an add is seen at once',
    );
    w.addAll(800, [['a', 4]]);
    assert.deepEqual(
      w.top(900).hitters.map((h) => [h.id, h.count]),
      [
        ['a', 6],
        ['b', 5],
      ],
    );
    assert.deepEqual(w.top(10_500).hitters, [], 'the next slot drops what left the window');
  });

  void it('rejects bad options, naming them', () => {
    assert.throws(() => new WindowedHeavyHitters({ capacity: -3 }), /capacity must be/);
    assert.throws(() => new WindowedHeavyHitters({ windowMs: 0 }), /windowMs must be a positive number, got 0/);
    assert.throws(() => new WindowedHeavyHitters({ slots: 0 }), /slots must be an integer/);
    assert.throws(() => {
      new WindowedHeavyHitters().addAll(0, [['x', -2]]);
    }, /n must be/);
  });
});
