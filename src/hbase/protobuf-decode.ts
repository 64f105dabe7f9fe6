// Decodes the REST gateway's protobuf CellSet (the message protobuf.ts encodes for puts) into rows:
// what multi-gets, row gets and scanner pages return when asked for application/x-protobuf. Against
// the JSON form there is no base64 to validate and decode and no JSON text to parse; keys, columns and
// values are views into the response body (no copies). Unknown fields are skipped, as protobuf
// readers do; a truncated or malformed body is a protocol error.
import { decodeCellSet, protocolError, splitColumn } from './codec.ts';
import { headerValue, type HttpResponse } from './transport.ts';
import type { Cell, Row } from './types.ts';

export const PROTOBUF = 'application/x-protobuf';

const EMPTY: Buffer = Buffer.alloc(0);

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

/** A length-delimited field's payload as a view into the body. */
function payload(r: Reader): Buffer {
  const [s, e] = r.bytes();
  return r.buf.subarray(s, e);
}

function decodeCell(buf: Buffer, start: number, end: number): Cell {
  let column: Buffer = EMPTY;
  let value: Buffer = EMPTY;
  let timestamp = 0;
  eachField(buf, start, end, (field, wire, r) => {
    if (field === 2 && wire === LEN) column = payload(r);
    else if (field === 3 && wire === VARINT) timestamp = r.varint();
    else if (field === 4 && wire === LEN) value = payload(r);
    else return false;
    return true;
  });
  const { family, qualifier } = splitColumn(column);
  return { column, family, qualifier, timestamp, value };
}

function decodeRow(buf: Buffer, start: number, end: number): Row {
  let row: Buffer | undefined;
  const cells: Cell[] = [];
  eachField(buf, start, end, (field, wire, r) => {
    if (wire !== LEN) return false;
    if (field === 1) row = payload(r);
    else if (field === 2) {
      const [s, e] = r.bytes();
      cells.push(decodeCell(buf, s, e));
    } else return false;
    return true;
  });
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
