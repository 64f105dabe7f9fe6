/**
 * Pure: a point block, every point of one metric of one id in one rollup window, in one cell of the
 * points family (docs/ROLLUPS.md, "Point blocks"). The first byte is the layout's version: the job
 * writes version 2 (points-block-v2.ts), readers read 1 and 2 and refuse any other.
 * Design notes: docs/DECISIONS.md#point-blocks
 */
import { decodeV2, encodeV2 } from './points-block-v2.ts';
import { SummaryDecodeError } from './summary.ts';
import { VarintReader, varintLength, writeVarint } from './varint.ts';

const V1 = 1;
const V2 = 2;
const VALUE_BYTES = 8;

/**
 * The most points a block may hold (rollup.pointBlocks.maxPoints is at most this): a decoder refuses
 * a count past it before allocating, since a version 2 block of equal steps and values takes a few
 * bytes whatever its count.
 */
export const MAX_BLOCK_POINTS = 1_000_000;

/** Points ascending by ts. */
export interface PointRun {
  readonly ts: number[];
  readonly values: number[];
}

/**
 * The block of `run` (ascending, distinct ts, all in [windowStart, windowStart + windowMs)), in
 * version 2. `version: 1` writes the former layout (tests and measurements only).
 */
export function encodePointsBlock(windowStart: number, run: PointRun, version: 1 | 2 = V2): Buffer {
  const n = run.ts.length;
  if (n === 0 || run.values.length !== n) throw new RangeError(`a point block needs ≥ 1 point and one value per ts (got ${n} ts, ${run.values.length} values)`);
  if (n > MAX_BLOCK_POINTS) throw new RangeError(`a point block holds at most ${MAX_BLOCK_POINTS} points (got ${n})`);
  let prev = windowStart;
  for (let i = 0; i < n; i++) {
    const t = run.ts[i] as number;
    if (!(t - prev >= (i === 0 ? 0 : 1)) || !Number.isSafeInteger(t))
      throw new RangeError(`point block ts must ascend from the window start without repeats (at ${i}: ${t} after ${prev})`);
    prev = t;
  }
  return version === V2 ? encodeV2(windowStart, run) : encodeV1(windowStart, run);
}

function encodeV1(windowStart: number, run: PointRun): Buffer {
  const n = run.ts.length;
  let len = 1 + varintLength(n) + n * VALUE_BYTES;
  let prev = windowStart;
  for (let i = 0; i < n; i++) {
    const t = run.ts[i] as number;
    len += varintLength(t - prev);
    prev = t;
  }
  const out = Buffer.allocUnsafe(len);
  out[0] = V1;
  let at = writeVarint(out, 1, n);
  prev = windowStart;
  for (let i = 0; i < n; i++) {
    const t = run.ts[i] as number;
    at = writeVarint(out, at, t - prev);
    prev = t;
  }
  for (let i = 0; i < n; i++, at += VALUE_BYTES) out.writeDoubleBE(run.values[i] as number, at);
  return out;
}

/** The points of a block of the window [windowStart, windowStart + windowMs); `what` names it in errors. */
export function decodePointsBlock(bytes: Uint8Array, windowStart: number, windowMs: number, what = 'point block'): PointRun {
  const fail = (why: string): Error => new SummaryDecodeError(`${what}: ${why}`);
  const b = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = b[0];
  if (version === V2) return decodeV2(b, { windowStart, windowMs, maxPoints: MAX_BLOCK_POINTS }, fail);
  if (version === V1) return decodeV1(b, windowStart, windowMs, fail);
  throw fail(`version ${String(version)} is neither ${V1} nor ${V2}`);
}

function decodeV1(b: Buffer, windowStart: number, windowMs: number, fail: (why: string) => Error): PointRun {
  const r = new VarintReader(b, 1, fail);
  const n = r.next();
  if (n < 1) throw fail('holds no point');
  if (n > (b.length - r.at) / (VALUE_BYTES + 1)) throw fail(`${n} points do not fit in ${b.length} bytes`);
  const ts = new Array<number>(n);
  let t = windowStart;
  for (let i = 0; i < n; i++) {
    const d = r.next();
    if (i > 0 && d < 1) throw fail('a ts repeats');
    t += d;
    ts[i] = t;
  }
  if (t >= windowStart + windowMs) throw fail(`ts ${t} is past the window's end`);
  if (b.length - r.at !== n * VALUE_BYTES) throw fail(`${b.length - r.at} value bytes for ${n} points`);
  const values = new Array<number>(n);
  for (let i = 0, at = r.at; i < n; i++, at += VALUE_BYTES) values[i] = b.readDoubleBE(at);
  return { ts, values };
}

/** The number of points a block (version 1 or 2: both keep it at the same place) holds, without decoding it. */
export function pointsInBlock(bytes: Uint8Array): number {
  const fail = (why: string): Error => new SummaryDecodeError(`point block: ${why}`);
  if (bytes[0] !== V1 && bytes[0] !== V2) throw fail(`version ${String(bytes[0])} is neither ${V1} nor ${V2}`);
  return new VarintReader(bytes, 1, fail).next();
}
