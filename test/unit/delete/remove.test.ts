// How a delete removes rows (src/delete/remove.ts): at the newest cell's timestamp when it is later
// than now, counted only when a read after finds the row (the column) gone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { column } from '../../../src/hbase/codec.ts';
import { existingRows, removeRows, stampOf } from '../../../src/delete/remove.ts';
import { createLimiter } from '../../../src/toolkit/limiter.ts';
import { FakeHBase } from '../../support/fake-hbase.ts';

const NOW = 1_800_000_000_000;
const HOUR = 3_600_000;
const q = (s: string): Buffer => Buffer.from(s);

void test('stampOf: now, or the newest cell when it is later', () => {
  assert.equal(stampOf(NOW, []), NOW);
  assert.equal(stampOf(NOW, [{ timestamp: NOW - HOUR }]), NOW);
  assert.equal(stampOf(NOW, [{ timestamp: NOW - HOUR }, { timestamp: NOW + HOUR }, { timestamp: NOW + 1 }]), NOW + HOUR);
});

void test('removeRows: a row of a future event time goes and counts; one written past the stamp stays and does not', async () => {
  const db = new FakeHBase(NOW);
  db.seed('t', q('future'), [{ family: 'd', qualifier: q('m'), value: q('1'), timestamp: NOW + HOUR }]);
  db.seed('t', q('past'), [{ family: 'd', qualifier: q('m'), value: q('1'), timestamp: NOW - HOUR }]);
  // read at NOW - HOUR, rewritten since at NOW + 2 h (a writer during the delete)
  db.seed('t', q('rewritten'), [{ family: 'd', qualifier: q('m'), value: q('2'), timestamp: NOW + 2 * HOUR }]);
  const read = await db.multiGet('t', [q('future'), q('past')]);
  const doomed = [...read.flatMap((r) => (r === null ? [] : [r])), { row: q('rewritten'), cells: [{ timestamp: NOW - HOUR }] }];
  const n = await removeRows({ port: db, limiter: createLimiter(4) }, 't', doomed, NOW);
  assert.equal(n, 2, 'the future and the past row: gone in the read after');
  assert.deepEqual(
    (await db.multiGet('t', [q('future'), q('past'), q('rewritten')])).map((r) => r !== null),
    [false, false, true],
  );
});

void test('removeRows: with columns only those go, and the row counts when they are gone', async () => {
  const db = new FakeHBase(NOW);
  db.seed('t', q('marker'), [
    { family: 'd', qualifier: q('dev'), value: q(''), timestamp: NOW + HOUR },
    { family: 'd', qualifier: q('v'), value: q('1'), timestamp: NOW },
  ]);
  const row = await db.get('t', q('marker'));
  assert.ok(row !== null);
  const mine = row.cells.filter((c) => c.qualifier.equals(q('dev')));
  assert.equal(await removeRows({ port: db, limiter: createLimiter(1) }, 't', [{ row: row.row, cells: mine, columns: [column('d', 'dev')] }], NOW), 1);
  assert.deepEqual(
    (await db.get('t', q('marker')))?.cells.map((c) => c.qualifier.toString()),
    ['v'],
  );
});

void test('existingRows: only the keys that exist, with their cells', async () => {
  const db = new FakeHBase(NOW);
  db.seed('t', q('b'), [{ family: 'd', qualifier: q('m'), value: q(''), timestamp: NOW + HOUR }]);
  const found = await existingRows(db, 't', [q('a'), q('b'), q('c')]);
  assert.deepEqual(
    found.map((d) => [d.row.toString(), d.cells.map((c) => c.timestamp)]),
    [['b', [NOW + HOUR]]],
  );
  assert.deepEqual(await existingRows(db, 't', []), []);
});
