/**
 * Pure: a summary pack, the summaries of one metric of one id in every finer window of a coarser
 * window, in one cell of the coarser window's row.
 * Design notes: docs/DECISIONS.md#summary-packs
 */
import type { MetricSummary } from './summary.ts';
import { SummaryDecodeError } from './summary.ts';
import { VarintReader, varintLength, writeVarint } from './varint.ts';

const VERSION = 1;
const F64_COLUMNS = 5;

/** One finer window's summary in a pack (its start in ms). */
export interface PackedSummary {
  readonly startMs: number;
  readonly count: number;
  readonly sum: number;
  readonly min: number;
  readonly max: number;
  readonly first: number;
  readonly last: number;
}

/** A finer window's summary as a pack holds it. */
export function packed(startMs: number, s: MetricSummary): PackedSummary {
  return { startMs, count: s.count, sum: s.sum, min: s.min, max: s.max, first: s.first, last: s.last };
}

/** The pack of `windows` (ascending by start, distinct, each a finer window inside the coarse one). */
export function encodeSummaryPack(coarseStart: number, finerMs: number, windows: readonly PackedSummary[]): Buffer {
  const n = windows.length;
  if (n === 0) throw new RangeError('a summary pack needs ≥ 1 window');
  const index = windows.map((w) => (w.startMs - coarseStart) / finerMs);
  let len = 1 + varintLength(n) + n * F64_COLUMNS * 8;
  for (let i = 0; i < n; i++) {
    const k = index[i] as number;
    const step = k - (i === 0 ? 0 : (index[i - 1] as number));
    if (!Number.isSafeInteger(k) || !(step >= (i === 0 ? 0 : 1)))
      throw new RangeError(`summary pack windows must be ascending finer windows of the coarse one (at ${i}: start ${(windows[i] as PackedSummary).startMs})`);
    len += varintLength(step) + varintLength((windows[i] as PackedSummary).count);
  }
  const out = Buffer.allocUnsafe(len);
  out[0] = VERSION;
  let at = writeVarint(out, 1, n);
  for (let i = 0; i < n; i++) at = writeVarint(out, at, (index[i] as number) - (i === 0 ? 0 : (index[i - 1] as number)));
  for (const w of windows) at = writeVarint(out, at, w.count);
  for (const field of ['sum', 'min', 'max', 'first', 'last'] as const) {
    for (const w of windows) {
      out.writeDoubleBE(w[field], at);
      at += 8;
    }
  }
  return out;
}

/** Numbers per window in a summary run: start, count, sum, min, max, first, last. */
export const RUN_STRIDE = 7;

/**
 * The finer windows' summaries of a pack of the coarse window at `coarseStart` as one run: a
 * Float64Array of RUN_STRIDE numbers per window (start, count, sum, min, max, first, last), ascending
 * — one allocation, contiguous for the readers that fold many of them; `what` names it in errors.
 */
export function decodeSummaryPackRun(bytes: Uint8Array, coarseStart: number, finerMs: number, what = 'summary pack'): Float64Array {
  const fail = (why: string): Error => new SummaryDecodeError(`${what}: ${why}`);
  const b = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b[0] !== VERSION) throw fail(`version ${String(b[0])} is not ${VERSION}`);
  const r = new VarintReader(b, 1, fail);
  const n = r.next();
  if (n < 1) throw fail('holds no window');
  if (n > (b.length - r.at) / (F64_COLUMNS * 8 + 2)) throw fail(`${n} windows do not fit in ${b.length} bytes`);
  const out = new Float64Array(n * RUN_STRIDE);
  let k = 0;
  for (let i = 0; i < n; i++) {
    const step = r.next();
    if (i > 0 && step < 1) throw fail('a window repeats');
    k += step;
    out[i * RUN_STRIDE] = coarseStart + k * finerMs;
  }
  for (let i = 0; i < n; i++) out[i * RUN_STRIDE + 1] = r.next();
  if (b.length - r.at !== n * F64_COLUMNS * 8) throw fail(`${b.length - r.at} value bytes for ${n} windows`);
  for (let c = 0; c < F64_COLUMNS; c++) for (let i = 0; i < n; i++) out[i * RUN_STRIDE + 2 + c] = b.readDoubleBE(r.at + (c * n + i) * 8);
  return out;
}

/** The summary at offset `o` (a multiple of RUN_STRIDE) of a decoded run. */
export function summaryAt(run: Float64Array, o: number): PackedSummary {
  return {
    startMs: run[o] as number,
    count: run[o + 1] as number,
    sum: run[o + 2] as number,
    min: run[o + 3] as number,
    max: run[o + 4] as number,
    first: run[o + 5] as number,
    last: run[o + 6] as number,
  };
}

/** A run's windows as objects. */
export function runSummaries(run: Float64Array): PackedSummary[] {
  const out: PackedSummary[] = [];
  for (let o = 0; o < run.length; o += RUN_STRIDE) out.push(summaryAt(run, o));
  return out;
}

/** One window's summary as a run of one. */
export function summaryRun(w: PackedSummary): Float64Array {
  return Float64Array.of(w.startMs, w.count, w.sum, w.min, w.max, w.first, w.last);
}

/** The finer windows' summaries of a pack of the coarse window at `coarseStart`; `what` names it in errors. */
export function decodeSummaryPack(bytes: Uint8Array, coarseStart: number, finerMs: number, what = 'summary pack'): PackedSummary[] {
  return runSummaries(decodeSummaryPackRun(bytes, coarseStart, finerMs, what));
}
