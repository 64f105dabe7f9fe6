// The tiling of a raw read (src/series-query/tiles.ts): coarsest blocks first, finer ones where a coarser
// window cannot be read, the data table for what no block covers; each point's window read once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blockSpans, markedWithin, tileRange, uncovered, type Tile } from '../../../src/series-query/tiles.ts';

const H = 3_600_000;
const D = 24 * H;
const T0 = Date.UTC(2024, 0, 10);

const show = (tiles: readonly Tile[]): string[] =>
  tiles.map((t) => (t.kind === 'block' ? `${t.sizeMs === D ? 'd' : 'h'}@${(t.startMs - T0) / H}` : `raw ${hours(t.fromMs - T0)}-${hours(t.toMs - T0)}`));
const hours = (ms: number): string => (ms % H === 0 ? String(ms / H) : `${Math.floor(ms / H)}h+${ms % H}ms`);

void test("whole days as day blocks, the partial days' hours as hour blocks, partial hours raw", () => {
  const all = tileRange(T0 + 22 * H + 5, T0 + 2 * D + 2 * H + 7, [H, D], () => true);
  assert.deepEqual(show(all), ['raw 22h+5ms-23', 'h@23', 'd@24', 'h@48', 'h@49', 'raw 50-50h+7ms']);
});

void test('an unusable day falls to its hours, an unusable hour to raw; adjacent raw tiles join', () => {
  const usable = (size: number, start: number): boolean =>
    !(size === D && start === T0 + D) && !(size === H && start >= T0 + D + 3 * H && start < T0 + D + 5 * H);
  const tiles = tileRange(T0, T0 + 3 * D, [H, D], usable);
  assert.deepEqual(show(tiles).slice(0, 5), ['d@0', 'h@24', 'h@25', 'h@26', 'raw 27-29']);
  assert.equal(tiles.filter((t) => t.kind === 'block' && t.sizeMs === H).length, 22);
  assert.deepEqual(show(tiles).at(-1), 'd@48');
  // every ms of the range in exactly one tile
  let at = T0;
  for (const t of tiles) {
    const [a, b] = t.kind === 'block' ? [t.startMs, t.startMs + t.sizeMs] : [t.fromMs, t.toMs];
    assert.equal(a, at);
    at = b;
  }
  assert.equal(at, T0 + 3 * D);
  assert.deepEqual(blockSpans(tiles), [
    { sizeMs: D, from: T0, to: T0 + D },
    { sizeMs: H, from: T0 + D, to: T0 + D + 3 * H },
    { sizeMs: H, from: T0 + D + 5 * H, to: T0 + 2 * D },
    { sizeMs: D, from: T0 + 2 * D, to: T0 + 3 * D },
  ]);
});

void test('a finest window the range holds in part: its block cut to the part when allowed, raw when not', () => {
  const from = T0 + 22 * H + 5;
  const to = T0 + 2 * D + 2 * H + 7;
  const tiles = tileRange(from, to, [H, D], { whole: () => true, part: (size, start) => size === H && start === T0 + 22 * H });
  assert.deepEqual(show(tiles), ['h@22', 'h@23', 'd@24', 'h@48', 'h@49', 'raw 50-50h+7ms']);
  assert.deepEqual(tiles[0], { kind: 'block', sizeMs: H, startMs: T0 + 22 * H, part: { fromMs: from, toMs: T0 + 23 * H } });
  // both ends in part; a part of a coarser size never (a day's block for an hour of it)
  const both = tileRange(from, to, [H, D], { whole: () => true, part: () => true });
  assert.deepEqual(show(both), ['h@22', 'h@23', 'd@24', 'h@48', 'h@49', 'h@50']);
  assert.deepEqual((both.at(-1) as Extract<Tile, { kind: 'block' }>).part, { fromMs: T0 + 50 * H, toMs: to });
  // a range inside one hour: that hour in part
  assert.deepEqual(tileRange(T0 + 5, T0 + 9, [H, D], { whole: () => true, part: () => true }), [
    { kind: 'block', sizeMs: H, startMs: T0, part: { fromMs: T0 + 5, toMs: T0 + 9 } },
  ]);
  // spans: the parts apart from the whole windows
  assert.deepEqual(blockSpans(both, true), [
    { sizeMs: H, from: T0 + 22 * H, to: T0 + 23 * H },
    { sizeMs: H, from: T0 + 50 * H, to: T0 + 51 * H },
  ]);
  assert.deepEqual(blockSpans(both), [
    { sizeMs: H, from: T0 + 23 * H, to: T0 + 24 * H },
    { sizeMs: D, from: T0 + D, to: T0 + 2 * D },
    { sizeMs: H, from: T0 + 2 * D, to: T0 + 2 * D + 2 * H },
  ]);
});

void test('nothing usable: one raw tile; an empty range: none', () => {
  assert.deepEqual(show(tileRange(T0, T0 + 2 * D, [H, D], () => false)), ['raw 0-48']);
  assert.deepEqual(
    tileRange(T0, T0, [H, D], () => true),
    [],
  );
});

void test('a mark makes its window and every coarser window holding it unreadable, not its neighbours', () => {
  const marks = [{ startMs: T0 + 5 * H, sizeMs: H }];
  assert.equal(markedWithin(marks, D, T0), true);
  assert.equal(markedWithin(marks, H, T0 + 5 * H), true);
  assert.equal(markedWithin(marks, H, T0 + 4 * H), false);
  assert.equal(markedWithin([{ startMs: T0, sizeMs: D }], H, T0 + 5 * H), false, "a day marker leaves its hours' blocks readable");
});

void test('uncovered: what of the wanted ranges is not read yet', () => {
  const r = (a: number, b: number): { fromMs: number; toMs: number } => ({ fromMs: a, toMs: b });
  assert.deepEqual(uncovered([r(0, 10)], [r(2, 4), r(6, 7)]), [r(0, 2), r(4, 6), r(7, 10)]);
  assert.deepEqual(uncovered([r(0, 10), r(20, 30)], [r(0, 25)]), [r(25, 30)]);
  assert.deepEqual(uncovered([r(0, 10)], []), [r(0, 10)]);
  assert.deepEqual(uncovered([r(3, 5)], [r(0, 10)]), []);
});
