import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Row } from '../../../src/hbase/types.ts';
import type { ScanOptions } from '../../../src/hbase/scanner.ts';
import { bucketPageRows, mergedRows, resumeRanges } from '../../../src/scans/merged-scan.ts';

const r = (start: number[], stop: number[]): { startRow: Buffer; stopRow: Buffer } => ({ startRow: Buffer.from(start), stopRow: Buffer.from(stop) });

void test("resuming after a position keeps each range's salt and drops ranges already read past", () => {
  const ranges = [r([0, 5], [0, 9]), r([1, 5], [1, 9]), r([2, 7], [2, 9])];
  assert.deepEqual(resumeRanges(ranges, 1, null), ranges);
  assert.deepEqual(
    resumeRanges(ranges, 1, Buffer.from([6])),
    [r([0, 6, 0], [0, 9]), r([1, 6, 0], [1, 9]), r([2, 7], [2, 9])],
    'a range starting after the position is kept as it is',
  );
  assert.deepEqual(resumeRanges(ranges, 1, Buffer.from([9])), [], 'every range is read to its end');
  assert.deepEqual(
    resumeRanges([r([0x30, 0x31, 5], [0x30, 0x31, 9])], 2, Buffer.from([6])),
    [r([0x30, 0x31, 6, 0], [0x30, 0x31, 9])],
    'two salt bytes (printable data keys)',
  );
  assert.deepEqual(
    resumeRanges([{ startRow: Buffer.from([3, 1]), stopRow: Buffer.alloc(0) }], 1, Buffer.from([2])),
    [{ startRow: Buffer.from([3, 2, 0]), stopRow: Buffer.alloc(0) }],
    'an open end stays open',
  );
});

void test('page rows per scan: all of the page for one scan, about twice its share (≥ 16) for several', () => {
  assert.equal(bucketPageRows(100, 1), 101);
  assert.equal(bucketPageRows(100, 16), 16);
  assert.equal(bucketPageRows(1000, 4), 502);
  assert.equal(bucketPageRows(5000, 1), 1000);
});

void test('merged rows: by position across salts, one copy of a position present in two buckets', async () => {
  const tables: Record<string, Row[]> = {
    t: [
      [0, 1],
      [0, 3],
      [1, 2],
      [1, 3],
      [2, 0],
    ].map((k) => ({ row: Buffer.from(k), cells: [] })),
  };
  const asked: ScanOptions[] = [];
  const store = {
    async *scan(table: string, opts: ScanOptions): AsyncGenerator<Row> {
      asked.push(opts);
      await Promise.resolve();
      for (const row of tables[table] ?? []) {
        if (Buffer.compare(row.row, opts.startRow ?? Buffer.alloc(0)) >= 0 && Buffer.compare(row.row, opts.stopRow ?? Buffer.from([0xff])) < 0) yield row;
      }
    },
  };
  const rows: Buffer[] = [];
  for await (const row of mergedRows(store, 't', [r([0], [1]), r([1], [2]), r([2], [3])], { saltBytes: 1, pageRows: 7, shape: {} })) rows.push(row.row);
  assert.deepEqual(
    rows.map((b) => [...b]),
    [
      [2, 0],
      [0, 1],
      [1, 2],
      [0, 3],
    ],
  );
  assert.deepEqual(
    asked.map((o) => o.pageRows),
    [7, 7, 7],
  );
});
