// tsingest delete refuses a wrong command line before any HBase call (exit 2 through UsageError).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UsageError } from '../../../src/cli/args.ts';
import { deleteCommand } from '../../../src/cli/delete.ts';

void test('delete: --id is required, --from and --to go together and in order, extra words are refused', async () => {
  await assert.rejects(deleteCommand([]), (e: unknown) => e instanceof UsageError && e.message === '--id is required');
  await assert.rejects(deleteCommand(['--id', 'dev', '--from', '1000']), (e: unknown) => e instanceof UsageError && /go together/.test(e.message));
  await assert.rejects(
    deleteCommand(['--id', 'dev', '--from', '2000', '--to', '1000']),
    (e: unknown) => e instanceof UsageError && /must be before --to/.test(e.message),
  );
  await assert.rejects(deleteCommand(['--id', 'dev', 'now']), (e: unknown) => e instanceof UsageError && /unexpected argument "now"/.test(e.message));
  await assert.rejects(
    deleteCommand(['--id', 'dev', '--concurrency', '0']),
    (e: unknown) => e instanceof UsageError && /--concurrency must be between 1 and 1024/.test(e.message),
  );
});
