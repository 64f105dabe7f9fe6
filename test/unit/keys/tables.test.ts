import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Tables, type TablesLayout } from '../../../src/keys/index.ts';

const LAYOUT: TablesLayout = {
  data: { name: 'd', family: 'f' },
  index: { name: 'i', family: 'g' },
  rollup: { name: 'r', family: 'h', pointsFamily: 'p' },
  meta: { name: 'm', family: 'k' },
  rollups: true,
};

void test("each role has its table and family; the rollup table also its point blocks' family", () => {
  const t = new Tables(LAYOUT);
  assert.deepEqual(
    [t.data, t.index, t.meta],
    [
      { name: 'd', family: 'f' },
      { name: 'i', family: 'g' },
      { name: 'm', family: 'k' },
    ],
  );
  assert.deepEqual(t.rollup, { name: 'r', family: 'h', pointsFamily: 'p' });
  assert.equal(new Tables({ ...LAYOUT, rollup: { ...LAYOUT.rollup, pointsFamily: null } }).rollup.pointsFamily, null);
});

void test("names in the doctor's order; the rollup table's regions are mapped only when rollups are on", () => {
  const on = new Tables(LAYOUT);
  assert.deepEqual(on.names, ['d', 'i', 'r', 'm']);
  assert.deepEqual(on.mapped, ['d', 'i', 'r']);
  const off = new Tables({ ...LAYOUT, rollups: false });
  assert.deepEqual(off.names, ['d', 'i', 'r', 'm']);
  assert.deepEqual(off.mapped, ['d', 'i']);
});

void test('a Tables value keeps only names and families, frozen: a later change of its input does not reach it', () => {
  const data = { name: 'd', family: 'f', ttlSeconds: 60 };
  const t = new Tables({ ...LAYOUT, data });
  data.name = 'other';
  assert.deepEqual(t.data, { name: 'd', family: 'f' });
  assert.ok(Object.isFrozen(t.data) && Object.isFrozen(t.rollup));
});
