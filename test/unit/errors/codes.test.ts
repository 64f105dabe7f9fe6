// The closed list of error codes (src/errors.ts) is safe to classify by code alone: every code is in
// one family only and spelt UPPER_SNAKE, and the families whose words are generic (TIMEOUT,
// PROTOCOL, …) carry their family's prefix. Issue 39: a table-admin PROTOCOL once read as HBase's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ERROR_CODES, ERROR_CODE_FAMILIES } from '../../../src/errors.ts';

const UPPER_SNAKE = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/;
/** Families whose codes start with a prefix of their own. */
const PREFIXES: Readonly<Record<string, string>> = { hbase: 'HBASE_', tableAdmin: 'ADMIN_', checkpoint: 'CHECKPOINT_' };

/** What is wrong with a set of families: codes in more than one family (or twice in one), codes not in UPPER_SNAKE, prefixes missing. */
function problemsOf(families: Readonly<Record<string, readonly string[]>>): string[] {
  const seen = new Map<string, string[]>();
  const problems: string[] = [];
  for (const [family, codes] of Object.entries(families)) {
    for (const code of codes) {
      seen.set(code, [...(seen.get(code) ?? []), family]);
      if (!UPPER_SNAKE.test(code)) problems.push(`${family}: ${code} is not UPPER_SNAKE`);
      const prefix = PREFIXES[family];
      if (prefix !== undefined && !code.startsWith(prefix)) problems.push(`${family}: ${code} lacks the prefix ${prefix}`);
    }
  }
  for (const [code, where] of seen) if (where.length > 1) problems.push(`${code} is in ${where.join(' and ')}`);
  return problems;
}

void test('every error code is unique across the families and UPPER_SNAKE', () => {
  assert.deepEqual(problemsOf(ERROR_CODE_FAMILIES), []);
  assert.equal(new Set(ERROR_CODES).size, ERROR_CODES.length, 'the closed list holds each code once');
  assert.equal(ERROR_CODES.length, Object.values(ERROR_CODE_FAMILIES).flat().length, 'the closed list is every family, nothing dropped');
});

void test('the check fails on a duplicate, a code in another case and a missing prefix', () => {
  assert.deepEqual(problemsOf({ hbase: ['HBASE_TIMEOUT'], tableAdmin: ['ADMIN_TIMEOUT'], service: ['INTERNAL'] }), []);
  assert.deepEqual(problemsOf({ service: ['INTERNAL'], query: ['INTERNAL'] }), ['INTERNAL is in service and query']);
  assert.deepEqual(problemsOf({ key: ['malformed_key', 'Bad-Code'] }), ['key: malformed_key is not UPPER_SNAKE', 'key: Bad-Code is not UPPER_SNAKE']);
  assert.deepEqual(problemsOf({ tableAdmin: ['PROTOCOL'], hbase: ['HBASE_PROTOCOL'] }), ['tableAdmin: PROTOCOL lacks the prefix ADMIN_']);
});
