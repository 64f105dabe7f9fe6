// Pure: `POST /api/query` → TsdbQuery, as OpenTSDB 2.4.1 binds and validates the body.
// Design notes: docs/DECISIONS.md#post-apiquery

import type { RateOptions, TagFilter, TsdbQuery } from './types.ts';
import { badQuery } from './errors.ts';
import { FilterSpecError, jsonBoolean, mapToFilters, parseFilterObject } from './filters.ts';
import { javaParseLong, jsonScalarText } from './time.ts';
import { DEFAULT_RATE_OPTIONS, dropDuplicateSubQueries, newDraftSubQuery, validateQuery, type DraftQuery, type DraftSubQuery } from './validate-query.ts';

const BAD_JSON = 'Unable to parse the given JSON';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function jsonString(v: unknown, field: string): string | undefined {
  if (v === null || v === undefined) return undefined;
  const s = jsonScalarText(v);
  if (s === undefined) throw badQuery(field, BAD_JSON, `expected a string at ${field}`);
  return s;
}

/** Jackson into a Java long: integers, integral strings; floats truncated (ACCEPT_FLOAT_AS_INT). */
function jsonLong(v: unknown, field: string): number {
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === 'string') {
    const parsed = javaParseLong(v.trim());
    if (parsed !== null) return Number(parsed);
  }
  if (v === null) return 0;
  throw badQuery(field, BAD_JSON, `expected an integer at ${field}, got ${JSON.stringify(v)}`);
}

export function parseRateOptionsJson(v: unknown, field: string): RateOptions | null {
  if (v === null || v === undefined) return null;
  if (!isRecord(v)) throw badQuery(field, BAD_JSON, `expected an object at ${field}`);
  let { counter, counterMax, resetValue, dropResets } = DEFAULT_RATE_OPTIONS;
  for (const [k, val] of Object.entries(v)) {
    const f = `${field}.${k}`;
    if (k === 'counter' || k === 'isCounter') counter = jsonBoolean(val, f);
    else if (k === 'counterMax') counterMax = jsonLong(val, f);
    else if (k === 'resetValue') resetValue = jsonLong(val, f);
    else if (k === 'dropResets') dropResets = jsonBoolean(val, f);
  }
  return { counter, counterMax, resetValue, dropResets };
}

function parseTagsJson(v: unknown, field: string): TagFilter[] {
  if (!isRecord(v)) throw badQuery(field, BAD_JSON, `expected an object of tagk → value at ${field}`);
  const entries: [string, string][] = [];
  for (const [k, val] of Object.entries(v)) entries.push([k, jsonString(val, `${field}.${k}`) ?? '']);
  const filters: TagFilter[] = [];
  try {
    mapToFilters(entries, filters, true);
  } catch (err) {
    if (err instanceof FilterSpecError) throw badQuery(field, BAD_JSON, err.message);
    throw err;
  }
  return filters;
}

function parseSubQueryJson(raw: unknown, field: string): DraftSubQuery {
  if (!isRecord(raw)) throw badQuery(field, BAD_JSON, `expected an object at ${field}`);
  const q = newDraftSubQuery(field);
  for (const [k, v] of Object.entries(raw)) {
    const f = `${field}.${k}`;
    switch (k) {
      case 'aggregator':
        q.aggregator = jsonString(v, f);
        break;
      case 'metric':
        q.metric = jsonString(v, f);
        break;
      case 'downsample':
        q.downsample = jsonString(v, f);
        break;
      case 'rate':
        q.rate = jsonBoolean(v, f);
        break;
      case 'rateOptions':
        q.rateOptions = parseRateOptionsJson(v, f);
        break;
      case 'explicitTags':
        q.explicitTags = jsonBoolean(v, f);
        break;
      case 'tags':
        if (v !== null) q.filters = parseTagsJson(v, f);
        break;
      case 'filters':
        if (v === null) q.filters = null;
        else if (Array.isArray(v)) q.filters = v.map((x, i) => parseFilterObject(x, `${f}[${i}]`));
        else throw badQuery(f, BAD_JSON, `expected an array of filters at ${f}`);
        break;
      case 'tsuids':
        if (Array.isArray(v) && v.length > 0) {
          throw badQuery(f, 'tsuids queries are not supported', 'This service stores no UIDs: query by metric and filters instead');
        }
        break;
      default:
        break; // Jackson: ignoreUnknown
    }
  }
  return q;
}

/** `POST /api/query`: the parsed JSON body, the URL's parameters, and now (epoch ms). */
export function parseQueryBody(json: unknown, params: URLSearchParams, nowMs: number): TsdbQuery {
  if (json === undefined || json === '') {
    throw badQuery('body', 'Missing message content', 'Supply valid JSON formatted data in the body of your request');
  }
  if (!isRecord(json)) throw badQuery('body', BAD_JSON, 'the body must be a JSON object');
  const draft: DraftQuery = {
    start: undefined,
    end: undefined,
    timezone: undefined,
    useCalendar: false,
    msResolution: false,
    showQuery: false,
    arrays: params.has('arrays'),
    queries: null,
  };
  for (const [k, v] of Object.entries(json)) {
    switch (k) {
      case 'start':
        draft.start = jsonString(v, k);
        break;
      case 'end':
        draft.end = jsonString(v, k);
        break;
      case 'timezone':
        draft.timezone = jsonString(v, k);
        break;
      case 'useCalendar':
        draft.useCalendar = jsonBoolean(v, k);
        break;
      case 'msResolution':
        draft.msResolution = jsonBoolean(v, k);
        break;
      case 'showQuery':
        draft.showQuery = jsonBoolean(v, k);
        break;
      case 'padding':
      case 'noAnnotations':
      case 'globalAnnotations':
      case 'showTSUIDs':
      case 'showSummary':
      case 'showStats':
      case 'delete':
        jsonBoolean(v, k); // type-checked as Jackson does, otherwise ignored
        break;
      case 'queries':
        if (v === null) draft.queries = null;
        else if (Array.isArray(v)) draft.queries = v.map((x, i) => parseSubQueryJson(x, `queries[${i}]`));
        else throw badQuery(k, BAD_JSON, 'queries must be an array');
        break;
      default:
        break;
    }
  }
  // OpenTSDB: a body without `queries` is a NullPointerException (a 500); we say what is missing
  if (draft.queries !== null) draft.queries = dropDuplicateSubQueries(draft.queries);
  return validateQuery(draft, nowMs);
}
