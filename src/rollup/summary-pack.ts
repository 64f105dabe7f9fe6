/**
 * Pure: a summary pack, the summaries of one metric of one id in every finer window of a coarser
 * window, in one cell of the coarser window's row.
 * Design notes: docs/DECISIONS.md#summary-packs
 */
import type { MetricSummary } from './summary.ts';
import { SummaryDecodeError } from './summary.ts';
import { readTagged, tagValues, writeTagged, type TaggedGroup } from './tagged-values.ts';
import { VarintReader, varintLength, writeVarint } from './varint.ts';

const V1 = 1;
const V2 = 2;
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

/** The steps between the windows' indexes in the coarse window (checked ascending and inside it). */
function indexSteps(coarseStart: number, finerMs: number, windows: readonly PackedSummary[]): number[] {
  if (windows.length === 0) throw new RangeError('a summary pack needs ≥ 1 window');
  let previous = 0;
  return windows.map((w, i) => {
    const k = (w.startMs - coarseStart) / finerMs;
    const step = k - previous;
    if (!Number.isSafeInteger(k) || !(step >= (i === 0 ? 0 : 1)))
      throw new RangeError(`summary pack windows must be ascending finer windows of the coarse one (at ${i}: start ${w.startMs})`);
    previous = k;
    return step;
  });
}

/**
 * The pack of `windows` (ascending by start, distinct, each a finer window inside the coarse one),
 * version 2: u8 2 ‖ varint n ‖ n varints: index steps ‖ n varints: count ‖ per window first, last,
 * min, max, sum as tagged values (tagged-values.ts).
 */
export function encodeSummaryPack(coarseStart: number, finerMs: number, windows: readonly PackedSummary[]): Buffer {
  const steps = indexSteps(coarseStart, finerMs, windows);
  const groups: TaggedGroup[] = windows.map((w) => tagValues([w.first, w.last, w.min, w.max, w.sum]));
  let len = 1 + varintLength(windows.length);
  for (let i = 0; i < windows.length; i++)
    len += varintLength(steps[i] as number) + varintLength((windows[i] as PackedSummary).count) + (groups[i] as TaggedGroup).bytes;
  const out = Buffer.allocUnsafe(len);
  out[0] = V2;
  let at = writeVarint(out, 1, windows.length);
  for (const step of steps) at = writeVarint(out, at, step);
  for (const w of windows) at = writeVarint(out, at, w.count);
  for (const g of groups) at = writeTagged(out, at, g);
  return out;
}

/** Version 1 (written before; still read): the steps and counts as in version 2, then n × f64 of each of sum, min, max, first, last. */
export function encodeSummaryPackV1(coarseStart: number, finerMs: number, windows: readonly PackedSummary[]): Buffer {
  const steps = indexSteps(coarseStart, finerMs, windows);
  const n = windows.length;
  let len = 1 + varintLength(n) + n * F64_COLUMNS * 8;
  for (let i = 0; i < n; i++) len += varintLength(steps[i] as number) + varintLength((windows[i] as PackedSummary).count);
  const out = Buffer.allocUnsafe(len);
  out[0] = V1;
  let at = writeVarint(out, 1, n);
  for (const step of steps) at = writeVarint(out, at, step);
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
  const version = b[0];
  if (version !== V1 && version !== V2) throw fail(`version ${String(version)} is neither ${V1} nor ${V2}`);
  const r = new VarintReader(b, 1, fail);
  const n = r.next();
  if (n < 1) throw fail('holds no window');
  // each window takes at least a step, a count and its values (5 tagged: ≥ 5 bytes; version 1: 40)
  if (n > (b.length - r.at) / (version === V1 ? F64_COLUMNS * 8 + 2 : 7)) throw fail(`${n} windows do not fit in ${b.length} bytes`);
  const out = new Float64Array(n * RUN_STRIDE);
  let k = 0;
  for (let i = 0; i < n; i++) {
    const step = r.next();
    if (i > 0 && step < 1) throw fail('a window repeats');
    k += step;
    out[i * RUN_STRIDE] = coarseStart + k * finerMs;
  }
  for (let i = 0; i < n; i++) out[i * RUN_STRIDE + 1] = r.next();
  if (version === V1) {
    if (b.length - r.at !== n * F64_COLUMNS * 8) throw fail(`${b.length - r.at} value bytes for ${n} windows`);
    for (let c = 0; c < F64_COLUMNS; c++) for (let i = 0; i < n; i++) out[i * RUN_STRIDE + 2 + c] = b.readDoubleBE(r.at + (c * n + i) * 8);
    return out;
  }
  // version 2: first, last, min, max, sum per window → the run's sum, min, max, first, last (offsets 2–6)
  for (let i = 0; i < n; i++) readTagged(b, r, { out, offset: i * RUN_STRIDE, order: V2_ORDER }, fail);
  if (r.at !== b.length) throw fail(`${b.length - r.at} bytes after its values`);
  return out;
}

/** Where a version 2 pack's values (first, last, min, max, sum) go in a run's window. */
const V2_ORDER = [5, 6, 3, 4, 2];

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
