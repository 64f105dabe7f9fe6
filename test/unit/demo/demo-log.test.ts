// `npm start` tells its story on the terminal and keeps the service's JSON log lines (kafkajs's among
// them) in one file per run (scripts/lib/demo/demo-log.ts): run in a child process, a kafkajs warning
// and a service info line through the demo's logger land in the file and nothing reaches stdout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DEMO_COMMAND_SETS, demoLogFile } from '../../../scripts/lib/demo/demo-log.ts';
import { loadConfig } from '../../../src/runtime/config.ts';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');

void test("the demo's logger: the service's and kafkajs's lines go to the file (truncated per run), none to stdout", (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tsi-demo-log-'));
  t.after(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const file = demoLogFile(join(dir, 'logs'));
  assert.equal(file, join(dir, 'logs', 'npm-start.log'));
  const script = `
    import { logLevel } from 'kafkajs';
    import { demoLogger } from ${JSON.stringify(join(ROOT, 'scripts/lib/demo/demo-log.ts'))};
    import { kafkaLogCreator } from ${JSON.stringify(join(ROOT, 'src/service/kafka-logging.ts'))};
    const log = demoLogger(process.argv[1]);
    log.info({ module: 'service' }, 'service running');
    kafkaLogCreator(log)(logLevel.WARN)({ namespace: 'ConsumerGroup', level: logLevel.WARN, label: 'WARN', log: { message: 'The group is rebalancing, re-joining', timestamp: '' } });
    log.debug('below info: not kept');
  `;
  for (let run = 0; run < 2; run++) {
    const res = spawnSync(process.execPath, ['--input-type=module', '-e', script, file], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(res.status, 0, res.stderr);
    assert.equal(res.stdout, '', 'nothing on the terminal');
  }
  const lines = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.deepEqual(
    lines.map((l) => [l['level'], l['msg'], l['component'] ?? l['module']]),
    [
      ['info', 'service running', 'service'],
      ['warn', 'The group is rebalancing, re-joining', 'kafkajs'],
    ],
    'the second run replaced the first; debug left out',
  );
});

void test('the tsingest commands the demo runs log warnings and errors only', () => {
  const cfg = loadConfig({ file: join(ROOT, 'config/local.json'), env: {}, sets: [...DEMO_COMMAND_SETS] });
  assert.equal(cfg.log.level, 'warn');
});
