// Pure: OpenTSDB 2.4.1's time language (net.opentsdb.utils.DateTime), copied rule for rule, quirks
// included, with `now` injected.
// Design notes: docs/DECISIONS.md#the-time-language

import { badQuery, TsdbQueryError } from './errors.ts';
import { InputError } from '../errors.ts';

export const DEFAULT_TIMEZONE = 'UTC';
const LONG_MAX = 9223372036854775807n;
const LONG_MIN = -9223372036854775808n;

/** Tags.parseLong: Java's NumberFormatException messages, exact. Throws InputError(message). */
export function parseJavaLong(s: string): bigint {
  const n = s.length;
  if (n === 0) throw new InputError('Empty string');
  const first = s.charAt(0);
  let i = 0;
  if (first === '+' || first === '-') {
    if (n === 1) throw new InputError(`Just a sign, no value: ${s}`);
    if (n > 20) throw new InputError(`Value too long: ${s}`);
    i = 1;
  } else if (n > 19) {
    throw new InputError(`Value too long: ${s}`);
  }
  let v = 0n;
  for (; i < n; i++) {
    const c = s.charAt(i);
    if (c < '0' || c > '9') throw new InputError(`Invalid character '${c}' in ${s}`);
    v = v * 10n + BigInt(c.charCodeAt(0) - 48);
  }
  if (first === '-') v = -v;
  if (v > LONG_MAX || v < LONG_MIN) throw new InputError(`Overflow in ${s}`);
  return v;
}

/** Long.parseLong (java.lang): digits with an optional sign; null on failure. */
export function javaParseLong(s: string): bigint | null {
  if (!/^[+-]?[0-9]+$/.test(s)) return null;
  const v = BigInt(s);
  return v > LONG_MAX || v < LONG_MIN ? null : v;
}

/** DateTime.parseDuration → ms. Throws TsdbQueryError (field) with OpenTSDB's message. */
export function parseDuration(duration: string, field: string): number {
  if (duration === '') throw badQuery(field, 'Cannot parse null or empty duration');
  let unit = 0;
  while (isDigit(duration.charAt(unit))) {
    unit++;
    if (unit >= duration.length) throw badQuery(field, `Invalid duration, must have an integer and unit: ${duration}`);
  }
  const interval = javaParseLong(duration.substring(0, unit));
  if (interval === null) throw badQuery(field, `Invalid duration (number): ${duration}`);
  if (interval <= 0n) throw badQuery(field, `Zero or negative duration: ${duration}`);
  let multiplier: bigint;
  switch (duration.charAt(duration.length - 1).toLowerCase()) {
    case 's':
      if (duration.charAt(duration.length - 2) === 'm') return Number(interval);
      multiplier = 1n;
      break;
    case 'm':
      multiplier = 60n;
      break;
    case 'h':
      multiplier = 3600n;
      break;
    case 'd':
      multiplier = 86400n;
      break;
    case 'w':
      multiplier = 604800n;
      break;
    case 'n':
      multiplier = 2592000n;
      break; // 30 days, as OpenTSDB
    case 'y':
      multiplier = 31536000n;
      break; // 365 days, as OpenTSDB
    default:
      throw badQuery(field, `Invalid duration (suffix): ${duration}`);
  }
  multiplier *= 1000n;
  if (Number(interval) * Number(multiplier) > 2 ** 63) {
    throw badQuery(field, `Duration must be < Long.MAX_VALUE ms: ${duration}`);
  }
  return Number(interval * multiplier);
}

function isDigit(c: string): boolean {
  return c >= '0' && c <= '9' && c.length === 1;
}

/** Whether an IANA/Java zone id is known (Intl's list stands in for Java's TimeZone ids). */
export function isKnownTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(tz: string): Intl.DateTimeFormat {
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
      era: 'short',
    });
    formatters.set(tz, f);
  }
  return f;
}

/** The zone's offset from UTC at an instant, ms (wall clock − UTC). */
export function zoneOffsetMs(tz: string, epochMs: number): number {
  const parts: Record<string, string> = {};
  for (const p of formatterFor(tz).formatToParts(new Date(epochMs))) parts[p.type] = p.value;
  const num = (k: string): number => Number(parts[k] ?? '0');
  const yearAbs = num('year');
  const year = parts['era'] === 'BC' || parts['era'] === 'B' ? 1 - yearAbs : yearAbs;
  const wall = utcFields({ y: year, mon: num('month') - 1, d: num('day'), h: num('hour'), mi: num('minute'), s: num('second') });
  const floorSecond = Math.floor(epochMs / 1000) * 1000;
  return wall - floorSecond;
}

/** Date.UTC without its two-digit-year mapping; fields roll over (lenient), as Java's calendar. */
function utcFields(f: { readonly y: number; readonly mon: number; readonly d: number; readonly h: number; readonly mi: number; readonly s: number }): number {
  const { y, mon, d, h, mi, s } = f;
  const date = new Date(0);
  date.setUTCFullYear(y, mon, d);
  date.setUTCHours(h, mi, s, 0);
  return date.getTime();
}

/** A wall-clock time in a zone → epoch ms. */
export function wallTimeToEpoch(tz: string, wallAsUtcMs: number): number {
  const first = wallAsUtcMs - zoneOffsetMs(tz, wallAsUtcMs);
  const second = wallAsUtcMs - zoneOffsetMs(tz, first);
  return second;
}

const ABSOLUTE_PATTERNS: Readonly<Record<number, { dash: RegExp; space: RegExp }>> = {
  10: { dash: /^(\d+)\/(\d+)\/(\d+)/, space: /^(\d+)\/(\d+)\/(\d+)/ },
  16: { dash: /^(\d+)\/(\d+)\/(\d+)-(\d+):(\d+)/, space: /^(\d+)\/(\d+)\/(\d+) (\d+):(\d+)/ },
  19: { dash: /^(\d+)\/(\d+)\/(\d+)-(\d+):(\d+):(\d+)/, space: /^(\d+)\/(\d+)\/(\d+) (\d+):(\d+):(\d+)/ },
};

function parseAbsolute(datetime: string, tz: string, field: string): number {
  const patterns = ABSOLUTE_PATTERNS[datetime.length];
  if (patterns === undefined) throw badQuery(field, `Invalid absolute date: ${datetime}`);
  if (!isKnownTimezone(tz)) throw badQuery(field, `Invalid timezone name: ${tz}`);
  const m = (datetime.includes('-') ? patterns.dash : patterns.space).exec(datetime);
  if (m === null) throw badQuery(field, `Invalid date: ${datetime}. Unparseable date: "${datetime}"`);
  const f = m.slice(1).map(Number);
  const wall = utcFields({ y: f[0] ?? 0, mon: (f[1] ?? 1) - 1, d: f[2] ?? 1, h: f[3] ?? 0, mi: f[4] ?? 0, s: f[5] ?? 0 });
  return wallTimeToEpoch(tz, wall);
}

/**
 * DateTime.parseDateTimeString → epoch ms (-1 for an empty string, as OpenTSDB). `timezone` empty or
 * undefined = UTC (the TSD's default zone here). Throws TsdbQueryError naming `field`.
 */
export function parseDateTime(datetime: string, timezone: string | undefined, nowMs: number, field: string): number {
  if (datetime === '') return -1;
  if (/^[0-9]+ms$/.test(datetime)) return longOrThrow(datetime.slice(0, -2), field, '');
  const lower = datetime.toLowerCase();
  if (lower === 'now') return nowMs;
  if (lower.endsWith('-ago')) return nowMs - parseDuration(datetime.substring(0, datetime.length - 4), field);
  if (datetime.includes('/') || datetime.includes(':')) {
    return parseAbsolute(datetime, timezone === undefined || timezone === '' ? DEFAULT_TIMEZONE : timezone, field);
  }
  const containsDot = datetime.includes('.');
  if (containsDot && !/^[0-9]{10}\.[0-9]{1,3}$/.test(datetime)) {
    throw badQuery(
      field,
      `Invalid time: ${datetime}. Millisecond timestamps must be in the format <seconds>.<ms> where the milliseconds are limited to 3 digits`,
    );
  }
  const time = longOrThrow(containsDot ? datetime.replace('.', '') : datetime, field, `Invalid time: ${datetime}. `);
  if (time < 0) throw badQuery(field, `Invalid time: ${datetime}. Negative timestamps are not supported.`);
  return datetime.length <= 10 ? time * 1000 : time;
}

function longOrThrow(s: string, field: string, prefix: string): number {
  try {
    return Number(parseJavaLong(s));
  } catch (err) {
    throw new TsdbQueryError({ field, message: prefix + (err as Error).message, cause: err });
  }
}

/**
 * The text Jackson would hand OpenTSDB for a JSON scalar bound to a String field. Numbers: we only
 * have the parsed value, not the JSON text, so `1355961600.120` arrives as `1355961600.12` (OpenTSDB
 * would read the text and get …120 ms); integers are written without exponent.
 */
export function jsonScalarText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') {
    return Number.isInteger(value) && Math.abs(value) < 1e21 ? BigInt(value).toString() : String(value);
  }
  if (typeof value === 'boolean') return String(value);
  return undefined;
}
