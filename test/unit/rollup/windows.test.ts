import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WindowConfigError, findWindow, firstOpenStart, isClosed, parseWindow, parseWindows, windowStartOf } from '../../../src/rollup/windows.ts';

const H = 3_600_000;
const D = 86_400_000;

void test('parseWindow: units, and clear errors for anything else', () => {
  assert.deepEqual(parseWindow('15m'), { name: '15m', seconds: 900, ms: 900_000 });
  assert.deepEqual(parseWindow('1d'), { name: '1d', seconds: 86_400, ms: D });
  assert.equal(parseWindow('30s').ms, 30_000);
  for (const bad of ['', '0h', '1w', '1.5h', 'h', '01h', ' 1h']) assert.throws(() => parseWindow(bad), WindowConfigError, bad);
  assert.throws(() => parseWindow('99999999d'), /too long/);
});

void test('parseWindows: finest first, nested, no duplicates', () => {
  assert.deepEqual(
    parseWindows(['1d', '1h']).map((w) => w.name),
    ['1h', '1d'],
  );
  assert.throws(() => parseWindows([]), /at least one/);
  assert.throws(() => parseWindows(['1h', '60m']), /listed twice/);
  assert.throws(() => parseWindows(['1h', '90m']), /not a whole multiple of 1h/);
  assert.deepEqual(
    parseWindows(['1m', '1h', '1d']).map((w) => w.seconds),
    [60, 3600, 86_400],
  );
});

void test('windowStartOf: a window holds [start, start + size); its end belongs to the next one', () => {
  const h = parseWindow('1h');
  const start = 1_732_262_400_000; // 2024-11-22T08:00:00Z
  assert.equal(start % H, 0);
  assert.equal(windowStartOf(start, h), start, 'ts = start belongs to the window');
  assert.equal(windowStartOf(start + H - 1, h), start, 'last ms of the window');
  assert.equal(windowStartOf(start + H, h), start + H, 'ts = end belongs to the next window');
  assert.equal(windowStartOf(start - 1, h), start - H);
  assert.equal(windowStartOf(0, h), 0);
  // Day windows are UTC-aligned: 2024-11-22T23:59:59.999Z is still the 22nd.
  assert.equal(windowStartOf(Date.UTC(2024, 10, 22, 23, 59, 59, 999), parseWindow('1d')), Date.UTC(2024, 10, 22));
});

void test('isClosed / firstOpenStart agree at the edges, with and without grace', () => {
  const h = parseWindow('1h');
  const start = 1_732_262_400_000;
  const grace = 300_000;
  assert.equal(isClosed(start, h, grace, start + H + grace - 1), false);
  assert.equal(isClosed(start, h, grace, start + H + grace), true);
  assert.equal(firstOpenStart(h, grace, start + H + grace - 1), start, 'window not closed yet: it is the first open one');
  assert.equal(firstOpenStart(h, grace, start + H + grace), start + H);
  assert.equal(firstOpenStart(h, 0, start + H), start + H);
  assert.equal(firstOpenStart(h, 0, 5), 0, 'before the first window closes');
  for (let now = start; now < start + 3 * H; now += 7 * 60_000 + 13) {
    const open = firstOpenStart(h, grace, now);
    assert.equal(isClosed(open - H, h, grace, now), true, `window before ${open} closed at ${now}`);
    assert.equal(isClosed(open, h, grace, now), false, `window ${open} open at ${now}`);
  }
});

void test('findWindow by name or seconds', () => {
  const sizes = parseWindows(['1h', '1d']);
  assert.equal(findWindow(sizes, '1d')?.seconds, 86_400);
  assert.equal(findWindow(sizes, '3600')?.name, '1h');
  assert.equal(findWindow(sizes, '3600s')?.name, '1h');
  assert.equal(findWindow(sizes, '2h'), undefined);
});
