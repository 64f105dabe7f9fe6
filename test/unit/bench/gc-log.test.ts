import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gcSummary } from '../../../scripts/lib/bench/gc-log.ts';

void test('gcSummary: the collections inside the window, by kind, with their count, total and largest', () => {
  const text = ['1000 2.5 minor', '1500 30.6 incremental', '1999 4.0 minor', '2000 99 major', 'garbage', ''].join('\n');
  assert.deepEqual(gcSummary(text, 1000, 2000), {
    minor: { n: 2, totalMs: 6.5, maxMs: 4 },
    incremental: { n: 1, totalMs: 30.6, maxMs: 30.6 },
  });
  assert.deepEqual(gcSummary(text, 3000, 4000), {});
});
