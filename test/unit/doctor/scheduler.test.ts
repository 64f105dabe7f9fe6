import { describe, it } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import type { Finding } from '../../../src/doctor/finding.ts';
import { DoctorScheduler, type DoctorOutcome } from '../../../src/doctor/scheduler.ts';
import { createDoctorMetrics, recordDoctorRun } from '../../../src/metrics/doctor-metrics.ts';

const T0 = 1_700_000_000_000;
const checked = { tables: ['d', 'i'], servers: 1 };
const finding = (severity: Finding['severity'], rule: string): Finding => ({
  rule,
  severity,
  subject: 'table d',
  measured: 'm',
  threshold: 't',
  source: 'https://hbase.apache.org/book.html#x',
  fix: 'f',
});

/** A check the test settles by hand: each call waits for resolve/reject of its own. */
function manualCheck(): {
  check: (signal: AbortSignal) => Promise<{ findings: Finding[]; checked: typeof checked }>;
  calls: { resolve: (f: Finding[]) => void; reject: (e: Error) => void; signal: AbortSignal }[];
} {
  const calls: { resolve: (f: Finding[]) => void; reject: (e: Error) => void; signal: AbortSignal }[] = [];
  return {
    calls,
    check: (signal) =>
      new Promise((resolve, reject) => {
        calls.push({
          resolve: (findings) => {
            resolve({ findings, checked });
          },
          reject,
          signal,
        });
      }),
  };
}

/** Lets the settled check's continuation (and the next schedule) run. */
const flush = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

function clock(t: TestContext): void {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: T0 });
}

void describe('DoctorScheduler', () => {
  void it('runs first after firstDelayMs, then everyMs after each run ended, never two at a time', async (t) => {
    clock(t);
    const m = manualCheck();
    const outcomes: DoctorOutcome[] = [];
    const s = new DoctorScheduler({
      check: m.check,
      everyMs: 60_000,
      firstDelayMs: 5000,
      onRun: (o) => {
        outcomes.push(o);
      },
    });
    assert.equal(s.snapshot().nextRunAt, null, 'nothing scheduled before start()');
    s.start();
    s.start();
    assert.deepEqual(s.snapshot(), { everyMs: 60_000, running: false, nextRunAt: T0 + 5000, lastRun: null, report: null });
    t.mock.timers.tick(4999);
    assert.equal(m.calls.length, 0);
    t.mock.timers.tick(1);
    assert.equal(m.calls.length, 1);
    assert.equal(s.snapshot().running, true);
    assert.equal(s.snapshot().nextRunAt, null, 'no next run while one runs');
    t.mock.timers.tick(120_000); // a slow run: no second one meanwhile
    assert.equal(m.calls.length, 1);
    m.calls[0]?.resolve([finding('info', 'storage.compression'), finding('warn', 'storage.bloom')]);
    await flush();
    const snap = s.snapshot();
    assert.equal(snap.running, false);
    assert.deepEqual(snap.lastRun, { startedAt: T0 + 5000, finishedAt: T0 + 125_000, outcome: 'ok' });
    assert.deepEqual(snap.report?.counts, { error: 0, warn: 1, info: 1 });
    assert.equal(snap.report.at, T0 + 125_000);
    assert.deepEqual(snap.report.checked, checked);
    assert.equal(snap.nextRunAt, T0 + 185_000, 'everyMs after the run ended');
    assert.deepEqual(
      outcomes.map((o) => o.outcome),
      ['ok'],
    );
    t.mock.timers.tick(60_000);
    assert.equal(m.calls.length, 2);
    s.stop();
  });

  void it('keeps a failed run with its reason and the findings of the last completed one, and goes on', async (t) => {
    clock(t);
    const m = manualCheck();
    const outcomes: DoctorOutcome[] = [];
    const s = new DoctorScheduler({
      check: m.check,
      everyMs: 1000,
      firstDelayMs: 0,
      onRun: (o) => {
        outcomes.push(o);
      },
    });
    s.start();
    t.mock.timers.tick(0);
    m.calls[0]?.resolve([finding('info', 'storage.compression')]);
    await flush();
    t.mock.timers.tick(1000);
    m.calls[1]?.reject(new Error(`gateway <down> ${'x'.repeat(600)}`));
    await flush();
    const snap = s.snapshot();
    assert.equal(snap.lastRun?.outcome, 'failed');
    assert.equal(snap.lastRun.error?.length, 500, 'the reason is bounded');
    assert.match(snap.lastRun.error ?? '', /^gateway <down> x/);
    assert.equal(snap.report?.at, T0, 'the findings of the last completed run stay');
    assert.deepEqual(
      outcomes.map((o) => o.outcome),
      ['ok', 'failed'],
    );
    t.mock.timers.tick(1000);
    assert.equal(m.calls.length, 3, 'a failure does not stop the schedule');
    s.stop();
  });

  void it('stop() cancels the timer, aborts the run in flight and drops what it reports', async (t) => {
    clock(t);
    const m = manualCheck();
    const outcomes: DoctorOutcome[] = [];
    const s = new DoctorScheduler({
      check: m.check,
      everyMs: 1000,
      firstDelayMs: 10,
      onRun: (o) => {
        outcomes.push(o);
      },
    });
    s.start();
    s.stop();
    t.mock.timers.tick(10_000);
    assert.equal(m.calls.length, 0, 'the pending first run never starts');

    const s2 = new DoctorScheduler({
      check: m.check,
      everyMs: 1000,
      firstDelayMs: 0,
      onRun: (o) => {
        outcomes.push(o);
      },
    });
    s2.start();
    t.mock.timers.tick(0);
    assert.equal(m.calls.length, 1);
    s2.stop();
    s2.stop();
    assert.equal(m.calls[0]?.signal.aborted, true);
    m.calls[0].reject(new Error('client closed'));
    await flush();
    t.mock.timers.tick(10_000);
    assert.equal(m.calls.length, 1, 'no run after stop');
    assert.deepEqual(outcomes, []);
    assert.equal(s2.snapshot().lastRun, null);
    s2.start();
    t.mock.timers.tick(10_000);
    assert.equal(m.calls.length, 1, 'a stopped scheduler does not start again');
  });

  void it('refuses a period that would not schedule anything', () => {
    assert.throws(() => new DoctorScheduler({ check: () => Promise.reject(new Error('x')), everyMs: 0, firstDelayMs: 0 }), /doctor\.everyMs must be > 0/);
    assert.throws(() => new DoctorScheduler({ check: () => Promise.reject(new Error('x')), everyMs: 10, firstDelayMs: -1 }), /firstDelayMs must be ≥ 0/);
  });
});

void describe('doctor metrics', () => {
  void it('count runs by outcome; a completed run sets the findings per severity and its time', async () => {
    const registry = new Registry();
    const m = createDoctorMetrics(registry);
    const before = await registry.metrics();
    assert.match(before, /^tsingest_doctor_runs_total\{outcome="failed"\} 0$/m);
    assert.match(before, /^tsingest_doctor_last_run_timestamp_seconds 0$/m);
    const run = { startedAt: T0 - 500, finishedAt: T0, outcome: 'ok' as const };
    recordDoctorRun(m, { outcome: 'ok', run, report: { at: T0, checked, counts: { error: 1, warn: 0, info: 4 }, findings: [] } });
    recordDoctorRun(m, { outcome: 'failed', run: { ...run, outcome: 'failed', error: 'x' }, err: new Error('x') });
    const text = await registry.metrics();
    assert.match(text, /^tsingest_doctor_findings\{severity="error"\} 1$/m);
    assert.match(text, /^tsingest_doctor_findings\{severity="warn"\} 0$/m);
    assert.match(text, /^tsingest_doctor_findings\{severity="info"\} 4$/m);
    assert.match(text, /^tsingest_doctor_last_run_timestamp_seconds 1700000000$/m);
    assert.match(text, /^tsingest_doctor_runs_total\{outcome="ok"\} 1$/m);
    assert.match(text, /^tsingest_doctor_runs_total\{outcome="failed"\} 1$/m);
  });
});
