// Where a series API request's time went (src/series-query/phase-clock.ts): phases one after another, a phase
// entered again adds to its time, the Server-Timing header and its parse.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseServerTiming, PhaseClock } from '../../../src/series-query/phase-clock.ts';

void test('entering a phase ends the one before; a phase entered again adds up; the header lists them in first-entered order', () => {
  let t = 0;
  const clock = new PhaseClock(() => t);
  clock.enter('catalog');
  t = 2.5;
  clock.enter('read');
  t = 10;
  clock.enter('catalog');
  t = 11;
  clock.enter('compute');
  t = 15.25;
  assert.equal(clock.header(), 'catalog;dur=3.5, read;dur=7.5, compute;dur=4.3');
  t = 100;
  assert.equal(clock.header(), 'catalog;dur=3.5, read;dur=7.5, compute;dur=4.3', 'the header ended the phase under way');
  assert.deepEqual(
    [...clock.spent],
    [
      ['catalog', 3.5],
      ['read', 7.5],
      ['compute', 4.25],
    ],
  );
});

void test('no phase entered: an empty header', () => {
  assert.equal(new PhaseClock(() => 0).header(), '');
});

void test('parseServerTiming reads name;dur=N parts, sums repeats, leaves out the rest', () => {
  assert.deepEqual(
    [...parseServerTiming('catalog;dur=1.5, read;dur=20, cache;desc="x", read;dur=2,junk')],
    [
      ['catalog', 1.5],
      ['read', 22],
    ],
  );
  assert.equal(parseServerTiming(null).size, 0);
});
