// The bit-level alternative that point blocks version 2 was measured against and did not take
// (docs/DECISIONS.md#point-blocks): Gorilla's encoding (Pelkonen et al., VLDB 2015) of one block's
// values, the XOR of each double with the one before, its meaningful bits between the leading and
// trailing zeros, and its times as delta-of-deltas in prefix-coded buckets ('0', '10'+7 bits,
// '110'+9, '1110'+12, '1111'+32; in ms, the first time and step as 32 bits each). Only
// `npm run bench:blocks` uses it, to keep the comparison repeatable. 64-bit words as two 32-bit halves.

class BitWriter {
  bytes: Uint8Array;
  bit = 0;

  constructor(capacity: number) {
    this.bytes = new Uint8Array(capacity);
  }

  /** The low `count` (0–32) bits of `v`, most significant first. */
  write(v: number, count: number): void {
    for (let left = count; left > 0;) {
      const at = this.bit >>> 3;
      const free = 8 - (this.bit & 7);
      const take = Math.min(free, left);
      const chunk = (v >>> (left - take)) & ((1 << take) - 1);
      this.bytes[at] = (this.bytes[at] ?? 0) | (chunk << (free - take));
      this.bit += take;
      left -= take;
    }
  }

  done(): Uint8Array {
    return this.bytes.subarray(0, (this.bit + 7) >>> 3);
  }
}

class BitReader {
  readonly #bytes: Uint8Array;
  bit = 0;

  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
  }

  /** `count` (0–32) bits as an unsigned number. */
  read(count: number): number {
    let v = 0;
    for (let left = count; left > 0;) {
      const byte = this.#bytes[this.bit >>> 3] ?? 0;
      const avail = 8 - (this.bit & 7);
      const take = Math.min(avail, left);
      v = v * (1 << take) + ((byte >>> (avail - take)) & ((1 << take) - 1));
      this.bit += take;
      left -= take;
    }
    return v;
  }
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
const HI = 1; // little-endian machines: u32[1] holds the sign, exponent and top of the mantissa
const LO = 0;
const ctz32 = (x: number): number => 31 - Math.clz32(x & -x);

const BUCKETS = [
  { prefix: 0b10, prefixBits: 2, bits: 7 },
  { prefix: 0b110, prefixBits: 3, bits: 9 },
  { prefix: 0b1110, prefixBits: 4, bits: 12 },
] as const;

/** The Gorilla block of a run (ascending ts from `windowStart`): n (32 bits), then times, then values. */
export function gorillaEncode(windowStart: number, ts: readonly number[], values: readonly number[]): Uint8Array {
  const n = ts.length;
  const w = new BitWriter(16 + n * 16);
  w.write(n, 32);
  let prevT = windowStart;
  let prevD = 0;
  for (let i = 0; i < n; i++) {
    const t = ts[i] as number;
    const d = t - prevT;
    if (i < 2) w.write(d, 32);
    else {
      const dod = d - prevD;
      const bucket = dod === 0 ? undefined : BUCKETS.find((b) => dod >= -(2 ** (b.bits - 1)) + 1 && dod <= 2 ** (b.bits - 1));
      if (dod === 0) w.write(0, 1);
      else if (bucket === undefined) {
        w.write(0b1111, 4);
        w.write(dod >>> 0, 32);
      } else {
        w.write(bucket.prefix, bucket.prefixBits);
        w.write((dod + 2 ** (bucket.bits - 1) - 1) >>> 0, bucket.bits);
      }
    }
    prevT = t;
    prevD = d;
  }
  let pHi = 0;
  let pLo = 0;
  let lead = -1;
  let trail = 0;
  for (let i = 0; i < n; i++) {
    f64[0] = values[i] as number;
    const hi = u32[HI] as number;
    const lo = u32[LO] as number;
    if (i === 0) {
      w.write(hi, 32);
      w.write(lo, 32);
    } else {
      const xHi = (hi ^ pHi) >>> 0;
      const xLo = (lo ^ pLo) >>> 0;
      if (xHi === 0 && xLo === 0) w.write(0, 1);
      else {
        const l = Math.min(31, xHi !== 0 ? Math.clz32(xHi) : 32 + Math.clz32(xLo));
        const t = xLo !== 0 ? ctz32(xLo) : 32 + ctz32(xHi);
        if (lead >= 0 && l >= lead && t >= trail) {
          w.write(0b10, 2);
        } else {
          lead = l;
          trail = t;
          w.write(0b11, 2);
          w.write(lead, 5);
          w.write((64 - lead - trail) & 63, 6);
        }
        writeMeaningful(w, { hi: xHi, lo: xLo }, lead, trail);
      }
    }
    pHi = hi;
    pLo = lo;
  }
  return w.done();
}

/** Bits [trail, 64 − lead) of the 64-bit word. */
function writeMeaningful(w: BitWriter, x: { hi: number; lo: number }, lead: number, trail: number): void {
  const m = 64 - lead - trail;
  // shift right by `trail`
  let sHi: number;
  let sLo: number;
  if (trail >= 32) {
    sHi = 0;
    sLo = x.hi >>> (trail - 32);
  } else if (trail === 0) {
    sHi = x.hi;
    sLo = x.lo;
  } else {
    sHi = x.hi >>> trail;
    sLo = ((x.lo >>> trail) | (x.hi << (32 - trail))) >>> 0;
  }
  if (m > 32) {
    w.write(sHi, m - 32);
    w.write(sLo, 32);
  } else w.write(sLo, m);
}

/** The times and values of a Gorilla block. */
export function gorillaDecode(bytes: Uint8Array, windowStart: number): { ts: number[]; values: number[] } {
  const r = new BitReader(bytes);
  const n = r.read(32);
  const ts = new Array<number>(n);
  let t = windowStart;
  let d = 0;
  for (let i = 0; i < n; i++) {
    if (i < 2) d = r.read(32);
    else {
      let ones = 0; // the bucket's prefix: '0', '10', '110', '1110' or '1111'
      while (ones < 4 && r.read(1) === 1) ones++;
      if (ones === 1) d += r.read(7) - 63;
      else if (ones === 2) d += r.read(9) - 255;
      else if (ones === 3) d += r.read(12) - 2047;
      else if (ones === 4) d += r.read(32) | 0;
    }
    t += d;
    ts[i] = t;
  }
  const values = new Array<number>(n);
  let hi = 0;
  let lo = 0;
  let lead = 0;
  let trail = 0;
  for (let i = 0; i < n; i++) {
    if (i === 0) {
      hi = r.read(32);
      lo = r.read(32);
    } else if (r.read(1) === 1) {
      if (r.read(1) === 1) {
        lead = r.read(5);
        const m = r.read(6) || 64;
        trail = 64 - lead - m;
      }
      const m = 64 - lead - trail;
      const mHi = m > 32 ? r.read(m - 32) : 0;
      const mLo = r.read(Math.min(m, 32));
      // shift left by `trail`
      let xHi: number;
      let xLo: number;
      if (trail >= 32) {
        xHi = mLo << (trail - 32);
        xLo = 0;
      } else if (trail === 0) {
        xHi = mHi;
        xLo = mLo;
      } else {
        xHi = (mHi << trail) | (mLo >>> (32 - trail));
        xLo = mLo << trail;
      }
      hi = (hi ^ xHi) >>> 0;
      lo = (lo ^ xLo) >>> 0;
    }
    u32[HI] = hi;
    u32[LO] = lo;
    values[i] = f64[0] as number;
  }
  return { ts, values };
}
