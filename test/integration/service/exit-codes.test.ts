// `tsingest run` exits with a code that tells the truth (docs/OPERATIONS.md), as a process, against the
// real stack: a configuration that does not validate and one that does not match the tables refuse
// to start with 3; a table dropped under the running service is a dependency lost for good, 4 (before
// issue 31 a fatal stop exited 0, so a supervisor took it for a clean stop); a SIGTERM drain, 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyTables } from '../../../src/admin/apply-tables.ts';
import { uniqueName } from '../../support/env.ts';
import {
  createHarness,
  freePort,
  makeEvents,
  produceEvents,
  readyzStatus,
  retryingRest,
  scrapeEvents,
  startChild,
  waitFor,
} from '../../support/service-harness.ts';

void test('exit codes of tsingest run: 3 for configuration, 0 for a drain, 4 for a table gone mid-run', async (t) => {
  const h = await createHarness(t, { prefix: 'exit', partitions: 1 });

  await t.test('a value that does not validate: 3, naming the key', async () => {
    const run = startChild(h, [`kafka.groupId=${uniqueName('it-exit-a')}`, 'hbase.outageDeadlineMs=-5'], await freePort());
    assert.equal((await run.exited).code, 3, run.output());
    assert.match(run.output(), /hbase\.outageDeadlineMs/);
  });

  await t.test('a configuration that does not match the tables (B): 3, refusing to start', async () => {
    const run = startChild(h, [`kafka.groupId=${uniqueName('it-exit-b')}`, 'keys.saltBuckets=8'], await freePort());
    assert.equal((await run.exited).code, 3, run.output());
    assert.match(run.output(), /refusing to start/);
  });

  await t.test('a SIGTERM drain: 0', async () => {
    const run = startChild(h, [`kafka.groupId=${uniqueName('it-exit-d')}`], await freePort());
    await waitFor('service ready', 90_000, async () => (await readyzStatus(run.port).catch(() => 0)) === 200);
    run.child.kill('SIGTERM');
    assert.equal((await run.exited).code, 0, run.output());
  });

  await t.test('the data table dropped under the running service: a fatal stop, exit 4', async () => {
    const run = startChild(h, [`kafka.groupId=${uniqueName('it-exit-c')}`], await freePort());
    await waitFor('service ready', 90_000, async () => (await readyzStatus(run.port).catch(() => 0)) === 200);
    await produceEvents(h, makeEvents(200, { idPrefix: 'ex' }));
    await waitFor('the first events written', 60_000, async () => ((await scrapeEvents(run.port)) ?? 0) >= 200);
    await retryingRest(`drop ${h.names.data}`, () => h.rest.deleteTable(h.names.data, { ignoreMissing: true }));
    await produceEvents(h, makeEvents(200, { idPrefix: 'ex', base: 1_800_000_000_000 }));
    const exit = await Promise.race([
      run.exited,
      new Promise<null>((r) =>
        setTimeout(() => {
          r(null);
        }, 120_000),
      ),
    ]);
    assert.notEqual(exit, null, `the service stopped by itself:\n${run.output()}`);
    assert.equal(exit?.code, 4, run.output());
    assert.match(run.output(), /"level":"fatal".*HBASE_TABLE_NOT_FOUND/);
    // The tables back, so the harness drops what it created (the gateway can hang on a table it just deleted).
    await retryingRest('apply tables', () => applyTables(h.config(['kafka.groupId=unused']), h.tableAdmin, h.rest));
  });
});
