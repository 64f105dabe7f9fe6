// Pure: OpenTSDB 2.4.1's SeekableView (a seekable iterator of data points) for one stored series,
// and RateSpan (src/core/RateSpan.java) on top of any view.

import type { RateOptions } from '../series-language/types.ts';

export interface Point {
  readonly ts: number;
  readonly value: number;
  /** a long in OpenTSDB (written as an integer literal); absent: a double */
  readonly integer?: boolean;
}

/** net.opentsdb.core.SeekableView: hasNext / next / seek(first point at or after ts). */
export interface SeekableView {
  hasNext(): boolean;
  next(): Point;
  seek(ts: number): void;
}

/** Span.spanIterator(): the points of one series, ascending; seek → first point with ts ≥ the target. */
export class SpanView implements SeekableView {
  readonly #ts: readonly number[];
  readonly #values: readonly number[];
  readonly #integers: boolean;
  #i = 0;

  /** integers: treat every value that is a safe integer as an OpenTSDB long (see compute.ts) */
  constructor(ts: readonly number[], values: readonly number[], integers = false) {
    this.#ts = ts;
    this.#values = values;
    this.#integers = integers;
  }

  hasNext(): boolean {
    return this.#i < this.#ts.length;
  }

  next(): Point {
    const ts = this.#ts[this.#i];
    const value = this.#values[this.#i];
    if (ts === undefined || value === undefined) throw new RangeError('no more data points in span');
    this.#i++;
    return this.#integers && Number.isSafeInteger(value) ? { ts, value, integer: true } : { ts, value };
  }

  seek(ts: number): void {
    let lo = 0;
    let hi = this.#ts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.#ts[mid] ?? Number.POSITIVE_INFINITY) < ts) lo = mid + 1;
      else hi = mid;
    }
    this.#i = lo;
  }
}

const INVALID_TIMESTAMP = Number.MAX_VALUE;

/**
 * RateSpan: per-second rate between consecutive points of the source. As in 2.4.1 it starts from a
 * fake previous point (ts 0, value 0), so its FIRST output is value/(ts/1000) at the first point's ts;
 * AggregationIterator (with rate) never emits that first rate at its own timestamp but keeps it as the
 * series' "previous" value (see aggregation-iterator.ts).
 * Counters: a negative difference is a roll-over (counterMax − prev + next) unless dropResets, which
 * skips the point (and the next rate is computed from the skipped point); a rolled-over rate above a
 * positive resetValue becomes 0. resetValue applies ONLY on roll-over, as in RateSpan.
 */
export class RateSpan implements SeekableView {
  readonly #source: SeekableView;
  readonly #options: RateOptions;
  #nextData: Point = { ts: 0, value: 0 };
  #nextRate: Point = { ts: INVALID_TIMESTAMP, value: 0 };
  #initialized = false;

  constructor(source: SeekableView, options: RateOptions) {
    this.#source = source;
    this.#options = options;
  }

  hasNext(): boolean {
    this.#initializeIfNotDone();
    return this.#nextRate.ts !== INVALID_TIMESTAMP;
  }

  next(): Point {
    this.#initializeIfNotDone();
    if (!this.hasNext()) throw new RangeError('no more values in rate span');
    const prev = this.#nextRate;
    this.#populateNextRate();
    return prev;
  }

  seek(ts: number): void {
    this.#source.seek(ts);
    this.#initialized = false;
  }

  #initializeIfNotDone(): void {
    if (!this.#initialized) {
      this.#initialized = true;
      this.#nextData = { ts: 0, value: 0 };
      this.#populateNextRate();
    }
  }

  #populateNextRate(): void {
    const o = this.#options;
    for (;;) {
      if (!this.#source.hasNext()) {
        this.#nextRate = { ts: INVALID_TIMESTAMP, value: 0 };
        return;
      }
      const prevData = this.#nextData;
      const nextData = this.#source.next();
      this.#nextData = nextData;
      const t0 = prevData.ts;
      const t1 = nextData.ts;
      if (t1 <= t0) throw new Error(`Next timestamp (${t1}) is supposed to be strictly greater than the previous one (${t0})`);
      const dt = (t1 - t0) / 1000;
      // (the long branch of 2.4.1 subtracts as longs: the same numbers below 2^53)
      let difference = nextData.value - prevData.value;
      if (o.counter && difference < 0) {
        if (o.dropResets) continue;
        difference = o.counterMax - prevData.value + nextData.value;
        const rate = difference / dt;
        this.#nextRate = { ts: t1, value: o.resetValue > 0 && rate > o.resetValue ? 0 : rate };
        return;
      }
      this.#nextRate = { ts: t1, value: difference / dt };
      return;
    }
  }
}
