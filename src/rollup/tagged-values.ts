/**
 * Pure: a short group of doubles (a summary's first, last, min, max and sum), each stored as a tag byte
 * and its bytes: a reference to an equal value before it in the group, a short decimal, or the double.
 * Summary cells (summary.ts) and summary packs (summary-pack.ts) store their values so; byte-level
 * specification with test vectors: docs/ROLLUPS.md, "Summary cells".
 */
import { varintLength, writeVarint, type VarintReader } from './varint.ts';

/** 0x00–0x0f: the same value as the one at that index before it in the group (no bytes). */
const REF = 0x00;
/** 0x10 | k: the decimal m / 10^k, zigzag varint m. */
const DECIMAL = 0x10;
/** 0x20: an IEEE-754 double, 8 bytes big-endian. */
const DOUBLE = 0x20;
/** Decimal places a value may have to be stored as a decimal. */
const MAX_PLACES = 6;
/** |m| of a decimal at most this: its zigzag form stays a safe integer. */
const MAX_MANTISSA = 2 ** 51;
const TENS = Array.from({ length: MAX_PLACES + 1 }, (_, k) => 10 ** k);

export const zigzag = (n: number): number => (n >= 0 ? 2 * n : -2 * n - 1);
export const unzigzag = (z: number): number => (z % 2 === 0 ? z / 2 : -(z + 1) / 2);

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

/** One value as it will be written. */
type Tagged = { readonly tag: number; readonly m?: number; readonly d?: number };

/** A group of values, tagged: what writeTagged writes and how many bytes that takes. */
export interface TaggedGroup {
  readonly parts: readonly Tagged[];
  readonly bytes: number;
}

export function tagValues(values: readonly number[]): TaggedGroup {
  const parts: Tagged[] = [];
  let bytes = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    const ref = values.findIndex((w, j) => j < i && Object.is(w, v));
    if (ref >= 0) {
      parts.push({ tag: REF | ref });
      bytes += 1;
      continue;
    }
    const dec = decimalOf(v);
    if (dec === undefined) {
      parts.push({ tag: DOUBLE, d: v });
      bytes += 9;
    } else {
      const m = zigzag(dec.m);
      parts.push({ tag: DECIMAL | dec.k, m });
      bytes += 1 + varintLength(m);
    }
  }
  return { parts, bytes };
}

/** Writes a tagged group at `at`; returns the offset after it. */
export function writeTagged(out: Buffer, at: number, g: TaggedGroup): number {
  let i = at;
  for (const p of g.parts) {
    out[i++] = p.tag;
    if (p.m !== undefined) i = writeVarint(out, i, p.m);
    else if (p.d !== undefined) i = out.writeDoubleBE(p.d, i);
  }
  return i;
}

/**
 * Reads a group of tagged values at the reader's cursor into `into.out`: the i-th value written goes to
 * `offset + order[i]` (as many values as `order` has), and the cursor moves past them; `fail` names
 * what is malformed.
 */
export function readTagged(
  bytes: Buffer,
  r: VarintReader,
  into: { readonly out: Float64Array | number[]; readonly offset: number; readonly order: readonly number[] },
  fail: (why: string) => Error,
): void {
  const { out, offset, order } = into;
  const n = order.length;
  for (let i = 0; i < n; i++) {
    const tag = bytes[r.at++];
    if (tag === undefined) throw fail(`it ends before value ${i} of ${n}`);
    const low = tag & 0x0f;
    let v: number;
    if ((tag & 0xf0) === REF && low < i) v = out[offset + (order[low] as number)] as number;
    else if ((tag & 0xf0) === DECIMAL && low <= MAX_PLACES) v = unzigzag(r.next()) / (TENS[low] as number);
    else if (tag === DOUBLE) {
      if (r.at + 8 > bytes.length) throw fail('a double runs past the end');
      v = bytes.readDoubleBE(r.at);
      r.at += 8;
    } else throw fail(`value ${i} has the tag 0x${tag.toString(16)}`);
    out[offset + (order[i] as number)] = v;
  }
}
