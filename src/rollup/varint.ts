// Pure: unsigned LEB128 varints for non-negative safe integers (up to 2^53 − 1), as the point blocks
// and summary packs of the rollup table store their offsets (points-block.ts, summary-pack.ts).
// Arithmetic, not bit operations: offsets in ms pass 2^32.

/** Bytes the varint of `n` takes. */
export function varintLength(n: number): number {
  let len = 1;
  for (let v = n; v >= 0x80; v = Math.floor(v / 0x80)) len++;
  return len;
}

/** Writes `n` at `at`; returns the offset after it. */
export function writeVarint(out: Buffer, at: number, n: number): number {
  let v = n;
  let i = at;
  while (v >= 0x80) {
    out[i++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  out[i++] = v;
  return i;
}

/** A cursor over a buffer of varints; `fail` names what is malformed. */
export class VarintReader {
  #bytes: Uint8Array;
  #fail: (why: string) => Error;
  at: number;

  constructor(bytes: Uint8Array, at: number, fail: (why: string) => Error) {
    this.#bytes = bytes;
    this.at = at;
    this.#fail = fail;
  }

  /** The cursor moved to `at` of other bytes (a reader kept for many buffers). */
  reset(bytes: Uint8Array, at: number, fail: (why: string) => Error): void {
    this.#bytes = bytes;
    this.at = at;
    this.#fail = fail;
  }

  next(): number {
    let n = 0;
    let scale = 1;
    for (;;) {
      const b = this.#bytes[this.at++];
      if (b === undefined) throw this.#fail('a varint runs past the end');
      n += (b & 0x7f) * scale;
      if (b < 0x80) break;
      scale *= 0x80;
      if (scale > 2 ** 49) throw this.#fail('a varint is longer than 8 bytes');
    }
    return n;
  }
}
