// The protobuf CellSet encoder against byte vectors worked out by hand from the .proto in
// hbase-rest-2.6.1.jar (CellSet.rows = 1; Row.key = 1, Row.values = 2; Cell.column = 2,
// Cell.timestamp = 3 (varint), Cell.data = 4), and its edge cases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeCellSetProto, varintSize } from '../../../src/hbase/protobuf.ts';

const hex = (b: Buffer): string => b.toString('hex');

test('one row, one cell with timestamp and value: the hand-computed bytes', () => {
  const body = encodeCellSetProto([
    { row: Buffer.from([0x01, 0x00, 0xff]), cells: [{ column: Buffer.from('d:v'), timestamp: 300, value: Buffer.from([0x2a]) }] },
  ]);
  // Cell: 12 03 'd:v' | 18 ac 02 | 22 01 2a            = 5 + 3 + 3 = 11 bytes
  // Row:  0a 03 01 00 ff | 12 0b <cell>                = 5 + 13 = 18 bytes
  // Set:  0a 12 <row>                                  = 20 bytes
  assert.equal(hex(body), '0a12' + '0a030100ff' + '120b' + '1203643a76' + '18ac02' + '22012a');
});

test('a cell without value or timestamp is a column-only cell (as in JSON)', () => {
  const body = encodeCellSetProto([{ row: Buffer.from('r'), cells: [{ column: Buffer.from('f:q') }] }]);
  assert.equal(hex(body), '0a0a' + '0a0172' + '1205' + '1203663a71');
});

test('an empty value is written as a present, empty data field', () => {
  const body = encodeCellSetProto([{ row: Buffer.from('r'), cells: [{ column: Buffer.from('f:q'), value: Buffer.alloc(0) }] }]);
  assert.equal(hex(body), '0a0c' + '0a0172' + '1207' + '1203663a71' + '2200');
});

test('timestamps above 2^32 and at 2^53-1 encode as full varints', () => {
  const ts = 1_795_340_000_123; // ms since epoch, > 2^32
  const body = encodeCellSetProto([{ row: Buffer.from('r'), cells: [{ column: Buffer.from('f:q'), timestamp: ts }] }]);
  const at = body.indexOf(0x18) + 1;
  let v = 0;
  let mul = 1;
  for (let i = at; ; i++) {
    const b = body[i] as number;
    v += (b & 0x7f) * mul;
    mul *= 128;
    if ((b & 0x80) === 0) break;
  }
  assert.equal(v, ts);
  assert.equal(varintSize(Number.MAX_SAFE_INTEGER), 8);
  assert.equal(varintSize(0), 1);
  assert.equal(varintSize(127), 1);
  assert.equal(varintSize(128), 2);
  assert.doesNotThrow(() => encodeCellSetProto([{ row: Buffer.from('r'), cells: [{ column: Buffer.from('f:q'), timestamp: Number.MAX_SAFE_INTEGER }] }]));
});

test('many rows with long values: sizes past one varint byte stay consistent', () => {
  const rows = Array.from({ length: 500 }, (_v, i) => ({
    row: Buffer.from(`row-${i}`),
    cells: [
      { column: Buffer.from('f:a'), timestamp: i, value: Buffer.alloc(200, i % 256) },
      { column: Buffer.from('f:b'), value: Buffer.from('x') },
    ],
  }));
  const body = encodeCellSetProto(rows);
  // Walk the top level: 500 length-delimited rows, nothing else.
  let pos = 0;
  let count = 0;
  while (pos < body.length) {
    assert.equal(body[pos], 0x0a);
    pos++;
    let len = 0;
    let mul = 1;
    for (;;) {
      const b = body[pos++] as number;
      len += (b & 0x7f) * mul;
      mul *= 128;
      if ((b & 0x80) === 0) break;
    }
    pos += len;
    count++;
  }
  assert.equal(pos, body.length);
  assert.equal(count, 500);
});

test('invalid input fails like the JSON encoder: empty row key, empty column, bad timestamp', () => {
  assert.throws(() => encodeCellSetProto([{ row: Buffer.alloc(0), cells: [{ column: Buffer.from('f:q') }] }]), /row key/);
  assert.throws(() => encodeCellSetProto([{ row: Buffer.from('r'), cells: [{ column: Buffer.alloc(0) }] }]), /column/);
  assert.throws(() => encodeCellSetProto([{ row: Buffer.from('r'), cells: [{ column: Buffer.from('f:q'), timestamp: -1 }] }]), /timestamp/);
  assert.throws(() => encodeCellSetProto([{ row: Buffer.from('r'), cells: [{ column: Buffer.from('f:q'), timestamp: 1.5 }] }]), /timestamp/);
});
