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

void test('delete: an id the key layout refuses is a wrong command line, refused before any HBase call', async () => {
  const refused: [string, RegExp][] = [
    ['x'.repeat(130), /^--id: id is 130 UTF-8 bytes, max 128$/],
    ['é'.repeat(65), /^--id: id is 130 UTF-8 bytes, max 128$/],
    ['a\u0000b', /^--id: id must not contain a NUL/],
  ];
  for (const [id, message] of refused) {
    // no --set: a call to HBase would fail otherwise (and not with a UsageError)
    await assert.rejects(deleteCommand(['--id', id]), (e: unknown) => e instanceof UsageError && message.test(e.message));
  }
});
