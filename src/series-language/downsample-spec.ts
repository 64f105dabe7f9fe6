// Pure: OpenTSDB 2.4.1's downsample specifier `interval-agg[-fill]` → Downsample.
// Design notes: docs/DECISIONS.md#downsample-specifiers

import { AGGREGATOR_NAMES, FILL_POLICIES, type AggregatorName, type Downsample, type FillPolicy, type IntervalUnit } from './types.ts';
import { badQuery } from './errors.ts';
import { DEFAULT_TIMEZONE, parseDuration } from './time.ts';

export interface DownsampleContext {
  /** the query's timezone (undefined or empty: UTC) */
  readonly timezone?: string | undefined;
  /** the query's useCalendar */
  readonly useCalendar?: boolean | undefined;
}

/** Java's String.split with a literal one-character separator: trailing empty strings removed. */
export function javaSplit(s: string, sep: string): string[] {
  if (s === '') return [''];
  const parts = s.split(sep);
  if (parts.length === 1) return parts;
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

const UNITS: readonly IntervalUnit[] = ['ms', 's', 'm', 'h', 'd', 'w', 'n', 'y'];

export function isAggregatorName(name: string): name is AggregatorName {
  return (AGGREGATOR_NAMES as readonly string[]).includes(name);
}

export function parseDownsample(spec: string, field: string, ctx: DownsampleContext = {}): Downsample {
  const parts = javaSplit(spec, '-');
  if (parts.length < 2) {
    throw badQuery(field, `Invalid downsampling specifier '${spec}': must provide at least interval and function`);
  }
  if (parts.length > 3) {
    throw badQuery(field, `Invalid downsampling specifier '${spec}': must consist of interval, function, and optional fill policy`);
  }
  const [intervalText = '', aggText = '', fillText] = parts;
  if (intervalText === '') {
    // OpenTSDB: StringIndexOutOfBoundsException (a 500); a 400 is what it means
    throw badQuery(field, `Invalid downsampling specifier '${spec}': missing interval`);
  }
  let all = false;
  let calendar = false;
  let duration = intervalText;
  let intervalMs = 0;
  if (intervalText.includes('all')) {
    all = true;
  } else {
    if (intervalText.endsWith('c')) {
      duration = intervalText.slice(0, -1);
      calendar = true;
    }
    intervalMs = parseDuration(duration, field);
  }
  if (!isAggregatorName(aggText)) throw badQuery(field, `No such downsampling function: ${aggText}`);
  if (aggText === 'none') throw badQuery(field, 'cannot use the NONE aggregator for downsampling');
  const fill = parseFill(fillText, field);
  if (!all && ctx.useCalendar === true) calendar = true;
  const { count, unit } = all ? { count: 0, unit: 'ms' as const } : calendar ? calendarInterval(duration, field) : fixedInterval(duration);
  const timezone = ctx.timezone === undefined || ctx.timezone === '' ? DEFAULT_TIMEZONE : ctx.timezone;
  return { spec, all, count, unit, intervalMs, calendar, timezone, aggregator: aggText, fill };
}

function parseFill(text: string | undefined, field: string): FillPolicy {
  if (text === undefined) return 'none';
  const lower = text.toLowerCase();
  const found = FILL_POLICIES.find((p) => p === lower);
  if (found !== undefined) return found;
  if (lower === 'scalar') throw badQuery(field, 'The scalar fill policy is not supported (OpenTSDB 2.4.1 fails on it at query time)');
  throw badQuery(field, `Unrecognized fill policy: ${text}`);
}

/** the count and unit as DateTime.parseDuration reads them (leading digits; last char, or `ms`) */
function fixedInterval(duration: string): { count: number; unit: IntervalUnit } {
  const digits = /^[0-9]*/.exec(duration)?.[0] ?? '';
  const last = duration.charAt(duration.length - 1).toLowerCase();
  const unit = last === 's' && duration.charAt(duration.length - 2) === 'm' ? 'ms' : (last as IntervalUnit);
  return { count: Number(digits), unit };
}

/** Downsampler's calendar reading: Integer.parseInt(before the unit) and unitsToCalendarType. */
function calendarInterval(duration: string, field: string): { count: number; unit: IntervalUnit } {
  const unitLen = duration.toLowerCase().includes('ms') ? 2 : 1;
  const unitText = duration.slice(-unitLen).toLowerCase();
  const digits = duration.slice(0, -unitLen);
  const unit = UNITS.find((u) => u === unitText);
  if (unit === undefined) throw badQuery(field, `Unrecognized unit type: ${unitText}`);
  if (!/^[+-]?[0-9]+$/.test(digits) || Math.abs(Number(digits)) > 2147483647) {
    throw badQuery(field, `For input string: "${digits}"`);
  }
  return { count: Number(digits), unit };
}
