import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeFilter, filterModel } from '../../../src/hbase/index.ts';

test('SingleColumnValueFilter matches HBase FilterModel (base64 family/qualifier, comparator)', () => {
  assert.deepEqual(
    filterModel({
      type: 'SingleColumnValueFilter',
      family: Buffer.from('cf'),
      qualifier: Buffer.from([0x00]),
      op: 'EQUAL',
      comparator: { type: 'BinaryComparator', value: Buffer.from([0xff]) },
      ifMissing: true,
      latestVersion: true,
    }),
    {
      type: 'SingleColumnValueFilter',
      op: 'EQUAL',
      family: 'Y2Y=',
      qualifier: 'AA==',
      comparator: { type: 'BinaryComparator', value: '/w==' },
      ifMissing: true,
      latestVersion: true,
    },
  );
});

test('FilterList nests; string comparators stay plain text; PageFilter value is a string', () => {
  const s = encodeFilter({
    type: 'FilterList',
    op: 'MUST_PASS_ALL',
    filters: [
      { type: 'RowFilter', op: 'NOT_EQUAL', comparator: { type: 'SubstringComparator', value: 'ab/c' } },
      { type: 'PageFilter', pageSize: 10 },
      { type: 'WhileMatchFilter', filter: { type: 'KeyOnlyFilter' } },
    ],
  });
  assert.deepEqual(JSON.parse(s), {
    type: 'FilterList',
    op: 'MUST_PASS_ALL',
    filters: [
      { type: 'RowFilter', op: 'NOT_EQUAL', comparator: { type: 'SubstringComparator', value: 'ab/c' } },
      { type: 'PageFilter', value: '10' },
      { type: 'WhileMatchFilter', filters: [{ type: 'KeyOnlyFilter' }] },
    ],
  });
});

test("MultiRowRangeFilter: [start, stop) is HBase's default and left out, other bounds sent; other byte filters use base64", () => {
  assert.deepEqual(filterModel({ type: 'MultiRowRangeFilter', ranges: [{ startRow: Buffer.from('a'), stopRow: Buffer.from('b') }] }), {
    type: 'MultiRowRangeFilter',
    ranges: [{ startRow: 'YQ==', stopRow: 'Yg==' }],
  });
  assert.deepEqual(
    filterModel({
      type: 'MultiRowRangeFilter',
      ranges: [
        { startRow: Buffer.from('a'), startRowInclusive: true, stopRow: Buffer.from('b'), stopRowInclusive: false },
        { startRow: Buffer.from('c'), startRowInclusive: false, stopRow: Buffer.from('d'), stopRowInclusive: true },
      ],
    }),
    {
      type: 'MultiRowRangeFilter',
      ranges: [
        { startRow: 'YQ==', stopRow: 'Yg==' },
        { startRow: 'Yw==', startRowInclusive: false, stopRow: 'ZA==', stopRowInclusive: true },
      ],
    },
  );
  assert.deepEqual(filterModel({ type: 'MultipleColumnPrefixFilter', prefixes: [Buffer.from('a'), Buffer.from([0xff])] }), {
    type: 'MultipleColumnPrefixFilter',
    prefixes: ['YQ==', '/w=='],
  });
  assert.deepEqual(filterModel({ type: 'TimestampsFilter', timestamps: [1, 2] }), { type: 'TimestampsFilter', timestamps: [1, 2] });
  assert.deepEqual(filterModel({ type: 'ColumnPaginationFilter', limit: 2, offset: 1 }), { type: 'ColumnPaginationFilter', limit: 2, offset: 1 });
  assert.throws(() => filterModel({ type: 'ColumnCountGetFilter', limit: 1.5 }), RangeError);
});
