/**
 * Pure: the integer columns of a version 2 point block (points-block-v2.ts). A column is n integers
 * — a block's times in its unit, or its values scaled to integers — stored as their differences of
 * some order (0: as is, 1: steps, 2: changes of the step), each as an unsigned token (tokenOf), in
 * one of two packings:
 * - runs: one varint a token, where a 0 is followed by the count of zeros after it, so a regular
 *   series' times or a constant's steps take a few bytes whatever their number;
 * - frame: the first `order` tokens as varints, then the other differences as their base (the least)
 *   and each one's excess over it in `width` bits (0–24), big-endian, padded to a byte.
 * Byte-aligned except inside a frame, which decodes with integer shifts: no per-bit branching.
 * Design notes (the byte-level specification, test vectors): docs/DECISIONS.md#point-blocks
 */
import { VarintReader, writeVarint } from './varint.ts';

/** A column's form: which differences, packed how. */
export interface ColumnForm {
  /** a time column: its first difference and its steps ≥ 1 stored unsigned (see tokenOf) */
  readonly times: boolean;
  /** 0, 1 or 2 (a time column: 1 or 2) */
  readonly order: number;
  readonly frame: boolean;
}

/** The differences of a column: d[0..n). */
export interface Diffs {
  readonly d: Float64Array;
  readonly n: number;
}

export const MAX_WIDTH = 24;

const zigzag = (x: number): number => (x >= 0 ? 2 * x : -2 * x - 1);
/** Bit operations below 2^31, arithmetic above */
const unzigzag = (z: number): number => (z < 0x80000000 ? (z >>> 1) ^ -(z & 1) : z % 2 === 0 ? z / 2 : -(z + 1) / 2);

/** How many leading differences of a column are stored unsigned: a time column's first (≥ 0) and its steps (≥ 1, less 1). */
function unsignedHead(f: ColumnForm, n: number): number {
  if (!f.times) return 0;
  return f.order === 1 ? n : 2;
}

/** The varint a difference is stored as: unsigned in a time column's head (the first as is, a step less 1), else zigzagged. */
function tokenOf(i: number, d: number, head: number): number {
  if (i < head) return i === 0 ? d : d - 1;
  return zigzag(d);
}

/** The differences of order `order` of src[0..n) into out: out[0] = src[0], out[1] = src[1] − src[0], then of that order. */
export function differences(src: Float64Array, n: number, order: number, out: Float64Array): void {
  let prev = 0;
  let prevStep = 0;
  for (let i = 0; i < n; i++) {
    const x = src[i] as number;
    const step = x - prev;
    out[i] = order === 0 ? x : order === 1 || i < 2 ? step : step - prevStep;
    prevStep = i === 0 ? 0 : step;
    prev = x;
  }
}

export function varintLength(z: number): number {
  if (z < 0x80) return 1;
  if (z < 0x4000) return 2;
  if (z < 0x200000) return 3;
  if (z < 0x10000000) return 4;
  let len = 5;
  for (let v = Math.floor(z / 0x800000000); v > 0; v = Math.floor(v / 0x80)) len++;
  return len;
}

const bitsOf = (x: number): number => (x === 0 ? 0 : x < 2 ** 31 ? 32 - Math.clz32(x) : MAX_WIDTH + 1);

/** A frame's base and width over d[from..n), or undefined when its spread needs more than MAX_WIDTH bits. */
function frameOf(c: Diffs, from: number): { base: number; width: number } | undefined {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = from; i < c.n; i++) {
    const x = c.d[i] as number;
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  if (from >= c.n) return { base: 0, width: 0 };
  const width = bitsOf(hi - lo);
  return width > MAX_WIDTH ? undefined : { base: lo, width };
}

/** Writes a column in runs (or, without a buffer, counts its bytes). */
class Runs {
  #out: Buffer | null = null;
  at = 0;
  /** zeros held after the first (−1: none held) */
  #run = -1;

  start(out: Buffer | null, at: number): this {
    this.#out = out;
    this.at = at;
    this.#run = -1;
    return this;
  }

  put(z: number): void {
    if (z === 0) {
      this.#run++;
      return;
    }
    this.#flush();
    this.#varint(z);
  }

  end(): number {
    this.#flush();
    return this.at;
  }

  #flush(): void {
    if (this.#run < 0) return;
    this.#varint(0);
    this.#varint(this.#run);
    this.#run = -1;
  }

  #varint(z: number): void {
    this.at = this.#out === null ? this.at + varintLength(z) : writeVarint(this.#out, this.at, z);
  }
}

const runs = new Runs();

/** Writes the column at `at` of `out` (null: only counts); the offset after it, or Infinity when the form cannot hold it (a frame too wide). */
export function putColumn(out: Buffer | null, at: number, f: ColumnForm, c: Diffs): number {
  const head = unsignedHead(f, c.n);
  if (!f.frame) {
    const w = runs.start(out, at);
    for (let i = 0; i < c.n; i++) w.put(tokenOf(i, c.d[i] as number, head));
    return w.end();
  }
  const h = Math.min(f.order, c.n);
  const frame = frameOf(c, h);
  if (frame === undefined) return Infinity;
  const bytes = Math.ceil(((c.n - h) * frame.width) / 8);
  if (out === null) {
    let len = 1 + varintLength(zigzag(frame.base)) + bytes;
    for (let i = 0; i < h; i++) len += varintLength(tokenOf(i, c.d[i] as number, head));
    return at + len;
  }
  let p = at;
  for (let i = 0; i < h; i++) p = writeVarint(out, p, tokenOf(i, c.d[i] as number, head));
  p = writeVarint(out, p, zigzag(frame.base));
  out[p++] = frame.width;
  const w = frame.width;
  let acc = 0;
  let bits = 0;
  for (let i = h; i < c.n; i++) {
    acc = (acc << w) | ((c.d[i] as number) - frame.base);
    bits += w;
    while (bits >= 8) {
      bits -= 8;
      out[p++] = (acc >>> bits) & 0xff;
    }
    acc &= (1 << bits) - 1;
  }
  if (bits > 0) out[p++] = (acc << (8 - bits)) & 0xff;
  return p;
}

/** Reads columns back; `fail` names what is malformed. */
export class ColumnReader extends VarintReader {
  #bytes: Uint8Array;
  #fail: (why: string) => Error;

  constructor(bytes: Uint8Array, at: number, fail: (why: string) => Error) {
    super(bytes, at, fail);
    this.#bytes = bytes;
    this.#fail = fail;
  }

  override reset(bytes: Uint8Array, at: number, fail: (why: string) => Error): void {
    super.reset(bytes, at, fail);
    this.#bytes = bytes;
    this.#fail = fail;
  }

  get length(): number {
    return this.#bytes.length;
  }

  /** The column's n differences into c.d. */
  column(f: ColumnForm, c: Diffs): void {
    const head = unsignedHead(f, c.n);
    const h = f.frame ? Math.min(f.order, c.n) : c.n;
    let i = 0;
    for (; i < h; i++) {
      const byte = this.#bytes[this.at];
      let z: number;
      if (byte !== undefined && byte < 0x80) {
        this.at++;
        z = byte;
      } else z = this.next();
      if (z === 0 && !f.frame) {
        const run = this.next();
        if (run > c.n - i - 1) throw this.#fail(`a run of ${run + 1} zeros passes the end of its column`);
        for (let end = i + run; i < end; i++) c.d[i] = i < head && i > 0 ? 1 : 0;
      }
      c.d[i] = i < head ? (i === 0 ? z : z + 1) : unzigzag(z);
    }
    if (f.frame) this.#frame(c, h);
  }

  #frame(c: Diffs, h: number): void {
    const b = this.#bytes;
    const base = unzigzag(this.next());
    const w = b[this.at++] ?? 0;
    if (w > MAX_WIDTH) throw this.#fail(`a frame of ${w} bits is wider than ${MAX_WIDTH}`);
    const bytes = Math.ceil(((c.n - h) * w) / 8);
    if (this.at + bytes > b.length) throw this.#fail(`a frame of ${c.n - h} × ${w} bits runs past the end`);
    const mask = (1 << w) - 1;
    let at = this.at;
    let acc = 0;
    let bits = 0;
    for (let i = h; i < c.n; i++) {
      while (bits < w) {
        acc = (acc << 8) | (b[at++] as number);
        bits += 8;
      }
      bits -= w;
      c.d[i] = base + ((acc >>> bits) & mask);
      acc &= (1 << bits) - 1;
    }
    if (acc !== 0) throw this.#fail("a frame's padding bits are not 0");
    this.at = at;
  }
}
