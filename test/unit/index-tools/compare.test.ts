import { test } from 'node:test';
import assert from 'node:assert/strict';
import { column } from '../../../src/hbase/codec.ts';
import type { Row } from '../../../src/hbase/types.ts';
import { buildEventCells, TAGS_QUALIFIER } from '../../../src/events/index.ts';
import { buildIndexRows } from '../../../src/events/index.ts';
import {
  checkExpectedRow,
  checkIndexRow,
  dataFactsOf,
  expectedIndexRows,
  indexFactsOf,
  type DataFacts,
  type IndexFacts,
} from '../../../src/index-tools/compare.ts';
import { encodeDataKey, encodeIndexKey, encodePrintableDataKey } from '../../../src/keys/index.ts';
import { BASE_TS, configOf, toolSettings } from './fixtures.ts';

const s = toolSettings(configOf());
const entry = { indexName: 'site', value: 's1', ts: BASE_TS, id: 'dev-1' };
const idxKey = encodeIndexKey(entry, 4);

function rowOf(key: Buffer, family: string, cells: [Buffer, Buffer][], ts = BASE_TS): Row {
  return { row: key, cells: cells.map(([q, v]) => ({ column: column(family, q), family: Buffer.from(family), qualifier: q, value: v, timestamp: ts })) };
}

const data = (over: Partial<DataFacts> = {}): DataFacts => ({
  key: Buffer.from('k'),
  id: 'dev-1',
  ts: BASE_TS,
  offset: 0,
  metrics: ['temp', 'hum'],
  tags: { site: 's1' },
  ...over,
});
const dataKey = encodeDataKey({ id: 'dev-1', ts: BASE_TS }, 4);
const idx = (metrics: string[]): IndexFacts => ({ key: idxKey, entry, dataKey, metrics });

void test('an index row matching its data row is fine; each way of not matching has its reason', () => {
  assert.equal(checkIndexRow(idx(['temp']), data()), null);
  assert.equal(checkIndexRow(idx(['temp', 'hum']), data()), null);
  assert.deepEqual(checkIndexRow(idx(['temp']), null), { key: idxKey, entry, reason: 'no_data_row', extraMetrics: ['temp'] });
  assert.deepEqual(checkIndexRow(idx(['temp']), data({ tags: { site: 's2' } })), {
    key: idxKey,
    entry,
    reason: 'tag_mismatch',
    extraMetrics: ['temp'],
    dataValue: 's2',
  });
  assert.equal(checkIndexRow(idx(['temp']), data({ tags: {} }))?.reason, 'tag_mismatch');
  assert.equal(checkIndexRow(idx(['temp']), data({ tags: {} }))?.dataValue, undefined);
  assert.deepEqual(checkIndexRow(idx(['temp', 'pressure', 'wind']), data()), {
    key: idxKey,
    entry,
    reason: 'metrics_missing',
    extraMetrics: ['pressure', 'wind'],
  });
});

void test('a tag named like an Object.prototype member is not found on a data row without it', () => {
  const e = { ...entry, indexName: 'constructor' };
  const f: IndexFacts = { key: encodeIndexKey(e, 4), entry: e, dataKey, metrics: ['temp'] };
  assert.equal(checkIndexRow(f, data())?.reason, 'tag_mismatch');
  assert.deepEqual(
    buildIndexRows({ id: 'a', ts: 1, tags: {}, metrics: ['m'], offset: 0 }, { keyspace: s.keyspace, indexFamily: 'd', indexTags: ['constructor', 'toString'] }),
    [],
  );
});

void test('expected index rows: one per checked tag the row carries, every metric as a qualifier', () => {
  const rows = expectedIndexRows(data({ tags: { site: 's1', rack: 'r2', other: 'x' } }), s);
  const want = [
    {
      key: encodeIndexKey({ indexName: 'site', value: 's1', ts: BASE_TS, id: 'dev-1' }, 4),
      entry: { indexName: 'site', value: 's1', ts: BASE_TS, id: 'dev-1' },
      metrics: ['temp', 'hum'],
    },
    {
      key: encodeIndexKey({ indexName: 'rack', value: 'r2', ts: BASE_TS, id: 'dev-1' }, 4),
      entry: { indexName: 'rack', value: 'r2', ts: BASE_TS, id: 'dev-1' },
      metrics: ['temp', 'hum'],
    },
  ];
  assert.deepEqual(rows, want);
  assert.deepEqual(expectedIndexRows(data({ tags: { site: 's1' } }), toolSettings(configOf(), { tag: 'rack' })), []);
  assert.deepEqual(expectedIndexRows(data({ metrics: [] }), s), [], 'a row without metrics needs no index row');
});

void test('an expected row is missing when absent, incomplete when it lacks metrics', () => {
  const [exp] = expectedIndexRows(data({ tags: { site: 's1' } }), s);
  assert.ok(exp !== undefined);
  assert.equal(checkExpectedRow(exp, ['hum', 'temp']), null);
  assert.equal(checkExpectedRow(exp, ['hum', 'temp', 'extra']), null, 'extra qualifiers are the other direction');
  assert.deepEqual(checkExpectedRow(exp, null), { key: exp.key, entry: exp.entry, reason: 'no_index_row', metrics: ['temp', 'hum'] });
  assert.deepEqual(checkExpectedRow(exp, ['temp']), { key: exp.key, entry: exp.entry, reason: 'metrics_missing', metrics: ['hum'] });
});

void test('data facts from HBase cells (binary and printable keys), other families and 0x00 qualifiers skipped', () => {
  const ev = { id: 'dev-1', ts: BASE_TS, metric: 'temp', value: 1.5, tags: { site: 's1', rack: 'r0' } };
  const cells = buildEventCells(ev).map((c) => [c.qualifier, c.value] as [Buffer, Buffer]);
  const row = rowOf(encodeDataKey(ev, 4), 'd', [...cells, [Buffer.from('\u0000future', 'latin1'), Buffer.from('x')]]);
  row.cells.push({ column: column('x', 'hum'), family: Buffer.from('x'), qualifier: Buffer.from('hum'), value: Buffer.alloc(8), timestamp: BASE_TS });
  assert.deepEqual(dataFactsOf(row, s), { key: row.row, id: 'dev-1', ts: BASE_TS, offset: 0, metrics: ['temp'], tags: { site: 's1', rack: 'r0' } });

  const ps = toolSettings(configOf(['keys.format=printable']));
  const prow = rowOf(encodePrintableDataKey(ev, 4), 'd', cells);
  assert.equal(dataFactsOf(prow, ps).id, 'dev-1');
  assert.throws(() => dataFactsOf(prow, s), /printable data key, the table holds binary/, 'a printable key is not a binary key');
  assert.deepEqual(
    indexFactsOf(rowOf(idxKey, 'd', [[Buffer.from('temp'), Buffer.alloc(0)]]), ps).dataKey,
    encodePrintableDataKey(ev, 4),
    'an index hit points at the data key in the table format',
  );
});

void test('malformed rows throw with what is wrong', () => {
  const bad = rowOf(encodeDataKey({ id: 'dev-1', ts: BASE_TS }, 4), 'd', [[TAGS_QUALIFIER, Buffer.from('not json')]]);
  assert.throws(() => dataFactsOf(bad, s), /tags cell is not UTF-8 JSON/);
  const wrongSalt = Buffer.from(idxKey);
  wrongSalt[0] = ((wrongSalt[0] ?? 0) + 1) % 4;
  assert.throws(
    () => indexFactsOf(rowOf(wrongSalt, 'd', [[Buffer.from('temp'), Buffer.alloc(0)]]), s),
    /misplaced: the index row is in spread bucket offset 1/,
  );
  const ok = indexFactsOf(
    rowOf(idxKey, 'd', [
      [Buffer.from('temp'), Buffer.alloc(0)],
      [Buffer.from('hum'), Buffer.alloc(0)],
    ]),
    s,
  );
  assert.deepEqual(ok, { key: idxKey, entry, dataKey, metrics: ['temp', 'hum'] });
  assert.throws(() => indexFactsOf(rowOf(idxKey, 'd', [[Buffer.from([0xff, 0xfe]), Buffer.alloc(0)]]), s), /not valid UTF-8/);
});
