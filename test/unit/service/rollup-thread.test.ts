// The rollup thread's plumbing (src/service/rollup-thread.ts) with a real worker thread and no HBase
// to reach (a refused port): a run waits in the thread for its spread registry snapshot, the
// scheduler's abort reaches the thread and fails the run with the thread's reason, a second run
// while one is going is refused, and close() ends the thread (its 'exit'), after which runs are
// refused. Runs with an HBase to reach: test/integration/rollup/ownership.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { quietRollupMeters } from '../../../src/rollup/meters.ts';
import { loadConfig } from '../../../src/runtime/config.ts';
import { RollupThread } from '../../../src/service/rollup-thread.ts';

void test('a run in the thread is aborted by the signal, a second run meanwhile is refused, close() ends the thread', async () => {
  const cfg = loadConfig({ sets: ['hbase.restUrl=http://127.0.0.1:1', 'rollup.owners.mode=all', 'log.level=fatal'] });
  const lines: string[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
  const thread = new RollupThread({ cfg, meters: quietRollupMeters(), log });
  const abort = new AbortController();
  const run = thread.run(abort.signal);
  await assert.rejects(thread.run(), /already in progress/);
  setTimeout(() => {
    abort.abort(new Error('stopped by the test'));
  }, 300);
  await assert.rejects(run, /stopped by the test/);
  await thread.close();
  assert.deepEqual(lines, [], 'the thread ended on its own: not stopped after THREAD_CLOSE_MS, no failure logged');
  await assert.rejects(thread.run(), /closed/);
});
