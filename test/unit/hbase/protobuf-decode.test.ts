// The protobuf CellSet decoder: the hand-computed bytes of protobuf.test.ts read back, a round trip of
// random rows through the encoder, unknown fields skipped, truncated bodies refused as protocol
// errors, and the response decoder choosing protobuf or JSON by the answer's content type.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeCellSet } from '../../../src/hbase/codec.ts';
import { isHBaseError } from '../../../src/hbase/errors.ts';
import { encodeCellSetProto } from '../../../src/hbase/protobuf.ts';
import { decodeCellSetProto, decodeCellSetResponse } from '../../../src/hbase/protobuf-decode.ts';
import type { WireRow } from '../../../src/hbase/codec.ts';
import type { Row } from '../../../src/hbase/types.ts';

const plain = (rows: readonly Row[]) =>
  rows.map((r) => ({
    row: r.row.toString('hex'),
    cells: r.cells.map((c) => [c.column.toString('hex'), c.family.toString(), c.qualifier.toString('hex'), c.timestamp, c.value.toString('hex')]),
  }));
const wire = (rows: readonly WireRow[]) =>
  rows.map((r) => ({
    row: r.row.toString('hex'),
    cells: r.cells.map((c) => {
      const i = c.column.indexOf(0x3a);
      return [
        c.column.toString('hex'),
        c.column.subarray(0, i).toString(),
        c.column.subarray(i + 1).toString('hex'),
        c.timestamp ?? 0,
        (c.value ?? Buffer.alloc(0)).toString('hex'),
      ];
    }),
  }));

test('the hand-computed bytes read back', () => {
  const body = Buffer.from('0a12' + '0a030100ff' + '120b' + '1203643a76' + '18ac02' + '22012a', 'hex');
  assert.deepEqual(plain(decodeCellSetProto(body)), [{ row: '0100ff', cells: [[Buffer.from('d:v').toString('hex'), 'd', '76', 300, '2a']] }]);
  assert.deepEqual(decodeCellSetProto(Buffer.alloc(0)), [], 'an empty CellSet');
});

test('random rows round-trip through the encoder (binary keys and values, timestamps up to 2^53-1)', () => {
  let s = 7;
  const next = (n: number): number => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s % n;
  };
  const bytes = (n: number): Buffer => Buffer.from(Array.from({ length: n }, () => next(256)));
  for (let round = 0; round < 30; round++) {
    const rows: WireRow[] = Array.from({ length: 1 + next(20) }, () => ({
      row: bytes(1 + next(40)),
      cells: Array.from({ length: 1 + next(5) }, () => ({
        column: Buffer.concat([Buffer.from(`f${next(3)}:`), bytes(next(12))]),
        timestamp: next(4) === 0 ? Number.MAX_SAFE_INTEGER : 1_700_000_000_000 + next(1_000_000),
        value: bytes(next(300)),
      })),
    }));
    assert.deepEqual(plain(decodeCellSetProto(encodeCellSetProto(rows))), wire(rows));
  }
});

test('unknown fields are skipped (a Cell.row copy, a varint, a fixed64 and a fixed32 field)', () => {
  // Cell: 0a 01 72 (row 'r') | 12 03 'f:q' | 18 05 | 28 07 (field 5 varint) | 31 <8 bytes> (field 6 fixed64) | 3d <4 bytes> (field 7 fixed32)
  const cell = '0a0172' + '1203663a71' + '1805' + '2807' + '31' + '0102030405060708' + '3d' + '01020304';
  const row = '0a0172' + '12' + (cell.length / 2).toString(16).padStart(2, '0') + cell;
  const body = Buffer.from('0a' + (row.length / 2).toString(16).padStart(2, '0') + row + '1001', 'hex'); // + CellSet field 2 varint
  assert.deepEqual(plain(decodeCellSetProto(body)), [{ row: '72', cells: [[Buffer.from('f:q').toString('hex'), 'f', '71', 5, '']] }]);
});

test('truncated or malformed bodies are protocol errors, never partial rows', () => {
  const good = encodeCellSetProto([{ row: Buffer.from('row'), cells: [{ column: Buffer.from('f:q'), timestamp: 1, value: Buffer.from('value') }] }]);
  for (let cut = 1; cut < good.length; cut++) {
    assert.throws(
      () => decodeCellSetProto(good.subarray(0, cut)),
      (e: unknown) => isHBaseError(e, 'HBASE_PROTOCOL'),
      `cut at ${cut}`,
    );
  }
  assert.throws(
    () => decodeCellSetProto(Buffer.from('0a020a', 'hex')),
    (e: unknown) => isHBaseError(e, 'HBASE_PROTOCOL'),
  );
  assert.throws(() => decodeCellSetProto(Buffer.from('0a021200', 'hex')), /without its key/);
  assert.throws(() => decodeCellSetProto(Buffer.from('0b', 'hex')), /wire type 3/);
});

test('a response is decoded by its content type: protobuf when the gateway answered so, JSON otherwise', () => {
  const rows: WireRow[] = [{ row: Buffer.from([0, 1]), cells: [{ column: Buffer.from('d:x'), timestamp: 9, value: Buffer.from('v') }] }];
  const proto = decodeCellSetResponse({ status: 200, headers: { 'content-type': 'application/x-protobuf' }, body: encodeCellSetProto(rows) });
  const json = decodeCellSetResponse({ status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(encodeCellSet(rows)) });
  assert.deepEqual(plain(proto), wire(rows));
  assert.deepEqual(plain(json), plain(proto));
});
