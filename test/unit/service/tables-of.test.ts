import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../../src/runtime/config.ts';
import { tablesOf } from '../../../src/service/keyspace.ts';

const tables = (sets: readonly string[] = []) => tablesOf(loadConfig({ env: {}, sets: [...sets] }));

void test("tablesOf: the configuration's tables, names and families as configured", () => {
  const t = tables([
    'tables.data.name=d',
    'tables.data.family=x',
    'tables.index.name=i',
    'tables.rollup.name=r',
    'tables.rollup.family=y',
    'tables.rollup.pointsFamily=q',
    'tables.meta.name=m',
  ]);
  assert.deepEqual(t.data, { name: 'd', family: 'x' });
  assert.deepEqual(t.rollup, { name: 'r', family: 'y', pointsFamily: 'q' });
  assert.deepEqual(t.names, ['d', 'i', 'r', 'm']);
  assert.deepEqual(t.mapped, ['d', 'i', 'r']);
  const defaults = tables();
  assert.deepEqual(defaults.names, ['tsdata', 'tsindex', 'tsrollup', 'tsmeta']);
  assert.equal(defaults.rollup.pointsFamily, 'p');
});

void test("tablesOf: no point blocks' family when the job writes none; rollups off leave the rollup table unmapped", () => {
  assert.equal(tables(['rollup.pointBlocks.enabled=false']).rollup.pointsFamily, null);
  const off = tables(['rollup.enabled=false']);
  assert.deepEqual(off.mapped, ['tsdata', 'tsindex']);
  assert.equal(off.rollup.pointsFamily, 'p', "the table plan still gives the rollup table its blocks' family (rollup.pointBlocks.enabled)");
});
