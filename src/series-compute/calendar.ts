// Pure: the parts of java.util.GregorianCalendar (in a TimeZone) that OpenTSDB 2.4.1's calendar
// downsampling uses, over epoch ms and an IANA zone.
// Design notes: docs/DECISIONS.md#calendar-arithmetic

import type { IntervalUnit } from '../series-language/types.ts';

interface Fields {
  y: number;
  mo: number; // 0-11
  d: number;
  h: number;
  mi: number;
  s: number;
  ms: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(tz, f);
  }
  return f;
}

function toFields(ts: number, tz: string): Fields {
  const parts = formatter(tz).formatToParts(new Date(ts));
  const get = (type: Intl.DateTimeFormatPartTypes): number => Number(parts.find((p) => p.type === type)?.value ?? 'NaN');
  const ms = ((ts % 1000) + 1000) % 1000;
  return { y: get('year'), mo: get('month') - 1, d: get('day'), h: get('hour'), mi: get('minute'), s: get('second'), ms };
}

/** The zone's offset (local − UTC, ms) at the instant ts. */
function offsetAt(ts: number, tz: string): number {
  const f = toFields(ts, tz);
  return wallMs(f) - ts;
}

/** Local wall fields as if they were UTC (Date.UTC normalises overflowing fields, like lenient Java). */
function wallMs(f: Fields): number {
  const d = new Date(0);
  d.setUTCFullYear(f.y, f.mo, f.d);
  d.setUTCHours(f.h, f.mi, f.s, f.ms);
  return d.getTime();
}

function fromFields(f: Fields, tz: string): number {
  const wall = wallMs(f);
  const o1 = offsetAt(wall - offsetAt(wall, tz), tz);
  const t = wall - o1;
  if (offsetAt(t, tz) === o1) return t;
  // in a gap: interpret with the offset in force before the transition
  const before = offsetAt(wall - o1 - 6 * 3600_000, tz);
  return wall - before;
}

const FIXED_MS: Readonly<Record<'ms' | 's' | 'm' | 'h', number>> = { ms: 1, s: 1000, m: 60_000, h: 3600_000 };

/** Calendar.add(unit, amount); weeks are added as 7 × amount days, as Downsampler does. */
export function calendarAdd(ts: number, unit: IntervalUnit, amount: number, tz: string): number {
  if (unit === 'ms' || unit === 's' || unit === 'm' || unit === 'h') return ts + amount * FIXED_MS[unit];
  const f = toFields(ts, tz);
  if (unit === 'd') f.d += amount;
  else if (unit === 'w') f.d += 7 * amount;
  else {
    const months = f.y * 12 + f.mo + (unit === 'n' ? amount : 12 * amount);
    f.y = Math.floor(months / 12);
    f.mo = months - f.y * 12;
    const len = daysInMonth(f.y, f.mo);
    if (f.d > len) f.d = len;
  }
  return fromFields(f, tz);
}

function daysInMonth(y: number, mo: number): number {
  return new Date(Date.UTC(y, mo + 1, 0)).getUTCDate();
}

/**
 * DateTime.previousInterval(ts, interval, unit, tz): the start of the calendar bucket holding ts. Each
 * unit starts from an anchor (top of the minute/hour/day/month/year, depending on whether the interval
 * divides the next unit) and steps forward by the interval, then back one step.
 */
export function previousInterval(ts: number, interval: number, unit: IntervalUnit, tz: string): number {
  if (ts < 0) throw new RangeError('Timestamp cannot be less than zero');
  if (interval < 1) throw new RangeError('Interval must be greater than zero');
  const f = toFields(ts, tz);
  let stepUnit: IntervalUnit = unit;
  let step = interval;
  f.ms = 0;
  switch (unit) {
    case 'ms':
      if (1000 % interval !== 0) f.s = 0;
      break;
    case 's':
      f.s = 0;
      if (60 % interval !== 0) f.mi = 0;
      break;
    case 'm':
      f.s = 0;
      f.mi = 0;
      if (60 % interval !== 0) f.h = 0;
      break;
    case 'h':
      f.s = 0;
      f.mi = 0;
      f.h = 0;
      if (24 % interval !== 0) f.d = 1;
      break;
    case 'd':
      f.s = 0;
      f.mi = 0;
      f.h = 0;
      f.d = 1;
      if (interval !== 1) f.mo = 0;
      break;
    case 'w': {
      // 1w/2w: the Sunday of ts's week; otherwise the Sunday of the same WEEK_OF_MONTH in January
      // (lenient Calendar resolution of MONTH=0 + DAY_OF_WEEK). Either way it steps by 7 days; the
      // requested interval is ignored here (Downsampler adds interval × 7 days between buckets). The
      // January anchor matters only when the stepping crosses a DST gap at midnight.
      f.s = 0;
      f.mi = 0;
      f.h = 0;
      const dow = new Date(Date.UTC(f.y, f.mo, f.d)).getUTCDay();
      if (2 % interval === 0) {
        f.d -= dow;
      } else {
        const firstDow = new Date(Date.UTC(f.y, f.mo, 1)).getUTCDay();
        const weekOfMonth = Math.floor((f.d - 1 + firstDow) / 7) + 1;
        const janFirstDow = new Date(Date.UTC(f.y, 0, 1)).getUTCDay();
        f.mo = 0;
        f.d = 1 - janFirstDow + 7 * (weekOfMonth - 1);
      }
      stepUnit = 'd';
      step = 7;
      break;
    }
    case 'n':
    case 'y':
      f.s = 0;
      f.mi = 0;
      f.h = 0;
      f.d = 1;
      f.mo = 0;
      break;
  }
  let cal = fromFields(f, tz);
  if (cal === ts) return cal;
  while (cal <= ts) cal = calendarAdd(cal, stepUnit, step, tz);
  return calendarAdd(cal, stepUnit, -step, tz);
}
