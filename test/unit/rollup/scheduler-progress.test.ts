import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunReport } from '../../../src/rollup/run-report.ts';
import { RollupScheduler } from '../../../src/rollup/scheduler.ts';
import { ProgressReporter, etaMs, formatProgress, fractionDone, keyFraction, type BackfillProgress } from '../../../src/rollup/rollup-progress.ts';
import { silentLog } from './job-fixture.ts';

const report = (aborted: boolean): RunReport => ({
  startedAt: 0,
  durationMs: 0,
  buckets: [],
  saltBuckets: 16,
  sizes: [],
  written: 0,
  remarked: 0,
  errors: 0,
  aborted,
  ok: !aborted,
});

void test('scheduler: runs repeatedly, never two at once; stop() aborts the current run and waits for it', async () => {
  let active = 0;
  let maxActive = 0;
  let runs = 0;
  let sawAbort = false;
  const job = {
    async run(signal?: AbortSignal): Promise<RunReport> {
      active++;
      maxActive = Math.max(maxActive, active);
      runs++;
      // A run longer than the interval: the next one must wait for it.
      for (let i = 0; i < 6 && signal?.aborted !== true; i++) await sleep(10);
      sawAbort ||= signal?.aborted === true;
      active--;
      return report(signal?.aborted === true);
    },
  };
  const sched = new RollupScheduler({ job, intervalMs: 20, log: silentLog });
  sched.start();
  sched.start(); // idempotent
  while (runs < 3) await sleep(5);
  await sched.stop();
  assert.equal(maxActive, 1, 'no overlapping runs');
  assert.equal(active, 0, 'stop() waited for the run in flight');
  assert.equal(sawAbort, true, 'the run in flight saw the abort');
  const after = runs;
  await sleep(80);
  assert.equal(runs, after, 'nothing runs after stop()');
  await sched.stop(); // idempotent
  assert.throws(() => new RollupScheduler({ job, intervalMs: 0, log: silentLog }), /intervalMs must be > 0/);
});

void test('scheduler: stop(waitMs) waits for a run that does not stop at most waitMs, and says so', async () => {
  let release: () => void = () => undefined;
  const run = { started: false };
  const job = {
    run: (): Promise<RunReport> => {
      run.started = true;
      // a run stuck in a request: it ignores the abort until released
      return new Promise<RunReport>((resolve) => {
        release = () => {
          resolve(report(true));
        };
      });
    },
  };
  const sched = new RollupScheduler({ job, intervalMs: 1000, log: silentLog });
  sched.start();
  while (!run.started) await sleep(5);
  const t0 = performance.now();
  assert.equal(await sched.stop(50), false, 'the run was still in flight');
  const waited = performance.now() - t0;
  assert.ok(waited >= 45 && waited < 1000, `stop() waited ${waited} ms`);
  release();
  assert.equal(await sched.stop(50), true, 'ended now');
});

void test('scheduler survives a run that throws', async () => {
  let runs = 0;
  const sched = new RollupScheduler({
    job: {
      run: () => {
        runs++;
        return Promise.reject(new Error('boom'));
      },
    },
    intervalMs: 10,
    log: silentLog,
  });
  sched.start();
  while (runs < 2) await sleep(5);
  await sched.stop();
  assert.ok(runs >= 2);
});

const p = (o: Partial<BackfillProgress>): BackfillProgress => ({
  rowsScanned: 0,
  windowsWritten: 0,
  unitsDone: 0,
  unitsTotal: 4,
  unitFraction: 0,
  elapsedMs: 0,
  rowsThisRun: 0,
  startFraction: 0,
  ...o,
});

void test('progress: fraction from units done + position in the unit, ETA from this run, one line', () => {
  assert.equal(fractionDone(p({ unitsDone: 1, unitFraction: 0.5 })), 0.375);
  assert.equal(etaMs(p({ unitsDone: 1, unitFraction: 0, elapsedMs: 10_000 })), 30_000);
  assert.equal(etaMs(p({ unitsDone: 2, elapsedMs: 10_000, startFraction: 0.25 })), 20_000, 'a resumed run counts only its own progress');
  assert.equal(etaMs(p({ elapsedMs: 1000 })), undefined);
  assert.equal(etaMs(p({ unitsDone: 4 })), 0);
  const line = formatProgress(p({ unitsDone: 2, rowsScanned: 1234, rowsThisRun: 1000, windowsWritten: 56, elapsedMs: 2000 }), 10);
  assert.equal(line, '[#####.....]  50.0% rows 1234 | windows 56 | 500 rows/s | ETA 2s');
  assert.equal(keyFraction(Buffer.from([5, 0x80]), Buffer.from([5]), Buffer.from([6])), 0.5);
  assert.equal(keyFraction(Buffer.from([5]), Buffer.from([5]), Buffer.from([6])), 0);
});

void test('progress reporter: redraws one line on a TTY, logs lines every few seconds otherwise', () => {
  let now = 0;
  const tty: string[] = [];
  const r1 = new ProgressReporter({ isTTY: true, write: (t: string) => tty.push(t) }, { now: () => now });
  r1.update(p({}));
  now += 100;
  r1.update(p({}));
  now += 150;
  r1.update(p({ unitsDone: 1 }));
  r1.done();
  assert.equal(tty.length, 3);
  assert.ok(tty[0]?.startsWith('\r[') === true);
  assert.equal(tty[2], '\n');
  const log: string[] = [];
  const r2 = new ProgressReporter({ isTTY: false, write: (t: string) => log.push(t) }, { now: () => now, logEveryMs: 5000 });
  for (let i = 0; i < 12; i++) {
    r2.update(p({}));
    now += 1000;
  }
  r2.done();
  assert.equal(log.length, 3);
  assert.ok(log.every((l) => l.startsWith('backfill: [') && l.endsWith('\n')));
});
