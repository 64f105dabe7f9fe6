import { test } from 'node:test';
import assert from 'node:assert/strict';
import { column, decodeCellSet, encodeCellSet, encodeScanner, splitColumn, HBaseError } from '../../../src/hbase/index.ts';

const BIN = Buffer.from([0x00, 0xff, 0x2f, 0x2b, 0x3f, 0xc3, 0xa9, 0x00]);

test('CellSet round-trips binary keys, columns, empty and utf-8 values with timestamps', () => {
  const rows = [
    {
      row: BIN,
      cells: [
        { column: column('cf', Buffer.from([0x00, 0xff])), value: Buffer.from([0xff, 0x00, 0x01]), timestamp: 1 },
        { column: column('cf', 'empty'), value: Buffer.alloc(0), timestamp: 1_700_000_000_123 },
      ],
    },
    { row: Buffer.from('zürich/😀'), cells: [{ column: column('m', 'ü'), value: Buffer.from('grüße 😀'), timestamp: 42 }] },
  ];
  const decoded = decodeCellSet(encodeCellSet(rows));
  assert.equal(decoded.length, 2);
  for (const [i, r] of rows.entries()) {
    const d = decoded[i];
    assert.ok(d);
    assert.deepEqual(d.row, r.row);
    assert.deepEqual(
      d.cells.map((c) => [c.column, c.value, c.timestamp]),
      r.cells.map((c) => [c.column, c.value, c.timestamp]),
    );
  }
  const first = decoded[0]?.cells[0];
  assert.deepEqual(first?.family, Buffer.from('cf'));
  assert.deepEqual(first.qualifier, Buffer.from([0x00, 0xff]));
});

test('encodeCellSet uses the Jackson field names, standard padded base64, omits absent ts/value', () => {
  const json = JSON.parse(
    encodeCellSet([
      { row: Buffer.from([0xff]), cells: [{ column: Buffer.from('cf:a') }, { column: Buffer.from('cf:b'), value: Buffer.alloc(0), timestamp: 7 }] },
    ]),
  ) as unknown;
  assert.deepEqual(json, {
    Row: [{ key: '/w==', Cell: [{ column: 'Y2Y6YQ==' }, { column: 'Y2Y6Yg==', timestamp: 7, $: '' }] }],
  });
});

test('encodeCellSet rejects empty row keys, empty columns and bad timestamps', () => {
  assert.throws(() => encodeCellSet([{ row: Buffer.alloc(0), cells: [] }]), RangeError);
  assert.throws(() => encodeCellSet([{ row: BIN, cells: [{ column: Buffer.alloc(0), value: BIN }] }]), RangeError);
  assert.throws(() => encodeCellSet([{ row: BIN, cells: [{ column: column('a', 'b'), value: BIN, timestamp: 1.5 }] }]), RangeError);
  assert.throws(() => encodeCellSet([{ row: BIN, cells: [{ column: column('a', 'b'), value: BIN, timestamp: -1 }] }]), RangeError);
});

test('decodeCellSet reads a captured 2.6.1 response', () => {
  const body = '{"Row":[{"key":"AP8vKz/DqQ==","Cell":[{"column":"Y2Y6YQ==","timestamp":2000,"$":""},{"column":"Y2Y6cQA=","timestamp":1000,"$":"dgD/"}]}]}';
  const [row] = decodeCellSet(Buffer.from(body));
  assert.ok(row);
  assert.deepEqual(row.row, Buffer.from([0x00, 0xff, 0x2f, 0x2b, 0x3f, 0xc3, 0xa9]));
  assert.deepEqual(
    row.cells.map((c) => c.column.toString('latin1')),
    ['cf:a', 'cf:q\0'],
  );
  assert.deepEqual(row.cells[0]?.value, Buffer.alloc(0));
  assert.deepEqual(row.cells[1]?.value, Buffer.from([0x76, 0x00, 0xff]));
  assert.equal(row.cells[1].timestamp, 1000);
  assert.deepEqual(decodeCellSet('{}'), []);
});

test('decodeCellSet raises HBASE_PROTOCOL errors for non-JSON, wrong shapes and bad base64', () => {
  for (const body of ['Not found', '{"Row":"x"}', '{"Row":[{"key":"%%%","Cell":[]}]}', '{"Row":[{"key":"A","Cell":[]}]}']) {
    assert.throws(
      () => decodeCellSet(body),
      (e: unknown) => e instanceof HBaseError && e.code === 'HBASE_PROTOCOL' && !e.retriable,
      body,
    );
  }
});

test('column / splitColumn', () => {
  assert.deepEqual(column('cf', 'q'), Buffer.from('cf:q'));
  assert.deepEqual(column(Buffer.from('cf'), Buffer.from([0x3a, 0xff])), Buffer.from([0x63, 0x66, 0x3a, 0x3a, 0xff]));
  assert.deepEqual(column('cf'), Buffer.from('cf'));
  assert.deepEqual(column('cf', ''), Buffer.from('cf:'));
  assert.throws(() => column(''), RangeError);
  assert.throws(() => column('a:b', 'q'), RangeError);
  const s = splitColumn(Buffer.from('cf:a:b'));
  assert.equal(s.family.toString(), 'cf');
  assert.equal(s.qualifier.toString(), 'a:b');
  assert.equal(splitColumn(Buffer.from('cf')).qualifier.length, 0);
});

test('encodeScanner emits the ScannerModel JSON field names and a JSON-string filter', () => {
  const json = JSON.parse(
    encodeScanner({
      startRow: Buffer.from([0x00]),
      stopRow: Buffer.from([0xff]),
      columns: [Buffer.from('cf:a'), Buffer.from('m')],
      filter: { type: 'PrefixFilter', prefix: Buffer.from([0x00, 0x01]) },
      timeRange: { from: 10, to: 20 },
      batch: 100,
      caching: 50,
      maxVersions: 2,
      cacheBlocks: false,
    }),
  ) as Record<string, unknown>;
  assert.deepEqual(json, {
    startRow: 'AA==',
    endRow: '/w==',
    column: ['Y2Y6YQ==', 'bQ=='],
    batch: 100,
    caching: 50,
    startTime: 10,
    endTime: 20,
    maxVersions: 2,
    cacheBlocks: false,
    filter: '{"type":"PrefixFilter","value":"AAE="}',
  });
  assert.deepEqual(JSON.parse(encodeScanner({})), {});
  assert.equal((JSON.parse(encodeScanner({ filter: '{"type":"KeyOnlyFilter"}' })) as { filter: string }).filter, '{"type":"KeyOnlyFilter"}');
});

test('encodeScanner validates numbers and time ranges', () => {
  assert.throws(() => encodeScanner({ batch: 0 }), RangeError);
  assert.throws(() => encodeScanner({ maxVersions: 1.5 }), RangeError);
  assert.throws(() => encodeScanner({ timeRange: { from: 5, to: 5 } }), RangeError);
  assert.throws(() => encodeScanner({ timeRange: { from: -1, to: 5 } }), RangeError);
});
