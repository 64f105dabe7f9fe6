import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CURSOR_VERSION, assertCursorFor, decodeCursor, encodeCursor, fingerprintOf, type QueryIdentity } from '../../../src/reads-v1/cursor.ts';
import { QueryError } from '../../../src/reads-v1/query-error.ts';

const range: QueryIdentity = { kind: 'range', id: 'dev1', from: 1000, to: 5000, metric: 'temp' };

const isCursorError = (e: unknown): boolean => e instanceof QueryError && e.parameter === 'cursor' && e.status === 400 && /cursor/.test(e.message);

test('a cursor round-trips its position (any bytes, including 0x00 and 0xff) and from/to', () => {
  const position = Buffer.from([0x00, 0x01, 0xff, 0x00, 0x7f, 0x2f, 0x2b]);
  const text = encodeCursor(range, position);
  assert.match(text, /^[A-Za-z0-9_-]+$/, 'base64url, safe in a query string');
  const c = decodeCursor(text);
  assert.ok(c.position.equals(position));
  assert.equal(c.kind, 'range');
  assert.equal(c.from, 1000);
  assert.equal(c.to, 5000);
  assert.equal(c.fingerprint, fingerprintOf(range));
  assertCursorFor(c, { ...range });
});

test('a cursor used with another query is rejected naming cursor', () => {
  const c = decodeCursor(encodeCursor(range, Buffer.from('k')));
  for (const other of [
    { ...range, id: 'dev10' },
    { ...range, from: 1001 },
    { ...range, to: 4999 },
    { ...range, metric: null },
    { ...range, metric: 'hum' },
    { ...range, kind: 'latest' as const },
  ]) {
    assert.throws(
      () => {
        assertCursorFor(c, other);
      },
      isCursorError,
      JSON.stringify(other),
    );
  }
  const byTag = decodeCursor(encodeCursor({ kind: 'by_tag', tag: 'site', value: 'a', from: 0, to: 9 }, Buffer.from('p')));
  assert.throws(() => {
    assertCursorFor(byTag, { kind: 'by_tag', tag: 'site', value: 'b', from: 0, to: 9 });
  }, isCursorError);
  const rollups = decodeCursor(encodeCursor({ kind: 'rollups', id: 'x', from: 0, to: 9, metric: null, window: 3600 }, Buffer.from('p')));
  assert.throws(() => {
    assertCursorFor(rollups, { kind: 'rollups', id: 'x', from: 0, to: 9, metric: null, window: 86400 });
  }, isCursorError);
});

test('fingerprints separate fields that concatenate alike', () => {
  assert.notEqual(fingerprintOf({ kind: 'by_tag', tag: 'ab', value: 'c' }), fingerprintOf({ kind: 'by_tag', tag: 'a', value: 'bc' }));
  assert.notEqual(fingerprintOf({ kind: 'range', id: 'x', metric: null }), fingerprintOf({ kind: 'range', id: 'x', metric: 'null' }));
});

test('malformed cursors are 400s naming cursor', () => {
  const b64 = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url');
  const good = { v: CURSOR_VERSION, k: 'latest', q: fingerprintOf({ kind: 'latest', id: 'a' }), p: 'AA' };
  for (const text of [
    '',
    'not a cursor!',
    'x'.repeat(5000),
    Buffer.from('not json').toString('base64url'),
    b64([1, 2]),
    b64({ ...good, v: 1 }), // version 1 positions were whole keys, not merge positions
    b64({ ...good, v: 3 }),
    b64({ ...good, k: 'drop' }),
    b64({ ...good, q: '' }),
    b64({ ...good, p: '' }),
    b64({ ...good, f: -1 }),
    b64({ ...good, t: 'soon' }),
  ]) {
    assert.throws(() => decodeCursor(text), isCursorError, text.slice(0, 40));
  }
  assert.throws(
    () => decodeCursor('%%%', '--cursor'),
    (e: unknown) => e instanceof QueryError && e.message.startsWith('--cursor '),
  );
  assert.ok(decodeCursor(b64(good)).position.equals(Buffer.from([0])));
});
