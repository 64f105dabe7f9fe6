// kill -9 of `tsingest rollup run` mid-run, then a rerun: the same summaries as an undisturbed
// computation and no marker left. `tsingest rollup backfill` = the job on the same data, and a backfill
// stopped part-way and resumed from its checkpoint = an uninterrupted one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runBackfill } from '../../../src/rollup/backfill.ts';
import { backfillCheckpointFile } from '../../../src/rollup/rollup-checkpoint.ts';
import { NODE_BIN, REPO_ROOT, waitFor } from '../../support/service-harness.ts';
import { bruteSummaries, prng, sorted, type Ev } from '../../unit/rollup/brute.ts';
import { ROLLUP_SETS, WINDOW_SECS, markEvents, newJob, readRollupTable, rollupHarness, writeEvents, type RollupHarness } from './helpers.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MIDNIGHT = Math.floor((Date.now() - 30 * DAY) / DAY) * DAY;

/** `n` random events of `ids` ids over `hours` hours from `from`, drawn from `seed`. */
function events(draw: { readonly seed: number; readonly n: number; readonly ids: number; readonly from: number; readonly hours: number }): Ev[] {
  const { seed, n, ids, from, hours } = draw;
  const rnd = prng(seed);
  return Array.from({ length: n }, () => ({
    id: `s-${Math.floor(rnd() * ids)}`,
    ts: from + Math.floor(rnd() * hours * HOUR),
    metric: rnd() < 0.5 ? 'a' : 'b',
    value: Math.round(rnd() * 1000) / 8,
  }));
}

interface Cli {
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(): void;
  output(): string;
}

function cli(r: RollupHarness, args: readonly string[], extraSets: readonly string[] = []): Cli {
  const sets = [...r.h.baseSets, ...ROLLUP_SETS, ...extraSets];
  const child = spawn(NODE_BIN, ['src/cli.ts', 'rollup', ...args, ...sets.flatMap((s) => ['--set', s])], {
    cwd: REPO_ROOT,
    env: { ...process.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (b: Buffer): void => {
    out = (out + b.toString()).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => {
    child.once('exit', (code, signal) => {
      res({ code, signal });
    });
  });
  r.h.defer(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  return { exited, kill: () => child.kill('SIGKILL'), output: () => out };
}

void test('SIGKILL of `tsingest rollup run` mid-run, rerun → summaries of an undisturbed run, no marker left', async (t) => {
  const r = await rollupHarness(t, 'rkill');
  // enough marker rows (about one per event: 30 ids over 24 h of minutes) that the run is still
  // deleting them when the first summaries appear
  const evs = events({ seed: 3, n: 3000, ids: 30, from: MIDNIGHT - 24 * HOUR, hours: 24 });
  await writeEvents(r, evs);
  const marked = await markEvents(r, evs);
  const first = cli(r, ['run'], ['rollup.concurrency=1', 'log.level=warn']);
  await waitFor(
    'the first run to write some summaries',
    120_000,
    async () => {
      const exit = await Promise.race([first.exited, sleep(1).then(() => undefined)]);
      if (exit !== undefined) throw new Error(`rollup run ended before it was killed (${JSON.stringify(exit)}):\n${first.output()}`);
      return (await readRollupTable(r)).summaryRows >= 20;
    },
    50,
  );
  first.kill();
  assert.equal((await first.exited).signal, 'SIGKILL');
  const atKill = await readRollupTable(r);
  assert.ok(atKill.marks.length > 0 && atKill.marks.length <= marked + 100, `work was left (${atKill.marks.length} marks in ${atKill.markers.length} rows)`);

  const second = cli(r, ['run']);
  const exit = await second.exited;
  assert.equal(exit.code, 0, second.output());
  assert.match(
    second.output(),
    /rollup run: buckets worked \d+ of \d+ \([\d -]+\), marked windows found \d+, windows written \d+ \(1m \d+, 1h \d+, 1d \d+\), windows without data \d+, markers found re-marked \d+.*, errors 0/,
  );
  const after = await readRollupTable(r);
  assert.deepEqual(after.markers, [], 'no marker of a closed window remains');
  assert.deepEqual(sorted(after.summaries), sorted(bruteSummaries(evs, WINDOW_SECS)));
});

void test('backfill (CLI and resumed) = the job on the same data', async (t) => {
  const r = await rollupHarness(t, 'rback');
  const evs = events({ seed: 5, n: 400, ids: 9, from: MIDNIGHT - 2 * HOUR, hours: 5 });
  const outside: Ev[] = [{ id: 's-1', ts: MIDNIGHT - 2 * DAY, metric: 'a', value: 1 }];
  await writeEvents(r, [...evs, ...outside]);
  const dir = await mkdtemp(join(tmpdir(), 'tsi-rback-'));
  r.h.defer(() => rm(dir, { recursive: true, force: true }));
  const from = new Date(MIDNIGHT - 90 * 60_000).toISOString(); // inside the previous day: widened to its start
  const to = String(MIDNIGHT + 3 * HOUR);
  const cp = join(dir, 'cli.json');

  const run1 = cli(r, ['backfill', '--from', from, '--to', to, '--checkpoint', cp]);
  assert.equal((await run1.exited).code, 0, run1.output());
  assert.match(run1.output(), /backfill range widened from .* to \[.*\): whole 1d windows/);
  assert.match(run1.output(), /backfill finished: rows scanned \d+, windows written \d+/);
  const byCli = await readRollupTable(r);
  assert.deepEqual(sorted(byCli.summaries), sorted(bruteSummaries(evs, WINDOW_SECS)), 'the two whole days, not the event outside');
  const run2 = cli(r, ['backfill', '--from', from, '--to', to, '--checkpoint', cp]);
  assert.equal((await run2.exited).code, 0);
  assert.match(run2.output(), /already finished/);
  const bad = cli(r, ['backfill', '--from', to, '--to', from]);
  assert.equal((await bad.exited).code, 2);
  assert.match(bad.output(), /--from .* must be before --to/);

  // Remove every summary, then backfill again, stopped after a few ids and resumed.
  const keys: Buffer[] = [];
  for await (const row of r.h.rest.scan(r.s.rollupTable, {})) keys.push(row.row);
  for (const k of keys) await r.h.rest.deleteRow(r.s.rollupTable, k);
  assert.equal((await readRollupTable(r)).summaryRows, 0);
  await sleep(5); // new cells get a timestamp after the row deletes
  const params = { from: Date.parse(from), to: Number(to) };
  const ac = new AbortController();
  let ids = 0;
  const partial = await runBackfill({
    store: r.h.rest,
    settings: r.s,
    params,
    checkpoint: backfillCheckpointFile(join(dir, 'api.json')),
    signal: ac.signal,
    onIdDone: () => {
      if (++ids === 3) ac.abort();
    },
  });
  assert.equal(partial.status, 'aborted');
  const mid = await readRollupTable(r);
  assert.ok(mid.summaryRows > 0 && mid.summaryRows < byCli.summaryRows, `part written (${mid.summaryRows} of ${byCli.summaryRows})`);
  const resumed = await runBackfill({ store: r.h.rest, settings: r.s, params, checkpoint: backfillCheckpointFile(join(dir, 'api.json')) });
  assert.equal(resumed.status, 'finished');
  assert.equal(resumed.resumed, true);
  assert.deepEqual(sorted((await readRollupTable(r)).summaries), sorted(byCli.summaries));

  // The job on the same data (every window marked) writes the very same summaries.
  await markEvents(r, evs);
  const report = await newJob(r).run();
  assert.equal(report.ok, true);
  // every window recomputed (not left alone because the backfill's summaries were already there)
  const windows = new Set([...byCli.summaries.keys()].map((k) => k.split('|').slice(0, 3).join('|')));
  assert.equal(report.written, windows.size, JSON.stringify(report.sizes));
  const byJob = await readRollupTable(r);
  assert.deepEqual(byJob.markers, []);
  assert.deepEqual(sorted(byJob.summaries), sorted(byCli.summaries));
});
