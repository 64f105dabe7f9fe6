// Pure: the shared second half of both request forms, OpenTSDB's TSQuery.validateAndSetQuery and
// TSSubQuery.validateAndSetQuery (plus the duplicate-sub-query removal both parsers do with a
// LinkedHashSet), from a loosely typed draft to the TsdbQuery value.

import type { RateOptions, SubQuery, TagFilter, TsdbQuery } from './types.ts';
import { badQuery } from './errors.ts';
import { parseDownsample, isAggregatorName } from './downsample-spec.ts';
import { compileFilter } from './filters.ts';
import { DEFAULT_TIMEZONE, isKnownTimezone, parseDateTime } from './time.ts';

/** RateOptions() defaults: counterMax Long.MAX_VALUE (as a double: 2^63), resetValue 0. */
export const DEFAULT_RATE_OPTIONS: RateOptions = { counter: false, counterMax: 2 ** 63, resetValue: 0, dropResets: false };

export interface DraftSubQuery {
  /** for error fields: `queries[2]` or `m[0]` */
  readonly field: string;
  aggregator: string | undefined;
  metric: string | undefined;
  downsample: string | undefined;
  rate: boolean;
  /** null: not given (OpenTSDB keeps null, which matters for duplicate removal) */
  rateOptions: RateOptions | null;
  filters: TagFilter[] | null;
  explicitTags: boolean;
}

export interface DraftQuery {
  start: string | undefined;
  end: string | undefined;
  timezone: string | undefined;
  useCalendar: boolean;
  msResolution: boolean;
  showQuery: boolean;
  arrays: boolean;
  queries: DraftSubQuery[] | null;
}

export function newDraftSubQuery(field: string): DraftSubQuery {
  return { field, aggregator: undefined, metric: undefined, downsample: undefined, rate: false, rateOptions: null, filters: null, explicitTags: false };
}

/** TSSubQuery.equals over what we carry (filters compare as OpenTSDB's equals: group_by ignored). */
function subQueryKey(q: DraftSubQuery): string {
  let filters: string[] | null = null;
  try {
    filters = q.filters === null ? null : q.filters.map((f) => compileFilter(f).identity);
  } catch {
    filters = q.filters === null ? null : q.filters.map((f) => JSON.stringify(f));
  }
  return JSON.stringify([q.aggregator ?? null, q.metric ?? null, q.downsample ?? null, q.rate, q.rateOptions, filters, q.explicitTags]);
}

/** The LinkedHashSet both parsers build: first of equal sub-queries kept, order otherwise kept. */
export function dropDuplicateSubQueries(queries: readonly DraftSubQuery[]): DraftSubQuery[] {
  const seen = new Set<string>();
  return queries.filter((q) => {
    const key = subQueryKey(q);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** TSQuery.validateAndSetQuery: times, then each sub-query in order. */
export function validateQuery(draft: DraftQuery, nowMs: number): TsdbQuery {
  const tz = draft.timezone === undefined || draft.timezone === '' ? undefined : draft.timezone;
  if (draft.start === undefined || draft.start === '') throw badQuery('start', 'Missing start time');
  const startMs = parseDateTime(draft.start, tz, nowMs, 'start');
  const endGiven = draft.end !== undefined && draft.end !== '';
  const endMs = endGiven ? parseDateTime(draft.end ?? '', tz, nowMs, 'end') : nowMs;
  if (endMs <= startMs) {
    throw badQuery('end', `End time [${endMs}] must be greater than the start time [${startMs}]`);
  }
  if (draft.queries === null || draft.queries.length === 0) throw badQuery('queries', 'Missing queries');
  const queries = draft.queries.map((q, index) => validateSubQuery(q, index, draft, tz));
  return {
    startMs,
    endMs,
    endGiven,
    queries,
    msResolution: draft.msResolution,
    showQuery: draft.showQuery,
    arrays: draft.arrays,
    timezone: tz ?? DEFAULT_TIMEZONE,
    useCalendar: draft.useCalendar,
  };
}

function validateSubQuery(q: DraftSubQuery, index: number, draft: DraftQuery, tz: string | undefined): SubQuery {
  const agg = q.aggregator;
  if (agg === undefined || agg === '') throw badQuery(`${q.field}.aggregator`, 'Missing the aggregation function');
  if (!isAggregatorName(agg)) throw badQuery(`${q.field}.aggregator`, `No such aggregation function: ${agg}`);
  if (q.metric === undefined || q.metric === '') {
    throw badQuery(`${q.field}.metric`, 'Missing the metric or tsuids, provide at least one');
  }
  let downsample;
  if (q.downsample !== undefined && q.downsample !== '') {
    const field = `${q.field}.downsample`;
    downsample = parseDownsample(q.downsample, field, { timezone: tz, useCalendar: draft.useCalendar });
    if (tz !== undefined && !isKnownTimezone(tz)) throw badQuery('timezone', 'The timezone specification could not be found');
  }
  return {
    index,
    metric: q.metric,
    aggregator: agg,
    downsample,
    rate: q.rate,
    rateOptions: q.rateOptions ?? DEFAULT_RATE_OPTIONS,
    filters: q.filters ?? [],
    explicitTags: q.explicitTags,
  };
}
