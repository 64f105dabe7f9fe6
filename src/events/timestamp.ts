/**
 * Strict ISO-8601 / RFC 3339 timestamp parsing (extended format only):
 *   YYYY-MM-DD('T'|'t'|' ')hh:mm[:ss[(.|,)fraction]](Z|z|±hh|±hhmm|±hh:mm)
 * The zone is mandatory: a local time without offset is ambiguous and rejected, as are date-only
 * strings, impossible dates (2023-02-29), hour 24 and leap second 60. Fractions beyond milliseconds
 * (up to 9 digits) are truncated toward the earlier millisecond. Computed arithmetically, not through
 * `Date.parse`, whose leniency differs between engines and which maps years 0–99 to 1900–1999.
 */

export type TimestampParse = { readonly ok: true; readonly ms: number } | { readonly ok: false; readonly detail: string };

const ISO = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)$/;
const LOCAL = /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?)?$/;
const MS_PER_DAY = 86_400_000;

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  return [31, isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

export function parseIsoTimestamp(text: string): TimestampParse {
  const m = ISO.exec(text);
  if (m === null) {
    return {
      ok: false,
      detail: LOCAL.test(text)
        ? 'ISO-8601 timestamp has no timezone (add Z or ±hh:mm); local times are ambiguous'
        : 'not an ISO-8601 timestamp (expected e.g. 2024-11-22T08:00:00.000Z)',
    };
  }
  const [year, month, day, hour, minute] = [m[1], m[2], m[3], m[4], m[5]].map(Number) as [number, number, number, number, number];
  const second = Number(m[6] ?? '0');
  const millis = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    return { ok: false, detail: `no such calendar date ${m[1]}-${m[2]}-${m[3]}` };
  }
  if (hour > 23 || minute > 59 || second > 59) {
    return { ok: false, detail: `time of day out of range (hh 00–23, mm 00–59, ss 00–59)` };
  }
  let offsetMinutes = 0;
  if (m[8] === undefined) {
    const offHours = Number(m[10]);
    const offMinutes = Number(m[11] ?? '0');
    if (offHours > 23 || offMinutes > 59) {
      return { ok: false, detail: 'timezone offset out of range (±00:00 to ±23:59)' };
    }
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (offHours * 60 + offMinutes);
  }
  const ms = daysFromCivil(year, month, day) * MS_PER_DAY + ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1000 + millis;
  return { ok: true, ms };
}

/**
 * A setting that names a point in time (e.g. `events.maxTs`): epoch milliseconds as a number or a
 * string of digits, or an ISO-8601 timestamp with a zone. It must lie in [0, 2^53 − 1].
 */
export function parseTimeSetting(raw: unknown): TimestampParse {
  let ms: number;
  if (typeof raw === 'number' || (typeof raw === 'string' && /^\d+$/.test(raw.trim()))) {
    ms = Number(raw);
    if (!Number.isSafeInteger(ms)) return { ok: false, detail: `epoch milliseconds must be an integer in [0, 2^53 − 1], got ${String(raw)}` };
  } else if (typeof raw === 'string') {
    const parsed = parseIsoTimestamp(raw.trim());
    if (!parsed.ok) return { ok: false, detail: `expected epoch milliseconds or ISO-8601 with a zone (e.g. 2024-11-22T08:00:00Z): ${parsed.detail}` };
    ms = parsed.ms;
  } else {
    return { ok: false, detail: 'expected epoch milliseconds or an ISO-8601 string' };
  }
  if (ms < 0) return { ok: false, detail: `${String(raw)} is before 1970-01-01T00:00:00Z` };
  return { ok: true, ms };
}

/**
 * A point in time given as a parameter (a CLI flag, a query string's value) named `name`: epoch
 * milliseconds ("1732262400000") or ISO-8601 with a zone ("2024-11-22T08:00:00Z") — the one parser
 * of `parseTimeSetting` — with a message naming `name`.
 */
export function parseTimeParam(name: string, raw: string): { ok: true; ms: number } | { ok: false; message: string } {
  const t = parseTimeSetting(raw);
  return t.ok ? t : { ok: false, message: `${name} ${t.detail.replace(/^expected /, 'must be ')}` };
}
