/**
 * Pure: the per-metric summary of one window (count, sum, min, max, first, last) and its cell
 * encodings: the compact one the job writes (version 2, 10–71 bytes) and the fixed 64 bytes of
 * version 1, still read. Specification: docs/ROLLUPS.md, "Summary cells".
 * Design notes: docs/DECISIONS.md#window-summaries
 */
import { ServiceError, type CauseOptions } from '../errors.ts';
import { readTagged, tagValues, unzigzag, writeTagged, zigzag } from './tagged-values.ts';
import { VarintReader, varintLength, writeVarint } from './varint.ts';

/** The length of a version 1 summary cell (its first byte is 0x00: the count's high byte). */
export const SUMMARY_BYTES = 64;
/** The first byte of a version 2 (compact) summary cell. */
export const SUMMARY_V2 = 0x02;

export interface MetricSummary {
  readonly count: number;
  readonly sum: number;
  readonly min: number;
  readonly max: number;
  readonly firstTs: number;
  readonly first: number;
  readonly lastTs: number;
  readonly last: number;
}

/** A stored summary cell that is not one: HBase holds bytes this code did not write. */
export class SummaryDecodeError extends ServiceError<'MALFORMED_SUMMARY'> {
  override readonly name = 'SummaryDecodeError';

  constructor(message: string, options: CauseOptions = {}) {
    super({ code: 'MALFORMED_SUMMARY', message, cause: options.cause });
  }
}

export function summaryOf(ts: number, value: number): MetricSummary {
  return { count: 1, sum: value, min: value, max: value, firstTs: ts, first: value, lastTs: ts, last: value };
}

/** Adds one event (or merges a finer summary) into `acc`. */
export function mergeSummary(acc: MetricSummary | undefined, s: MetricSummary): MetricSummary {
  if (acc === undefined) return s;
  const takeFirst = s.firstTs < acc.firstTs;
  const takeLast = s.lastTs > acc.lastTs;
  return {
    count: acc.count + s.count,
    sum: acc.sum + s.sum,
    min: Math.min(acc.min, s.min),
    max: Math.max(acc.max, s.max),
    firstTs: takeFirst ? s.firstTs : acc.firstTs,
    first: takeFirst ? s.first : acc.first,
    lastTs: takeLast ? s.lastTs : acc.lastTs,
    last: takeLast ? s.last : acc.last,
  };
}

export function addEvent(acc: MetricSummary | undefined, ts: number, value: number): MetricSummary {
  return mergeSummary(acc, summaryOf(ts, value));
}

/** The compact cell of a summary (version 2): what the rollup job writes. */
export function encodeSummary(s: MetricSummary): Buffer {
  return encodeSummaryV2(s);
}

/** The fixed 64-byte cell of version 1 (count, sum, min, max, firstTs, first, lastTs, last; big-endian). */
export function encodeSummaryV1(s: MetricSummary): Buffer {
  const out = Buffer.alloc(SUMMARY_BYTES);
  out.writeBigInt64BE(BigInt(s.count), 0);
  out.writeDoubleBE(s.sum, 8);
  out.writeDoubleBE(s.min, 16);
  out.writeDoubleBE(s.max, 24);
  out.writeBigInt64BE(BigInt(s.firstTs), 32);
  out.writeDoubleBE(s.first, 40);
  out.writeBigInt64BE(BigInt(s.lastTs), 48);
  out.writeDoubleBE(s.last, 56);
  return out;
}

/** The order a version 2 cell stores its values in: first, last, min, max, sum. */
function valuesOf(s: MetricSummary): number[] {
  return [s.first, s.last, s.min, s.max, s.sum];
}

/**
 * Version 2: 0x02 ‖ varint count ‖ zigzag varint firstTs ‖ varint (lastTs − firstTs) ‖ first, last,
 * min, max, sum as tagged values (tagged-values.ts: a reference, a decimal or a double).
 */
export function encodeSummaryV2(s: MetricSummary): Buffer {
  if (!(Number.isSafeInteger(s.count) && s.count >= 1 && Number.isSafeInteger(s.firstTs) && Number.isSafeInteger(s.lastTs) && s.lastTs >= s.firstTs))
    throw new RangeError(`a summary needs a count ≥ 1 and firstTs ≤ lastTs, safe integers (count ${s.count}, ${s.firstTs} … ${s.lastTs})`);
  const g = tagValues(valuesOf(s));
  const out = Buffer.allocUnsafe(1 + varintLength(s.count) + varintLength(zigzag(s.firstTs)) + varintLength(s.lastTs - s.firstTs) + g.bytes);
  out[0] = SUMMARY_V2;
  let at = writeVarint(out, 1, s.count);
  at = writeVarint(out, at, zigzag(s.firstTs));
  at = writeVarint(out, at, s.lastTs - s.firstTs);
  writeTagged(out, at, g);
  return out;
}

/** A summary cell of either version: 64 bytes led by 0x00 (version 1), or led by 0x02 (version 2). */
export function decodeSummary(bytes: Uint8Array, metric = 'metric'): MetricSummary {
  if (bytes[0] === SUMMARY_V2) return decodeV2(bytes, metric);
  if (bytes.length !== SUMMARY_BYTES || bytes[0] !== 0x00)
    throw new SummaryDecodeError(`summary cell ${metric} is ${bytes.length} bytes led by ${bytes[0] ?? 'nothing'}: neither version 1 (64 bytes) nor version 2`);
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    count: Number(b.readBigInt64BE(0)),
    sum: b.readDoubleBE(8),
    min: b.readDoubleBE(16),
    max: b.readDoubleBE(24),
    firstTs: Number(b.readBigInt64BE(32)),
    first: b.readDoubleBE(40),
    lastTs: Number(b.readBigInt64BE(48)),
    last: b.readDoubleBE(56),
  };
}

function decodeV2(bytes: Uint8Array, metric: string): MetricSummary {
  const fail = (why: string): Error => new SummaryDecodeError(`summary cell ${metric} (version 2): ${why}`);
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const r = new VarintReader(b, 1, fail);
  const count = r.next();
  const firstTs = unzigzag(r.next());
  const lastTs = firstTs + r.next();
  const values: number[] = [0, 0, 0, 0, 0];
  readTagged(b, r, { out: values, offset: 0, order: [0, 1, 2, 3, 4] }, fail);
  if (r.at !== b.length) throw fail(`${b.length - r.at} bytes after its values`);
  const [first, last, min, max, sum] = values as [number, number, number, number, number];
  return { count, sum, min, max, firstTs, first, lastTs, last };
}

/** count > 0 ? sum / count : NaN */
export function meanOf(s: MetricSummary): number {
  return s.count > 0 ? s.sum / s.count : Number.NaN;
}
