import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DeleteProgress, formatDeleteProgress } from '../../../src/delete/delete-progress.ts';

void test('delete progress: units of this run and earlier ones, rows deleted, rate and ETA', () => {
  const p = new DeleteProgress(0);
  p.start(20, 4);
  p.add({ dataRows: 1000, indexRows: 500 });
  p.unitDone();
  p.unitDone();
  const s = p.snapshot(3000);
  assert.equal(s.unitsDone, 6);
  assert.equal(s.fraction, 0.3);
  assert.equal(s.rowsPerSec, 500);
  assert.equal(s.etaMs, 21_000, 'at this run pace: 0.1 in 3 s, 0.7 to go');
  assert.equal(formatDeleteProgress(s), '30% (6/20 units) · deleted 1000 data rows, 500 index rows, 0 summaries · 500 rows/s · 3s elapsed, eta 21s');
});
