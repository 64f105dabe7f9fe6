/**
 * Pure: the per-metric summary of one window (count, sum, min, max, first, last) and its 64-byte
 * cell encoding.
 * Design notes: docs/DECISIONS.md#window-summaries
 */
import { ServiceError, type CauseOptions } from '../errors.ts';

export const SUMMARY_BYTES = 64;

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

export function encodeSummary(s: MetricSummary): Buffer {
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

export function decodeSummary(bytes: Uint8Array, metric = 'metric'): MetricSummary {
  if (bytes.length !== SUMMARY_BYTES) throw new SummaryDecodeError(`summary cell ${metric} is ${bytes.length} bytes, expected ${SUMMARY_BYTES}`);
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

/** count > 0 ? sum / count : NaN */
export function meanOf(s: MetricSummary): number {
  return s.count > 0 ? s.sum / s.count : Number.NaN;
}
