// CellSet bodies in the REST gateway's protobuf form (application/x-protobuf), encoded into one
// Buffer and decoded without intermediate objects.
// Design notes: docs/DECISIONS.md#protobuf-cell-sets
import type { WireCell, WireRow } from './codec.ts';

const WIRE_VARINT = 0;
const WIRE_LEN = 2;
const tag = (field: number, wire: number): number => (field << 3) | wire;

const T_ROWS = tag(1, WIRE_LEN); // CellSet.rows
const T_KEY = tag(1, WIRE_LEN); // Row.key
const T_VALUES = tag(2, WIRE_LEN); // Row.values
const T_COLUMN = tag(2, WIRE_LEN); // Cell.column
const T_TIMESTAMP = tag(3, WIRE_VARINT); // Cell.timestamp
const T_DATA = tag(4, WIRE_LEN); // Cell.data

/** Bytes of `n` (a non-negative safe integer) as a base-128 varint. */
export function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

function writeVarint(buf: Buffer, pos: number, n: number): number {
  while (n >= 0x80) {
    buf[pos++] = (n % 128) | 0x80;
    n = Math.floor(n / 128);
  }
  buf[pos++] = n;
  return pos;
}

const lenField = (len: number): number => 1 + varintSize(len) + len;

function checkCell(c: WireCell): void {
  if (c.column.length === 0) throw new RangeError('column must not be empty');
  if (c.timestamp !== undefined && (!Number.isSafeInteger(c.timestamp) || c.timestamp < 0)) {
    throw new RangeError(`cell timestamp must be a non-negative integer, got ${c.timestamp}`);
  }
}

function cellSize(c: WireCell): number {
  let n = lenField(c.column.length);
  if (c.timestamp !== undefined) n += 1 + varintSize(c.timestamp);
  if (c.value !== undefined) n += lenField(c.value.length);
  return n;
}

function rowSize(r: WireRow, cellSizes: number[]): number {
  let n = lenField(r.row.length);
  for (const c of r.cells) {
    const s = cellSize(c);
    cellSizes.push(s);
    n += lenField(s);
  }
  return n;
}

/** A CellSet message holding `rows` (cells without a value encode a column-only cell, as in JSON). */
export function encodeCellSetProto(rows: readonly WireRow[]): Buffer {
  const rowSizes: number[] = [];
  const cellSizes: number[] = [];
  let total = 0;
  for (const r of rows) {
    if (r.row.length === 0) throw new RangeError('row key must not be empty');
    for (const c of r.cells) checkCell(c);
    const s = rowSize(r, cellSizes);
    rowSizes.push(s);
    total += lenField(s);
  }
  const buf = Buffer.allocUnsafe(total);
  let pos = 0;
  let ci = 0;
  for (let ri = 0; ri < rows.length; ri++) {
    const r = rows[ri] as WireRow;
    buf[pos++] = T_ROWS;
    pos = writeVarint(buf, pos, rowSizes[ri] as number);
    buf[pos++] = T_KEY;
    pos = writeVarint(buf, pos, r.row.length);
    pos += r.row.copy(buf, pos);
    for (const c of r.cells) {
      buf[pos++] = T_VALUES;
      pos = writeVarint(buf, pos, cellSizes[ci++] as number);
      buf[pos++] = T_COLUMN;
      pos = writeVarint(buf, pos, c.column.length);
      pos += c.column.copy(buf, pos);
      if (c.timestamp !== undefined) {
        buf[pos++] = T_TIMESTAMP;
        pos = writeVarint(buf, pos, c.timestamp);
      }
      if (c.value !== undefined) {
        buf[pos++] = T_DATA;
        pos = writeVarint(buf, pos, c.value.length);
        pos += c.value.copy(buf, pos);
      }
    }
  }
  if (pos !== total) throw new Error(`protobuf CellSet: wrote ${pos} bytes, sized ${total}`);
  return buf;
}
