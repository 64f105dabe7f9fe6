// Decodes the REST gateway's protobuf CellSet (the message protobuf.ts encodes for puts) into rows:
// what multi-gets, row gets and scanner pages return when asked for application/x-protobuf. Against
// the JSON form there is no base64 to validate and decode and no JSON text to parse; keys, columns and
// values are views into the response body (no copies). Unknown fields are skipped, as protobuf
// readers do; a truncated or malformed body is a protocol error.
import { decodeCellSet, protocolError } from './codec.ts';
import { headerValue, type HttpResponse } from './transport.ts';
import type { Cell, Row } from './types.ts';

export const PROTOBUF = 'application/x-protobuf';

const EMPTY: Buffer = Buffer.alloc(0);
const COLON = 0x3a;

class Reader {
  readonly buf: Buffer;
  readonly end: number;
  pos: number;
  constructor(buf: Buffer, start: number, end: number) {
    this.buf = buf;
    this.pos = start;
    this.end = end;
  }

  varint(): number {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw protocolError('protobuf CellSet: truncated varint');
      const b = this.buf[this.pos++] as number;
      result += (b & 0x7f) * scale;
      if (b < 0x80) {
        if (!Number.isSafeInteger(result)) throw protocolError('protobuf CellSet: varint beyond 2^53');
        return result;
      }
      scale *= 128;
    }
    throw protocolError('protobuf CellSet: varint longer than 10 bytes');
  }

  /** The bounds of a length-delimited field's payload; the reader moves past it. */
  bytes(): [number, number] {
    const len = this.varint();
    const start = this.pos;
    if (start + len > this.end) throw protocolError('protobuf CellSet: a field runs past its message');
    this.pos = start + len;
    return [start, start + len];
  }

  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 2) this.bytes();
    else if (wire === 1 || wire === 5) this.pos += wire === 1 ? 8 : 4;
    else throw protocolError(`protobuf CellSet: unsupported wire type ${wire}`);
    if (this.pos > this.end) throw protocolError('protobuf CellSet: a field runs past its message');
  }
}

const LEN = 2;
const VARINT = 0;

/**
 * Walks the fields of the message in buf[start, end): `on` gets each field's number and wire type
 * and reads it from the reader, returning true; a field it returns false for is skipped.
 */
function eachField(buf: Buffer, start: number, end: number, on: (field: number, wire: number, r: Reader) => boolean): void {
  const r = new Reader(buf, start, end);
  while (r.pos < end) {
    const key = r.varint();
    if (!on(key >>> 3, key & 7, r)) r.skip(key & 7);
  }
}

// The row and cell decoders are the hot path of every read (a scan page holds thousands of cells):
// they walk the bytes with a position of their own, no reader object or callback per message.

/** A varint at buf[pos] (before `end`): its value in VARINT_OUT[0], the position after it in VARINT_OUT[1]. */
const VARINT_OUT: [number, number] = [0, 0];
function varintAt(buf: Buffer, pos: number, end: number): void {
  let result = 0;
  let scale = 1;
  for (let i = 0; i < 10; i++) {
    if (pos >= end) throw protocolError('protobuf CellSet: truncated varint');
    const b = buf[pos++] as number;
    result += (b & 0x7f) * scale;
    if (b < 0x80) {
      if (!Number.isSafeInteger(result)) throw protocolError('protobuf CellSet: varint beyond 2^53');
      VARINT_OUT[0] = result;
      VARINT_OUT[1] = pos;
      return;
    }
    scale *= 128;
  }
  throw protocolError('protobuf CellSet: varint longer than 10 bytes');
}

/** The position after a field of wire type `wire` whose payload starts at `pos`. */
function skipAt(buf: Buffer, wire: number, pos: number, end: number): number {
  if (wire === VARINT) {
    varintAt(buf, pos, end);
    return VARINT_OUT[1];
  }
  if (wire === LEN) {
    varintAt(buf, pos, end);
    const next = VARINT_OUT[1] + VARINT_OUT[0];
    if (next > end) throw protocolError('protobuf CellSet: a field runs past its message');
    return next;
  }
  if (wire === 1 || wire === 5) {
    const next = pos + (wire === 1 ? 8 : 4);
    if (next > end) throw protocolError('protobuf CellSet: a field runs past its message');
    return next;
  }
  throw protocolError(`protobuf CellSet: unsupported wire type ${wire}`);
}

function decodeCell(buf: Buffer, start: number, end: number): Cell {
  let column: Buffer = EMPTY;
  let value: Buffer = EMPTY;
  let timestamp = 0;
  let pos = start;
  while (pos < end) {
    varintAt(buf, pos, end);
    const key = VARINT_OUT[0];
    pos = VARINT_OUT[1];
    const field = key >>> 3;
    const wire = key & 7;
    if (wire === LEN && (field === 2 || field === 4)) {
      varintAt(buf, pos, end);
      const s = VARINT_OUT[1];
      const e = s + VARINT_OUT[0];
      if (e > end) throw protocolError('protobuf CellSet: a field runs past its message');
      if (field === 2) column = buf.subarray(s, e);
      else value = buf.subarray(s, e);
      pos = e;
    } else if (wire === VARINT && field === 3) {
      varintAt(buf, pos, end);
      timestamp = VARINT_OUT[0];
      pos = VARINT_OUT[1];
    } else pos = skipAt(buf, wire, pos, end);
  }
  const i = column.indexOf(COLON);
  const family = i < 0 ? column : column.subarray(0, i);
  const qualifier = i < 0 ? EMPTY : column.subarray(i + 1);
  return { column, family, qualifier, timestamp, value };
}

function decodeRow(buf: Buffer, start: number, end: number): Row {
  let row: Buffer | undefined;
  const cells: Cell[] = [];
  let pos = start;
  while (pos < end) {
    varintAt(buf, pos, end);
    const key = VARINT_OUT[0];
    pos = VARINT_OUT[1];
    const field = key >>> 3;
    const wire = key & 7;
    if (wire !== LEN || (field !== 1 && field !== 2)) {
      pos = skipAt(buf, wire, pos, end);
      continue;
    }
    varintAt(buf, pos, end);
    const s = VARINT_OUT[1];
    const e = s + VARINT_OUT[0];
    if (e > end) throw protocolError('protobuf CellSet: a field runs past its message');
    if (field === 1) row = buf.subarray(s, e);
    else cells.push(decodeCell(buf, s, e));
    pos = e;
  }
  if (row === undefined) throw protocolError('protobuf CellSet: a row without its key');
  return { row, cells };
}

/** The rows of a protobuf CellSet body, in body order. */
export function decodeCellSetProto(body: Buffer): Row[] {
  const rows: Row[] = [];
  eachField(body, 0, body.length, (field, wire, r) => {
    if (field !== 1 || wire !== LEN) return false;
    const [s, e] = r.bytes();
    rows.push(decodeRow(body, s, e));
    return true;
  });
  return rows;
}

/** The rows of a CellSet response in whichever form the gateway answered (protobuf when asked, JSON otherwise). */
export function decodeCellSetResponse(res: HttpResponse): Row[] {
  const type = headerValue(res, 'content-type') ?? '';
  return type.startsWith(PROTOBUF) ? decodeCellSetProto(res.body) : decodeCellSet(res.body);
}
