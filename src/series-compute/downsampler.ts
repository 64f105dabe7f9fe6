// Pure: OpenTSDB 2.4.1's Downsampler and FillingDownsampler (src/core/Downsampler.java,
// FillingDownsampler.java), ported state for state so edge cases (seek alignment, partial buckets,
// calendar stepping, `all`) come out as the TSD's do.
//
// Fixed intervals: buckets [k·I, (k+1)·I) on epoch multiples (UTC). Calendar intervals: buckets from
// DateTime.previousInterval in the zone, stepped with Calendar.add. `all`: one bucket over
// [queryStart, queryEnd), stamped queryStart.

import type { AggregateFn } from './aggregators.ts';
import { calendarAdd, previousInterval } from './calendar.ts';
import type { ScanRange } from './range.ts';
import type { Point, SeekableView } from './views.ts';
import type { FillPolicy, IntervalUnit } from '../series-language/types.ts';

export interface DownsampleSpec {
  readonly all: boolean;
  readonly calendar: boolean;
  /** the fixed length (DateTime.parseDuration: n = 30 d, y = 365 d) */
  readonly intervalMs: number;
  readonly count: number;
  readonly unit: IntervalUnit;
  readonly timezone: string;
  readonly fn: AggregateFn;
  readonly fill: FillPolicy;
}

function drain(vi: ValuesInInterval, fn: AggregateFn): number {
  const values: number[] = [];
  while (vi.hasNextValue()) values.push(vi.nextDoubleValue());
  return fn(values);
}

/** Downsampler.ValuesInInterval: the source's values of the current bucket. */
export class ValuesInInterval {
  readonly #source: SeekableView;
  readonly #spec: DownsampleSpec;
  readonly #queryStart: number;
  #previousCalendar = 0;
  #nextCalendar = 0;
  #timestampEndInterval = Number.MIN_SAFE_INTEGER;
  #hasNextValueFromSource = false;
  #nextDp: Point | null = null;
  #initialized = false;

  constructor(source: SeekableView, spec: DownsampleSpec, queryStart: number, queryEnd: number) {
    this.#source = source;
    this.#spec = spec;
    this.#queryStart = queryStart;
    this.#queryEnd = queryEnd;
    if (spec.all) this.#timestampEndInterval = queryEnd;
    else if (!spec.calendar) this.#timestampEndInterval = spec.intervalMs;
  }

  readonly #queryEnd: number;

  #add(ts: number, sign: 1 | -1): number {
    return calendarAdd(ts, this.#spec.unit, sign * this.#spec.count, this.#spec.timezone);
  }

  initializeIfNotDone(): void {
    if (this.#initialized) return;
    this.#initialized = true;
    if (!this.#source.hasNext()) return;
    this.#moveToNextValue();
    const dp = this.#nextDp;
    if (this.#spec.all || dp === null) return;
    if (this.#spec.calendar) {
      this.#previousCalendar = previousInterval(dp.ts, this.#spec.count, this.#spec.unit, this.#spec.timezone);
      this.#nextCalendar = this.#add(this.#previousCalendar, 1);
      this.#timestampEndInterval = this.#nextCalendar;
    } else {
      this.#timestampEndInterval = this.alignTimestamp(dp.ts) + this.#spec.intervalMs;
    }
  }

  #moveToNextValue(): void {
    if (!this.#source.hasNext()) {
      this.#hasNextValueFromSource = false;
      return;
    }
    this.#hasNextValueFromSource = true;
    if (this.#spec.all) {
      while (this.#source.hasNext()) {
        this.#nextDp = this.#source.next();
        if (this.#nextDp.ts < this.#queryStart) {
          this.#nextDp = null;
          continue;
        }
        if (this.#nextDp.ts >= this.#queryEnd) this.#hasNextValueFromSource = false;
        break;
      }
      if (this.#nextDp === null) this.#hasNextValueFromSource = false;
    } else {
      this.#nextDp = this.#source.next();
    }
  }

  #resetEndOfInterval(): void {
    const dp = this.#nextDp;
    if (!this.#hasNextValueFromSource || this.#spec.all || dp === null) return;
    if (this.#spec.calendar) {
      while (dp.ts >= this.#timestampEndInterval) {
        this.#previousCalendar = this.#add(this.#previousCalendar, 1);
        this.#nextCalendar = this.#add(this.#nextCalendar, 1);
        this.#timestampEndInterval = this.#nextCalendar;
      }
    } else {
      this.#timestampEndInterval = this.alignTimestamp(dp.ts) + this.#spec.intervalMs;
    }
  }

  moveToNextInterval(): void {
    this.initializeIfNotDone();
    this.#resetEndOfInterval();
  }

  seekInterval(ts: number): void {
    if (this.#spec.all) {
      this.#source.seek(ts);
    } else if (this.#spec.calendar) {
      let seek = previousInterval(ts, this.#spec.count, this.#spec.unit, this.#spec.timezone);
      if (ts > seek) seek = this.#add(seek, 1);
      this.#source.seek(seek);
    } else {
      this.#source.seek(this.alignTimestamp(ts + this.#spec.intervalMs - 1));
    }
    this.#initialized = false;
  }

  getIntervalTimestamp(): number {
    if (this.#spec.all) return this.#timestampEndInterval;
    if (this.#spec.calendar) return this.#previousCalendar;
    return this.alignTimestamp(this.#timestampEndInterval - this.#spec.intervalMs);
  }

  alignTimestamp(ts: number): number {
    return ts - (ts % this.#spec.intervalMs);
  }

  hasNextValue(): boolean {
    this.initializeIfNotDone();
    if (this.#spec.all) return this.#hasNextValueFromSource;
    return this.#hasNextValueFromSource && this.#nextDp !== null && this.#nextDp.ts < this.#timestampEndInterval;
  }

  nextDoubleValue(): number {
    if (!this.hasNextValue() || this.#nextDp === null) throw new RangeError('no more values in interval');
    const value = this.#nextDp.value;
    this.#moveToNextValue();
    return value;
  }
}

/**
 * What the Downsampler (fixed interval, not `all`) gives for points held in arrays, at once: one value
 * per bucket that holds points, stamped with the bucket's start, `fn` over the bucket's values in
 * order. No point object per point (the raw tail of every id of a site goes through here each refresh).
 * `ts` ascending; `fn` must not keep the array it is given (it is reused).
 */
export function downsampleFixed(ts: readonly number[], values: readonly number[], intervalMs: number, fn: AggregateFn): { ts: number[]; values: number[] } {
  const outTs: number[] = [];
  const outValues: number[] = [];
  const bucket: number[] = [];
  let i = 0;
  while (i < ts.length) {
    const first = ts[i] as number;
    const start = first - (first % intervalMs);
    const end = start + intervalMs;
    bucket.length = 0;
    for (; i < ts.length && (ts[i] as number) < end; i++) bucket.push(values[i] as number);
    outTs.push(start);
    outValues.push(fn(bucket));
  }
  return { ts: outTs, values: outValues };
}

/** Downsampler (fill policy none): one point per bucket that holds data. */
export class Downsampler implements SeekableView {
  protected readonly vi: ValuesInInterval;
  protected readonly spec: DownsampleSpec;
  protected readonly queryStart: number;

  constructor(source: SeekableView, spec: DownsampleSpec, queryStart: number, queryEnd: number) {
    this.spec = spec;
    this.queryStart = queryStart;
    this.vi = new ValuesInInterval(source, spec, queryStart, queryEnd);
  }

  hasNext(): boolean {
    return this.vi.hasNextValue();
  }

  next(): Point {
    if (!this.hasNext()) throw new RangeError('no more data points in downsampler');
    const value = drain(this.vi, this.spec.fn);
    const ts = this.vi.getIntervalTimestamp();
    this.vi.moveToNextInterval();
    return { ts: this.spec.all ? this.queryStart : ts, value };
  }

  seek(ts: number): void {
    this.vi.seekInterval(ts);
  }
}

/**
 * FillingDownsampler (fill nan/null/zero): every bucket from the one holding startTime up to, not
 * including, the one holding endTime (calendar: plus one when both are the same bucket); `all` only
 * when there is data. `scan` is the SCAN bounds (see range.ts), `query` the query's.
 */
export class FillingDownsampler extends Downsampler {
  #timestamp: number;
  readonly #endTimestamp: number;
  #previousCalendar = 0;
  #nextCalendar = 0;

  constructor(source: SeekableView, scan: ScanRange, spec: DownsampleSpec, query: { readonly startMs: number; readonly endMs: number }) {
    super(source, spec, query.startMs, query.endMs);
    const { startMs: startTime, endMs: endTime } = scan;
    if (spec.fill === 'none') throw new Error('Cannot instantiate FillingDownsampler with fill policy none');
    if (spec.all) {
      this.#timestamp = startTime;
      this.#endTimestamp = endTime;
    } else if (spec.calendar) {
      const tz = spec.timezone;
      const start = previousInterval(startTime, spec.count, spec.unit, tz);
      this.#previousCalendar = calendarAdd(start, spec.unit, -spec.count, tz);
      this.#nextCalendar = start;
      let end = previousInterval(endTime, spec.count, spec.unit, tz);
      if (end === this.#nextCalendar) end = calendarAdd(end, spec.unit, spec.count, tz);
      this.#timestamp = this.#nextCalendar;
      this.#endTimestamp = end;
    } else {
      this.#timestamp = this.vi.alignTimestamp(startTime);
      this.#endTimestamp = this.vi.alignTimestamp(endTime);
    }
  }

  override hasNext(): boolean {
    if (this.spec.all) return this.vi.hasNextValue();
    return this.#timestamp < this.#endTimestamp;
  }

  override next(): Point {
    if (!this.hasNext()) throw new RangeError('no more data points in filling downsampler');
    const { vi, spec } = this;
    vi.initializeIfNotDone();
    let actual = vi.hasNextValue() ? vi.getIntervalTimestamp() : Number.MAX_VALUE;
    while (!spec.all && vi.hasNextValue() && actual < this.#timestamp) {
      drain(vi, spec.fn);
      vi.moveToNextInterval();
      actual = vi.getIntervalTimestamp();
    }
    let value: number;
    if (spec.all || actual === this.#timestamp) {
      value = drain(vi, spec.fn);
      vi.moveToNextInterval();
    } else {
      value = spec.fill === 'zero' ? 0 : Number.NaN;
    }
    if (!spec.all) {
      if (spec.calendar) {
        this.#previousCalendar = calendarAdd(this.#previousCalendar, spec.unit, spec.count, spec.timezone);
        this.#nextCalendar = calendarAdd(this.#nextCalendar, spec.unit, spec.count, spec.timezone);
        this.#timestamp = this.#nextCalendar;
      } else {
        this.#timestamp += spec.intervalMs;
      }
    }
    const ts = spec.all ? this.queryStart : spec.calendar ? this.#previousCalendar : this.#timestamp - spec.intervalMs;
    return { ts, value };
  }
}
