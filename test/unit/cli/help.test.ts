// --help over the CLI's whole command tree: every command and every subcommand answers with its
// usage (exit 0) instead of an "Unknown option" error, and the usage names each subcommand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { COMMANDS } from '../../../src/cli.ts';
import { COMMON_FLAGS, helpFor, wantsHelp } from '../../../src/cli/help.ts';

void test('every command and subcommand of the tree answers --help and -h with its usage', () => {
  let asked = 0;
  for (const [name, entry] of Object.entries(COMMANDS)) {
    for (const sub of [[], ...entry.subcommands.map((s) => [s])]) {
      for (const flag of ['--help', '-h']) {
        const help = helpFor([name, ...sub, flag], COMMANDS);
        assert.equal(help, `usage: ${entry.usage}\n${COMMON_FLAGS}`, `tsingest ${[name, ...sub].join(' ')} ${flag}`);
        asked++;
      }
    }
    for (const sub of entry.subcommands) assert.match(entry.usage, new RegExp(`\\b${sub}\\b`), `${name}'s usage names its subcommand ${sub}`);
  }
  assert.equal(asked, 2 * Object.values(COMMANDS).reduce((n, e) => n + 1 + e.subcommands.length, 0));
});

void test('--help wins over the other flags, but not after `--` or as no flag at all', () => {
  assert.ok(helpFor(['query', 'by-tag', '--tag', 'site', '--help', '--value', 'a'], COMMANDS)?.includes('by-tag --tag NAME'));
  assert.equal(wantsHelp(['produce', '--file', 'x']), false);
  assert.equal(wantsHelp(['keys', 'decode', '--', '--help']), false);
  assert.equal(helpFor(['query', 'latest', '--id', 'a'], COMMANDS), undefined);
});

void test('tsingest --help, help and help CMD', () => {
  const all = helpFor(['--help'], COMMANDS);
  for (const entry of Object.values(COMMANDS)) assert.ok(all?.includes(entry.usage));
  assert.equal(helpFor(['help'], COMMANDS), all);
  assert.equal(helpFor(['help', 'nope'], COMMANDS), all);
  assert.equal(helpFor(['help', 'tables'], COMMANDS), `usage: ${COMMANDS['tables']?.usage ?? ''}\n${COMMON_FLAGS}`);
});

void test('the real command line: tsingest query by-tag --help exits 0 with the usage on stdout', () => {
  const stdout = execFileSync(process.execPath, ['src/cli.ts', 'query', 'by-tag', '--help'], { encoding: 'utf8', env: { ...process.env, TSI_CONFIG: '' } });
  assert.match(stdout, /^usage: tsingest query latest/);
  assert.match(stdout, /by-tag --tag NAME --value V/);
});
