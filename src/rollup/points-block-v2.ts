/**
 * Pure: version 2 of the point block layout (points-block.ts), encoded for time series:
 * - times in a unit (the greatest common divisor of their offsets: 1000 for whole seconds, 60000 for
 *   whole minutes), as steps or as changes of the step (delta-of-delta);
 * - values, when every one is a decimal with at most 7 digits after the point, as integers (value ×
 *   10^d), as is, as steps or as changes of the step; otherwise as 8-byte doubles, as in version 1;
 * - each integer column in runs of varints or in a bit frame (block-columns.ts).
 * The writer measures every form of each column and keeps the shortest; a reader decodes whichever
 * the mode byte names.
 * Design notes (the byte-level specification, test vectors): docs/DECISIONS.md#point-blocks
 */
import { ColumnReader, differences, putColumn, varintLength, type ColumnForm } from './block-columns.ts';
import { writeVarint } from './varint.ts';

const VERSION = 2;
/** mode bit 0: times as changes of the step (else as steps); bit 1: the time column in a frame */
const TIMES_DOD = 0x01;
const TIMES_FRAME = 0x02;
/** mode bits 2–3: values as doubles (0), or as integers of difference order 0, 1, 2 (1–3); bit 4: the value column in a frame */
const VALUES_SHIFT = 2;
const VALUES_MASK = 0x03;
const VALUES_FRAME = 0x10;
/** mode bits 5–7: the decimals d of the integers (0 with doubles) */
const DECIMALS_SHIFT = 5;
const MAX_DECIMALS = 7;
/** 10^d, exact doubles */
const POW10 = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7] as const;
/** |integer| ≤ 2^49: its second difference, zigzagged, is below 2^53 and its varint at most 8 bytes */
const INT_LIMIT = 2 ** 49;

/** Points ascending by ts (points-block.ts's PointRun, which imports this file). */
interface Run {
  readonly ts: number[];
  readonly values: number[];
}
const F64_BYTES = 8;

/*
 * Scratch columns: encoding and decoding are synchronous, one block at a time, so a block allocates
 * only its own buffer or arrays. Grown for a larger block; after one past KEEP points, shrunk by the
 * next.
 */
const KEEP = 1 << 16;
let offsets = new Float64Array(1024);
let ints = new Float64Array(1024);
let diffs = new Float64Array(1024);
/** the decoder's reader, moved to each block in turn */
const NOTHING = new Uint8Array(0);
const reader = new ColumnReader(NOTHING, 0, (why) => new Error(why));

function room(n: number): void {
  if (diffs.length >= n && (n > KEEP || diffs.length <= KEEP)) return;
  const size = Math.max(1024, 2 ** Math.ceil(Math.log2(n)));
  [offsets, ints, diffs] = [new Float64Array(size), new Float64Array(size), new Float64Array(size)];
}

/** Euclid's, in 32-bit integers while both fit (windows up to 24 days): a double's % is a library call. */
function gcd(a: number, b: number): number {
  let x = a;
  let y = b;
  if (x <= 0x7fffffff && y <= 0x7fffffff) {
    x |= 0;
    y |= 0;
  }
  while (y !== 0) {
    const r = x % y;
    x = y;
    y = r;
  }
  return x;
}

/** Fills `offsets` with the times' offsets from the window start in their unit; the unit (the offsets' greatest common divisor, 1 when all are 0). */
function toOffsets(windowStart: number, ts: readonly number[]): number {
  const n = ts.length;
  let g = 0;
  for (let i = 0; i < n; i++) {
    const o = (ts[i] as number) - windowStart;
    offsets[i] = o;
    if (g !== 1) g = gcd(g, o);
  }
  const unit = g === 0 ? 1 : g;
  if (unit > 1) for (let i = 0; i < n; i++) offsets[i] = (offsets[i] as number) / unit;
  return unit;
}

/** Whether every value is an integer × 10^-decimals within ±2^49, read back exactly as x / 10^decimals; fills `ints`. */
function scaledBy(values: readonly number[], decimals: number): boolean {
  const p = POW10[decimals] as number;
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    const x = Math.round(v * p) + 0; // + 0: −0 becomes 0, so a −0 value fails the check
    if (x / p !== v || (v === 0 && 1 / v < 0) || !(Math.abs(x) <= INT_LIMIT)) return false;
    ints[i] = x;
  }
  return true;
}

/** The fewest decimals that scale every value to an integer (the integers in `ints`); −1: none do. */
function decimalsOf(values: readonly number[]): number {
  for (let d = 0; d <= MAX_DECIMALS; d++) if (scaledBy(values, d)) return d;
  return -1;
}

/** The forms a mode byte names: the time column's by bits 0–1, the value column's by (order × 2 + frame). */
const TIME_FORMS: readonly ColumnForm[] = [0, 1, 2, 3].map((m) => ({ times: true, order: (m & TIMES_DOD) !== 0 ? 2 : 1, frame: (m & TIMES_FRAME) !== 0 }));
const VALUE_FORMS: readonly ColumnForm[] = [0, 1, 2, 3, 4, 5].map((k) => ({ times: false, order: k >> 1, frame: (k & 1) !== 0 }));
/** The forms a writer measures, in order (ties go to the first): order 1 before 2, runs before a frame. */
const TIME_CANDIDATES = [0, 2, 1, 3].map((m) => TIME_FORMS[m] as ColumnForm);
/** up to 2 points, order 2 is order 1 */
const FEW_TIME_CANDIDATES = TIME_CANDIDATES.slice(0, 2);

/** The shortest of `forms` (grouped by order) for the column src[0..n), and its length. */
function shortest(src: Float64Array, n: number, forms: readonly ColumnForm[]): { form: ColumnForm; bytes: number } {
  let form = forms[0] as ColumnForm;
  let bytes = Infinity;
  let order = -1;
  const c = { d: diffs, n };
  for (const f of forms) {
    if (f.order !== order) differences(src, n, (order = f.order), diffs);
    const len = putColumn(null, 0, f, c);
    if (len < bytes) [form, bytes] = [f, len];
  }
  return { form, bytes };
}

/** The version 2 block of `run` (checked by the caller: ≥ 1 point, ascending from the window start). */
export function encodeV2(windowStart: number, run: Run): Buffer {
  const n = run.ts.length;
  room(n);
  const unit = toOffsets(windowStart, run.ts);
  const times = shortest(offsets, n, n > 2 ? TIME_CANDIDATES : FEW_TIME_CANDIDATES);
  const decimals = decimalsOf(run.values);
  const values = decimals < 0 ? undefined : shortest(ints, n, VALUE_FORMS);
  const asInts = values !== undefined && values.bytes <= n * F64_BYTES;
  const out = Buffer.allocUnsafe(2 + varintLength(n) + varintLength(unit) + times.bytes + (asInts ? values.bytes : n * F64_BYTES));
  out[0] = VERSION;
  let at = writeVarint(out, 1, n);
  let mode = (times.form.order === 2 ? TIMES_DOD : 0) | (times.form.frame ? TIMES_FRAME : 0);
  if (asInts) mode |= ((values.form.order + 1) << VALUES_SHIFT) | (values.form.frame ? VALUES_FRAME : 0) | (decimals << DECIMALS_SHIFT);
  out[at++] = mode;
  at = writeVarint(out, at, unit);
  differences(offsets, n, times.form.order, diffs);
  at = putColumn(out, at, times.form, { d: diffs, n });
  if (asInts) {
    differences(ints, n, values.form.order, diffs);
    putColumn(out, at, values.form, { d: diffs, n });
  } else for (let i = 0; i < n; i++, at += F64_BYTES) out.writeDoubleBE(run.values[i] as number, at);
  return out;
}

export interface BlockWindow {
  readonly windowStart: number;
  readonly windowMs: number;
  /** a count past this is refused before anything is allocated */
  readonly maxPoints: number;
}

/** The points of a version 2 block (`b[0]` is 2). */
export function decodeV2(b: Buffer, w: BlockWindow, fail: (why: string) => Error): Run {
  const r = reader;
  r.reset(b, 1, fail);
  const n = r.next();
  if (n < 1) throw fail('holds no point');
  if (n > w.maxPoints) throw fail(`${n} points are more than a block holds (${w.maxPoints})`);
  const mode = b[r.at++];
  if (mode === undefined) throw fail('ends before its mode byte');
  const coding = (mode >> VALUES_SHIFT) & VALUES_MASK;
  const decimals = mode >> DECIMALS_SHIFT;
  if (coding === 0 && (mode & (VALUES_FRAME | (7 << DECIMALS_SHIFT))) !== 0) throw fail(`mode byte 0x${mode.toString(16)} gives doubles a frame or decimals`);
  const unit = r.next();
  if (unit < 1) throw fail('its time unit is 0');
  room(n);
  const c = { d: diffs, n };
  const dod = (mode & TIMES_DOD) !== 0;
  r.column(TIME_FORMS[mode & (TIMES_DOD | TIMES_FRAME)] as ColumnForm, c);
  const ts = timesOf(diffs, { n, dod, unit, start: w.windowStart }, fail);
  const last = ts[n - 1] as number;
  if (last >= w.windowStart + w.windowMs) throw fail(`ts ${last} is past the window's end`);
  let values: number[];
  if (coding === 0) {
    if (b.length - r.at !== n * F64_BYTES) throw fail(`${b.length - r.at} value bytes for ${n} doubles`);
    values = new Array<number>(n);
    for (let i = 0, at = r.at; i < n; i++, at += F64_BYTES) values[i] = b.readDoubleBE(at);
  } else {
    r.column(VALUE_FORMS[(coding - 1) * 2 + ((mode & VALUES_FRAME) !== 0 ? 1 : 0)] as ColumnForm, c);
    values = valuesOf(diffs, { n, order: coding - 1, decimals }, fail);
    if (r.at !== b.length) throw fail(`${b.length - r.at} bytes past the values`);
  }
  r.reset(NOTHING, 0, fail); // the reader keeps no response buffer alive
  return { ts, values };
}

/** The times from their differences: offsets in `unit` from `start`, steps ≥ 1. */
function timesOf(d: Float64Array, c: { n: number; dod: boolean; unit: number; start: number }, fail: (why: string) => Error): number[] {
  const { n, unit, start } = c;
  const ts = new Array<number>(n);
  let o = d[0] as number;
  ts[0] = start + o * unit;
  let step = 0;
  for (let i = 1; i < n; i++) {
    step = c.dod && i > 1 ? step + (d[i] as number) : (d[i] as number);
    if (!(step >= 1)) throw fail(`the ts at ${i} does not ascend`);
    o += step;
    ts[i] = start + o * unit;
  }
  return ts;
}

/** The values from the differences of their integers: x / 10^decimals. */
function valuesOf(d: Float64Array, c: { n: number; order: number; decimals: number }, fail: (why: string) => Error): number[] {
  const { n, order } = c;
  const p = POW10[c.decimals] as number;
  const values = new Array<number>(n);
  let x = 0;
  let step = 0;
  let far = 0;
  for (let i = 0; i < n; i++) {
    const v = d[i] as number;
    if (order === 0) x = v;
    else if (order === 1 || i < 2) x += step = v;
    else x += step += v;
    far = Math.max(far, x, -x);
    values[i] = x / p;
  }
  if (!(far <= INT_LIMIT)) throw fail(`a value's integer is ±${far}, past ±2^49`);
  return values;
}
