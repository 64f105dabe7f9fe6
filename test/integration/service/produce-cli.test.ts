// tsingest produce, as a newcomer uses it after `npm run compose -- up`: a JSON-lines file with one
// bad line is refused before anything is sent, naming the line and the field; with --allow-invalid
// every line goes to the real broker, the service writes the good events and dead-letters the bad one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { uniqueName } from '../../support/env.ts';
import {
  NODE_BIN,
  REPO_ROOT,
  countDataCells,
  createHarness,
  makeEvents,
  offsets,
  readDlq,
  startInProcess,
  waitForEvents,
} from '../../support/service-harness.ts';

const run = promisify(execFile);

void test('tsingest produce: a bad line stops the file naming line and field; --allow-invalid sends all, the service writes the good ones and dead-letters the bad', async (t) => {
  const h = await createHarness(t, { prefix: 'kprod' });
  const dir = mkdtempSync(join(tmpdir(), 'tsi-produce-'));
  h.defer(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const events = makeEvents(30);
  const bad = JSON.stringify({ id: 'pump-9', metric: 'temp', value: 1 }); // no ts
  const file = join(dir, 'events.jsonl');
  writeFileSync(file, [...events.slice(0, 10).map((e) => JSON.stringify(e)), bad, ...events.slice(10).map((e) => JSON.stringify(e))].join('\n') + '\n');
  const sets = h.baseSets.flatMap((s) => ['--set', s]);
  const env = { ...process.env, TSI_KAFKA_BROKERS: h.env.kafkaBrokers };
  const cli = (args: string[]): Promise<{ stdout: string; stderr: string }> =>
    run(NODE_BIN, ['src/cli.ts', 'produce', ...args, ...sets], { cwd: REPO_ROOT, env });

  await assert.rejects(cli(['--file', file]), (e: unknown) => {
    const { code, stderr } = e as { code: number; stderr: string };
    assert.equal(code, 1);
    assert.match(stderr, new RegExp(`events\\.jsonl:11: .*\\[ts\\]`), stderr);
    assert.match(stderr, /nothing sent/);
    return true;
  });
  const empty = await offsets(h, uniqueName('unused'));
  assert.ok(
    Object.values(empty.end).every((high) => high === 0n),
    'nothing reached the topic',
  );

  const sent = await cli(['--file', file, '--allow-invalid']);
  assert.match(sent.stdout, /produced 31 event\(s\) to .* \(1 of them invalid: expect them in /);
  const svc = await startInProcess(h, [`kafka.groupId=${uniqueName('it-kprod-g')}`, 'http.port=0']);
  await waitForEvents(svc, 30);
  assert.equal(await countDataCells(h), 30);
  const [dlq] = await readDlq(h, 1);
  assert.equal(dlq?.value?.toString('utf8'), bad);
});
