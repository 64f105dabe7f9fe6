// Pure: `GET /api/query?start=…&m=…` → TsdbQuery, as OpenTSDB 2.4.1's QueryRpc reads it.
// Design notes: docs/DECISIONS.md#get-apiquery

import type { RateOptions, TagFilter, TsdbQuery } from './types.ts';
import { badQuery } from './errors.ts';
import { FilterSpecError, mapToFilters, parseTagPair } from './filters.ts';
import { javaParseLong } from './time.ts';
import { DEFAULT_RATE_OPTIONS, dropDuplicateSubQueries, newDraftSubQuery, validateQuery, type DraftQuery, type DraftSubQuery } from './validate-query.ts';

/** QueryRpc.parseRateOptions(true, spec) for a `rate{…}` part. */
export function parseRateSpec(spec: string, field: string): RateOptions {
  if (spec.length === 4) return DEFAULT_RATE_OPTIONS;
  if (spec.length < 6) throw badQuery(field, `Invalid rate options specification: ${spec}`);
  const parts = spec.substring(5, spec.length - 1).split(',');
  if (parts.length > 3) {
    throw badQuery(
      field,
      `Incorrect number of values in rate options specification, must be counter[,counter max value,reset value], recieved: ${parts.length} parts`,
    );
  }
  const [kind = '', maxText = '', resetText = ''] = parts;
  let counterMax = DEFAULT_RATE_OPTIONS.counterMax;
  if (maxText !== '') {
    const v = javaParseLong(maxText);
    if (v === null) throw badQuery(field, `Max value of counter was not a number, received '${maxText}'`);
    counterMax = Number(v);
  }
  let resetValue = DEFAULT_RATE_OPTIONS.resetValue;
  if (resetText !== '') {
    const v = javaParseLong(resetText);
    if (v === null) throw badQuery(field, `Reset value of counter was not a number, received '${resetText}'`);
    resetValue = Number(v);
  }
  return { counter: kind.endsWith('counter'), counterMax, resetValue, dropResets: kind === 'dropcounter' };
}

/** Tags.parseWithMetricAndFilters: the metric name, and the filters appended to `filters`. */
export function parseMetricAndFilters(metric: string, filters: TagFilter[], field: string): string {
  if (metric === '') throw badQuery(field, 'Metric cannot be null or empty');
  const curly = metric.indexOf('{');
  if (curly < 0) return metric;
  const len = metric.length;
  if (!metric.endsWith('}')) throw badQuery(field, `Missing '}' at the end of: ${metric}`);
  if (curly === len - 2) return metric.substring(0, len - 2);
  const close = metric.indexOf('}');
  if (close !== len - 1) {
    const bracket = metric.lastIndexOf('{');
    for (const filter of metric.substring(bracket + 1, len - 1).split(',')) {
      if (filter === '') break;
      try {
        mapToFilters([parseTagPair(filter)], filters, false);
      } catch (err) {
        if (err instanceof FilterSpecError) throw badQuery(field, `When parsing filter '${filter}': ${err.message}`);
        throw err;
      }
    }
  }
  for (const tag of metric.substring(curly + 1, close).split(',')) {
    if (tag === '' && close !== len - 1) break;
    try {
      mapToFilters([parseTagPair(tag)], filters, true);
    } catch (err) {
      if (err instanceof FilterSpecError) throw badQuery(field, `When parsing tag '${tag}': ${err.message}`);
      throw err;
    }
  }
  return metric.substring(0, curly);
}

/** QueryRpc.parseMTypeSubQuery for one `m=` value. */
export function parseMSubQuery(m: string, field: string): DraftSubQuery {
  if (m === '') throw badQuery(field, 'The query string was empty');
  const parts = m.split(':');
  if (parts.length < 2 || parts.length > 5) {
    throw badQuery(field, `Invalid parameter m=${m} (${parts.length < 2 ? 'not enough' : 'too many'} :-separated parts)`);
  }
  const q = newDraftSubQuery(field);
  q.aggregator = parts[0];
  const filters: TagFilter[] = [];
  q.metric = parseMetricAndFilters(parts[parts.length - 1] ?? '', filters, field);
  q.filters = filters;
  for (const part of parts.slice(1, -1)) {
    const lower = part.toLowerCase();
    if (lower.startsWith('rate')) {
      q.rate = true;
      if (part.includes('{')) q.rateOptions = parseRateSpec(part, `${field}.rate`);
    } else if (part === '') {
      throw badQuery(field, `Invalid parameter m=${m} (empty :-separated part)`);
    } else if (part.charAt(0) >= '0' && part.charAt(0) <= '9') {
      q.downsample = part;
    } else if (lower.startsWith('explicit_tags')) {
      q.explicitTags = true;
    }
    // pre-agg, rollup_*, percentiles…, show-histogram-buckets: rollup/histogram options we do not
    // have; OpenTSDB would act on them, we ignore them (reported in the module's notes).
  }
  return q;
}

function lastParam(params: URLSearchParams, name: string): string | undefined {
  const all = params.getAll(name);
  return all.length === 0 ? undefined : all[all.length - 1];
}

/** `GET /api/query?…`: the URL's parameters and now (epoch ms). */
export function parseQueryString(params: URLSearchParams, nowMs: number): TsdbQuery {
  const start = lastParam(params, 'start');
  if (start === undefined || start === '') throw badQuery('start', 'Missing parameter <code>start</code>');
  if (params.has('tsuid')) {
    throw badQuery('tsuid', 'tsuid queries are not supported', 'This service stores no UIDs: query by metric (m=) instead');
  }
  const queries = params.getAll('m').map((m, i) => parseMSubQuery(m, `m[${i}]`));
  if (params.has('exp')) throw badQuery('exp', 'Expression queries (exp=) are not supported');
  if (queries.length === 0) throw badQuery('m', 'Missing sub queries');
  const draft: DraftQuery = {
    start,
    end: lastParam(params, 'end'),
    timezone: undefined,
    useCalendar: false,
    msResolution: params.has('ms'),
    showQuery: params.has('show_query'),
    arrays: params.has('arrays'),
    queries: dropDuplicateSubQueries(queries),
  };
  return validateQuery(draft, nowMs);
}
