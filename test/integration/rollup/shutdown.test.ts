// A SIGTERM to the service while a rollup run is in flight (issue 39): it exits 0 within the drain
// deadline and leaves the markers it did not finish for the next run, both when the run is busy
// (it stops at its next batch) and when the run is stuck inside an HBase call that never answers
// (a proxy holds its scans of the data table; the shutdown leaves the run behind).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { uniqueName } from '../../support/env.ts';
import { startHoldingProxy } from '../../support/holding-proxy.ts';
import { freePort, startChild, waitFor, type ChildService } from '../../support/service-harness.ts';
import type { Ev } from '../../unit/rollup/brute.ts';
import { markEvents, readRollupTable, rollupHarness, writeEvents, type RollupHarness } from './helpers.ts';

const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const START = Math.floor((Date.now() - 20 * DAY) / DAY) * DAY - HOUR;
const DRAIN_MS = 4000;

/** 16,000 ids in one minute: one marker row of ~4,000 ids per bucket, pages of 8 batches (500 windows each). */
async function markedRun(r: RollupHarness): Promise<{ events: Ev[]; marked: number }> {
  const events: Ev[] = Array.from({ length: 16_000 }, (_, i) => ({ id: `s-${i}`, ts: START + (i % MIN), metric: 'v', value: i }));
  await writeEvents(r, events);
  return { events, marked: await markEvents(r, events) };
}

async function startRunner(r: RollupHarness, extra: readonly string[]): Promise<ChildService> {
  const sets = [
    `kafka.groupId=${uniqueName('it-rstop')}`,
    'rollup.windows=["1m"]',
    'rollup.concurrency=1',
    'rollup.owners.mode=all',
    `shutdown.drainTimeoutMs=${DRAIN_MS}`,
  ];
  return startChild(r.h, [...sets, ...extra], await freePort());
}

async function windowsWritten(run: ChildService): Promise<boolean> {
  if (run.child.exitCode !== null) throw new Error(`service exited early:\n${run.output()}`);
  const text = await fetch(`http://127.0.0.1:${run.port}/metrics?name=tsingest_rollup_windows_written_total`).then(
    (x) => x.text(),
    () => '',
  );
  return /^tsingest_rollup_windows_written_total\{[^}]*\} [1-9]/m.test(text);
}

async function sigterm(run: ChildService): Promise<{ code: number | null; tookMs: number }> {
  const t0 = performance.now();
  run.child.kill('SIGTERM');
  const exit = await run.exited;
  return { code: exit.code, tookMs: performance.now() - t0 };
}

/** Nothing lost: every marked window is rolled up or still marked, and some marks are left. */
async function assertMarksLeft(r: RollupHarness, events: readonly Ev[], marked: number): Promise<void> {
  const table = await readRollupTable(r);
  assert.ok(table.marks.length > 0, `markers left for the next run: ${table.marks.length} of ${marked}`);
  const marks = new Set(table.marks);
  for (const e of events) {
    const k = `${e.id}|60|${e.ts - (e.ts % MIN)}`;
    assert.ok(marks.has(k) || table.summaries.has(`${k}|v`), `${k}: a summary or its mark`);
  }
}

void test('SIGTERM during a long rollup run: exit 0 within the drain deadline, the markers not finished left', async (t) => {
  const r = await rollupHarness(t, 'rstop');
  const { events, marked } = await markedRun(r);
  const run = await startRunner(r, []);
  await waitFor('the rollup run under way', 90_000, () => windowsWritten(run), 20);
  const exit = await sigterm(run);
  assert.equal(exit.code, 0, run.output());
  assert.ok(exit.tookMs < DRAIN_MS, `exited in ${Math.round(exit.tookMs)} ms, within the drain deadline (${DRAIN_MS} ms)`);
  await assertMarksLeft(r, events, marked);
});

void test('SIGTERM while the rollup run waits on a scan HBase never answers: exit 0 within the drain deadline, markers left', async (t) => {
  const r = await rollupHarness(t, 'rhold');
  const { events, marked } = await markedRun(r);
  const proxy = await startHoldingProxy(r.h.env.restUrl, r.h.defer);
  const run = await startRunner(r, [`hbase.restUrl=${proxy.url}`]);
  await waitFor('the rollup run under way', 90_000, () => windowsWritten(run), 20);
  // From now on the run's next scan of the data table gets no answer.
  const data = r.s.dataTable;
  proxy.hold((_method, path) => path.includes('/scanner') && decodeURIComponent(path).includes(data));
  await waitFor('the run to wait on a held scan', 60_000, () => proxy.held.length > 0, 20);
  const exit = await sigterm(run);
  assert.equal(exit.code, 0, run.output());
  assert.ok(exit.tookMs < DRAIN_MS, `exited in ${Math.round(exit.tookMs)} ms, within the drain deadline (${DRAIN_MS} ms)`);
  assert.match(run.output(), /rollup run still in flight at shutdown/);
  await assertMarksLeft(r, events, marked);
});
