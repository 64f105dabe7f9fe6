/**
 * Pure: the per-metric summary of one window (count, sum, min, max, first, last) and its cell
 * encodings: the compact one the job writes (version 2, 10–71 bytes) and the fixed 64 bytes of
 * version 1, still read. Specification: docs/ROLLUPS.md, "Summary cells".
 * Design notes: docs/DECISIONS.md#window-summaries
 */
import { ServiceError, type CauseOptions } from '../errors.ts';
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

/** Value tags of version 2: a reference to an earlier value of the cell, a decimal, a double. */
const REF = 0x00;
const DECIMAL = 0x10;
const DOUBLE = 0x20;
/** Decimal places a value may have to be stored as a decimal (m / 10^k). */
const MAX_PLACES = 6;
/** |m| of a decimal at most this: its zigzag form stays a safe integer. */
const MAX_MANTISSA = 2 ** 51;
const TENS = Array.from({ length: MAX_PLACES + 1 }, (_, k) => 10 ** k);

/** The values of a summary in the order a version 2 cell stores them. */
function valuesOf(s: MetricSummary): [number, number, number, number, number] {
  return [s.first, s.last, s.min, s.max, s.sum];
}

const zigzag = (n: number): number => (n >= 0 ? 2 * n : -2 * n - 1);
const unzigzag = (z: number): number => (z % 2 === 0 ? z / 2 : -(z + 1) / 2);

/** k and m with m / 10^k === v exactly (k smallest), or undefined (then the double is stored). */
function decimalOf(v: number): { k: number; m: number } | undefined {
  if (!Number.isFinite(v) || Object.is(v, -0)) return undefined;
  for (let k = 0; k <= MAX_PLACES; k++) {
    const ten = TENS[k] as number;
    const m = Math.round(v * ten);
    if (Math.abs(m) > MAX_MANTISSA) return undefined;
    if (m / ten === v) return { k, m };
  }
  return undefined;
}

/**
 * Version 2: 0x02 ‖ varint count ‖ zigzag varint firstTs ‖ varint (lastTs − firstTs) ‖ first, last,
 * min, max, sum, each a tag byte and its bytes: 0x00–0x03 the same as the value at that index before
 * it (no bytes), 0x10 | k a decimal m / 10^k (zigzag varint m), 0x20 an IEEE double (8 bytes,
 * big-endian).
 */
export function encodeSummaryV2(s: MetricSummary): Buffer {
  if (!(Number.isSafeInteger(s.count) && s.count >= 1 && Number.isSafeInteger(s.firstTs) && Number.isSafeInteger(s.lastTs) && s.lastTs >= s.firstTs))
    throw new RangeError(`a summary needs a count ≥ 1 and firstTs ≤ lastTs, safe integers (count ${s.count}, ${s.firstTs} … ${s.lastTs})`);
  const values = valuesOf(s);
  const parts: ({ tag: number } & ({ m: number } | { d: number } | object))[] = [];
  let len = 1 + varintLength(s.count) + varintLength(zigzag(s.firstTs)) + varintLength(s.lastTs - s.firstTs);
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    const ref = values.findIndex((w, j) => j < i && Object.is(w, v));
    if (ref >= 0) {
      parts.push({ tag: REF | ref });
      len += 1;
      continue;
    }
    const dec = decimalOf(v);
    if (dec !== undefined) {
      parts.push({ tag: DECIMAL | dec.k, m: zigzag(dec.m) });
      len += 1 + varintLength(zigzag(dec.m));
    } else {
      parts.push({ tag: DOUBLE, d: v });
      len += 9;
    }
  }
  const out = Buffer.allocUnsafe(len);
  out[0] = SUMMARY_V2;
  let at = writeVarint(out, 1, s.count);
  at = writeVarint(out, at, zigzag(s.firstTs));
  at = writeVarint(out, at, s.lastTs - s.firstTs);
  for (const p of parts) {
    out[at++] = p.tag;
    if ('m' in p) at = writeVarint(out, at, p.m);
    else if ('d' in p) at = out.writeDoubleBE(p.d, at);
  }
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
  const r = new VarintReader(bytes, 1, fail);
  const count = r.next();
  const firstTs = unzigzag(r.next());
  const lastTs = firstTs + r.next();
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const values: number[] = [];
  for (let i = 0; i < 5; i++) {
    const tag = bytes[r.at++];
    if (tag === undefined) throw fail('it ends before its five values');
    const kind = tag & 0xf0;
    const low = tag & 0x0f;
    if (kind === REF && low < i) values.push(values[low] as number);
    else if (kind === DECIMAL && low <= MAX_PLACES) values.push(unzigzag(r.next()) / (TENS[low] as number));
    else if (tag === DOUBLE) {
      if (r.at + 8 > bytes.length) throw fail('a double runs past the end');
      values.push(b.readDoubleBE(r.at));
      r.at += 8;
    } else throw fail(`value ${i} has the tag 0x${tag.toString(16)}`);
  }
  if (r.at !== bytes.length) throw fail(`${bytes.length - r.at} bytes after its values`);
  const [first, last, min, max, sum] = values as [number, number, number, number, number];
  return { count, sum, min, max, firstTs, first, lastTs, last };
}

/** count > 0 ? sum / count : NaN */
export function meanOf(s: MetricSummary): number {
  return s.count > 0 ? s.sum / s.count : Number.NaN;
}
