import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProgressTracker, formatProgress, formatProgressBar } from '../../../src/index-tools/index-progress.ts';
import { startProgressReporter } from '../../../src/index-tools/progress-reporter.ts';

void test('fraction counts done units and the position inside running ones', () => {
  const p = new ProgressTracker(4, 0);
  assert.equal(p.fraction(), 0);
  p.advance('a', 0.5);
  p.advance('b', 0.25);
  assert.equal(p.fraction(), 0.75 / 4);
  p.unitDone('a');
  assert.equal(p.fraction(), 1.25 / 4);
  p.advance('c', 7);
  assert.equal(p.fraction(), 2.25 / 4, 'positions are clamped to 1');
  assert.equal(new ProgressTracker(0, 0).fraction(), 1);
});

void test('rate and ETA come from this run only; units done earlier do not shorten the ETA', () => {
  const p = new ProgressTracker(10, 1000);
  p.alreadyDone(5);
  assert.equal(p.snapshot(1000).etaMs, null, 'no progress yet');
  p.add({ rowsScanned: 300, indexRowsWritten: 7 });
  p.unitDone('x');
  const snap = p.snapshot(4000);
  assert.equal(snap.unitsDone, 6);
  assert.equal(snap.ratePerSec, 100);
  // 3 s for 1 unit (0.1 of the work) → 4 units left take 12 s
  assert.equal(snap.etaMs, 12_000);
  assert.deepEqual(snap.counters, { rowsScanned: 300, indexRowsWritten: 7, danglingDeleted: 0, dangling: 0, missing: 0 });
});

void test('the progress line', () => {
  const p = new ProgressTracker(8, 0);
  p.add({ rowsScanned: 12_000, indexRowsWritten: 40, danglingDeleted: 2 });
  p.unitDone('a');
  p.unitDone('b');
  p.unitDone('c');
  const line = formatProgress(p.snapshot(10_000));
  assert.equal(line, '37% 3/8 units · 12,000 rows scanned · 40 written · 2 deleted · 1,200 rows/s · ETA 17s');
  assert.match(formatProgressBar(p.snapshot(10_000), 8), /^\[###-----\] 37% /);
});

void test('the reporter draws a bar in place on a TTY and plain lines otherwise; stop draws the final state once', () => {
  const p = new ProgressTracker(2, 0);
  p.unitDone('a');
  const tty: string[] = [];
  const r1 = startProgressReporter({ isTTY: true, write: (t) => tty.push(t) }, () => p.snapshot(1000), { label: 'index rebuild' });
  r1.stop();
  r1.stop();
  assert.deepEqual(tty, [`\r\x1b[2Kindex rebuild ${formatProgressBar(p.snapshot(1000))}`, '\n']);
  const log: string[] = [];
  const r2 = startProgressReporter({ isTTY: false, write: (t) => log.push(t) }, () => p.snapshot(1000), { label: 'index verify' });
  r2.stop();
  assert.deepEqual(log, [`index verify: ${formatProgress(p.snapshot(1000))}\n`]);
  assert.match(log[0] ?? '', /^index verify: 50% 1\/2 units/);
});
