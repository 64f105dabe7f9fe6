// Flag errors of `tsingest index` are usage errors naming the flag, raised before any HBase call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UsageError } from '../../../src/cli/args.ts';
import { indexCommand } from '../../../src/cli/index-cmd.ts';

const sets = ['--set', 'index.tags=["site"]', '--set', 'hbase.restUrl=http://127.0.0.1:1'];

void test('bad command lines are usage errors that name the flag', async () => {
  const cases: [string[], RegExp][] = [
    [[], /usage: tsingest index verify/],
    [['check'], /usage: tsingest index verify/],
    [['verify', 'extra'], /unexpected argument "extra"/],
    [['verify', '--rate', '10'], /--rate applies to index rebuild only/],
    [['verify', '--checkpoint', 'f'], /--checkpoint applies to index rebuild only/],
    [['verify', '--tag', 'rack'], /--tag rack is not one of index\.tags \(\["site"\]\)/],
    [['verify', '--from', '2024-13-01T00:00:00Z'], /--from must be epoch milliseconds or ISO-8601/],
    [['verify', '--from', '2000', '--to', '1000'], /--from \(2000\) must be before --to \(1000\)/],
    [['verify', '--chunk', '0'], /--chunk must be between 1 and 10000, got 0/],
    [['verify', '--concurrency', 'x'], /--concurrency must be an integer, got "x"/],
    [['rebuild', '--rate', '0'], /--rate must be a positive number of rows per second, got "0"/],
    [['rebuild', '--grace-ms=-1'], /--grace-ms must be between 0 and/],
    [['rebuild', '--checkpoint', ''], /--checkpoint needs a file path/],
    [['rebuild', '--bogus'], /Unknown option '--bogus'/],
  ];
  for (const [argv, message] of cases) {
    await assert.rejects(indexCommand([...argv, ...sets]), (err: unknown) => err instanceof UsageError && message.test(err.message), argv.join(' '));
  }
});
