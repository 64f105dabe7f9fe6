/**
 * Pure: a point block, every point of one metric of one id in one rollup window, in one cell of the
 * points family (docs/ROLLUPS.md, "Point blocks").
 * Design notes: docs/DECISIONS.md#point-blocks
 */
import { SummaryDecodeError } from './summary.ts';
import { VarintReader, varintLength, writeVarint } from './varint.ts';

const VERSION = 1;
const VALUE_BYTES = 8;

/** Points ascending by ts. */
export interface PointRun {
  readonly ts: number[];
  readonly values: number[];
}

/** The block of `run` (ascending, distinct ts, all in [windowStart, windowStart + windowMs)). */
export function encodePointsBlock(windowStart: number, run: PointRun): Buffer {
  const n = run.ts.length;
  if (n === 0 || run.values.length !== n) throw new RangeError(`a point block needs ≥ 1 point and one value per ts (got ${n} ts, ${run.values.length} values)`);
  let len = 1 + varintLength(n) + n * VALUE_BYTES;
  let prev = windowStart;
  for (let i = 0; i < n; i++) {
    const t = run.ts[i] as number;
    const d = t - prev;
    if (!(d >= (i === 0 ? 0 : 1))) throw new RangeError(`point block ts must ascend from the window start without repeats (at ${i}: ${t} after ${prev})`);
    len += varintLength(d);
    prev = t;
  }
  const out = Buffer.allocUnsafe(len);
  out[0] = VERSION;
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
  if (b[0] !== VERSION) throw fail(`version ${String(b[0])} is not ${VERSION}`);
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

/** The number of points a block holds, without decoding it. */
export function pointsInBlock(bytes: Uint8Array): number {
  return new VarintReader(bytes, 1, (why) => new SummaryDecodeError(`point block: ${why}`)).next();
}
