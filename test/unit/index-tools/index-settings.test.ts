import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dataUnits, indexUnits, positionInRange, windowOf } from '../../../src/index-tools/index-settings.ts';
import { encodeDataKey, encodeIndexKey, encodePrintableDataKey } from '../../../src/keys/index.ts';
import { configOf, toolSettings as settingsOf } from './fixtures.ts';

const inRange = (key: Buffer, r: { startRow: Buffer; stopRow: Buffer }): boolean =>
  key.compare(r.startRow) >= 0 && (r.stopRow.length === 0 || key.compare(r.stopRow) < 0);

void test('settings from the config; --tag must be an indexed tag; some tag is needed', () => {
  const { keyspace, ...s } = settingsOf(configOf(['tables.data.family=x', 'index.saltMode=value']));
  assert.deepEqual(s, { dataTable: 'd', dataFamily: 'x', indexTable: 'i', indexFamily: 'd', tags: ['site', 'rack'], window: null });
  assert.deepEqual(keyspace.layout, { buckets: 4, format: 'binary', indexSaltMode: 'value' });
  assert.deepEqual(settingsOf(configOf(), { tag: 'rack' }).tags, ['rack']);
  assert.throws(() => settingsOf(configOf(), { tag: 'zone' }), /--tag zone is not one of index\.tags \(\["site","rack"\]\)/);
  assert.throws(() => settingsOf(configOf(['index.tags=[]'])), /index\.tags is empty/);
});

void test('time window [from, to): open ends are filled, an empty window is refused', () => {
  assert.equal(windowOf(undefined, undefined), null);
  assert.deepEqual(windowOf(5, undefined), { from: 5, to: Number.MAX_SAFE_INTEGER });
  assert.deepEqual(windowOf(undefined, 9), { from: 0, to: 9 });
  assert.throws(() => windowOf(9, 9), /--from \(9\) must be before --to \(9\)/);
});

void test('data units cover each salt bucket exactly, in binary and printable keys', () => {
  for (const format of ['binary', 'printable'] as const) {
    const units = dataUnits(settingsOf(configOf([`keys.format=${format}`])));
    assert.deepEqual(
      units.map((u) => u.id),
      ['data/0', 'data/1', 'data/2', 'data/3'],
    );
    for (let i = 0; i < 40; i++) {
      const parts = { id: `dev-${i}`, ts: 1000 + i };
      const key = format === 'binary' ? encodeDataKey(parts, 4) : encodePrintableDataKey(parts, 4);
      const hits = units.filter((u) => inRange(key, u.range));
      assert.equal(hits.length, 1);
      assert.equal(hits[0]?.bucket, format === 'binary' ? key[0] : Number.parseInt(key.toString('latin1', 0, 2), 16));
    }
  }
});

void test("index units: one per bucket and tag, holding exactly that tag's rows", () => {
  const units = indexUnits(settingsOf(configOf()));
  assert.equal(units.length, 8);
  const key = encodeIndexKey({ indexName: 'site', value: 'v', ts: 1, id: 'a' }, 4);
  const other = encodeIndexKey({ indexName: 'sites', value: 'v', ts: 1, id: 'a' }, 4);
  assert.deepEqual(
    units.filter((u) => inRange(key, u.range)).map((u) => u.id),
    [`index/${key[0]}/site`],
  );
  assert.deepEqual(
    units.filter((u) => inRange(other, u.range)).map((u) => u.id),
    [],
    'a longer tag name is not the tag',
  );
});

void test('positions are estimates within [0, 1] in key order', () => {
  const range = { startRow: Buffer.from([1]), stopRow: Buffer.from([2]) };
  const ps = [
    [1, 0x00],
    [1, 0x20, 0x30],
    [1, 0x80],
    [1, 0xff, 0xff, 0xff, 0xff],
  ].map((b) => positionInRange(Buffer.from(b), range));
  assert.deepEqual(
    ps.map((p) => p >= 0 && p <= 1),
    [true, true, true, true],
  );
  assert.deepEqual(
    [...ps].sort((a, b) => a - b),
    ps,
  );
  assert.equal(ps[2], 0.5);
  assert.equal(positionInRange(Buffer.from([0, 9]), range), 0);
  assert.equal(positionInRange(Buffer.from([3]), range), 1);
});
