// Pure: OpenTSDB 2.4's /api/search/lookup and /api/suggest over the series catalog. Unlike OpenTSDB,
// whose look-up answers nothing unless its opt-in meta tables are on (OpenTSDB #2052), ours always
// answers from the catalog, which ingest keeps.
//   lookup: `m=<metric>{<tagk>=<tagv>,…}` (GET) or {"metric":…,"tags":[{"key":…,"value":…}],"limit":…}
//   (POST); a `*` key or value is a wildcard, the metric may be empty or `*` (every metric). Answer:
//   {"type":"LOOKUP","metric":…,"tags":[{"key","value"}],"limit":n,"time":ms,"results":[{"tsuid",
//   "metric","tags"}],"startIndex":0,"totalResults":n}.
//   suggest: type metrics | tagk | tagv, q (a prefix; absent = all), max (default 25): a JSON array.
import { createHash } from 'node:crypto';
import { badQuery } from '../series-language/errors.ts';
import type { CatalogSeries, SeriesCatalog } from '../series-query/execute.ts';
import { Slices } from '../toolkit/slices.ts';
import type { TagFilter } from '../series-language/types.ts';

export interface LookupRequest {
  /** '' for every metric */
  readonly metric: string;
  readonly tags: readonly { readonly key: string; readonly value: string }[];
  readonly limit: number;
}

const DEFAULT_LIMIT = 25;

function limitOf(text: unknown, field: string): number {
  if (text === undefined || text === null || text === '') return DEFAULT_LIMIT;
  const n = typeof text === 'number' ? text : Number(text);
  if (!Number.isInteger(n) || n < 0) throw badQuery(field, `Unable to parse the limit: ${JSON.stringify(text)}`);
  // Grafana's server path sends limit=0 when the datasource has no lookupLimit: no limit.
  return n === 0 ? Number.MAX_SAFE_INTEGER : n;
}

/** `m=temp{site=*,id=dev-1}` → metric and tag pairs (Tags.parseWithMetric). */
export function parseLookupM(m: string): { metric: string; tags: { key: string; value: string }[] } {
  const curly = m.indexOf('{');
  if (curly < 0) return { metric: m === '*' ? '' : m, tags: [] };
  if (!m.endsWith('}')) throw badQuery('m', `Missing '}' at the end of: ${m}`);
  const metric = m.slice(0, curly);
  const tags: { key: string; value: string }[] = [];
  for (const pair of m.slice(curly + 1, -1).split(',')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    if (eq <= 0 || eq === pair.length - 1) throw badQuery('m', `Invalid tag: ${pair}`);
    tags.push({ key: pair.slice(0, eq), value: pair.slice(eq + 1) });
  }
  return { metric: metric === '*' ? '' : metric, tags };
}

export function lookupFromQuery(params: URLSearchParams): LookupRequest {
  const m = params.get('m');
  if (m === null || m === '') throw badQuery('m', 'Missing the m parameter (a metric, optionally with {tagk=tagv,…})');
  return { ...parseLookupM(m), limit: limitOf(params.get('limit') ?? undefined, 'limit') };
}

export function lookupFromBody(json: unknown): LookupRequest {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw badQuery('body', 'Unable to parse the given JSON');
  const o = json as Record<string, unknown>;
  const metric = typeof o['metric'] === 'string' ? o['metric'] : '';
  const raw = Array.isArray(o['tags']) ? (o['tags'] as unknown[]) : [];
  const tags = raw.map((t, i) => {
    const p = (typeof t === 'object' && t !== null ? t : {}) as Record<string, unknown>;
    if (typeof p['key'] !== 'string' || typeof p['value'] !== 'string') throw badQuery(`tags[${i}]`, 'A tag pair needs a string key and value');
    return { key: p['key'], value: p['value'] };
  });
  return { metric: metric === '*' ? '' : metric, tags, limit: limitOf(o['limit'], 'limit') };
}

/** A stable stand-in for OpenTSDB's tsuid (we have no UIDs): hex of a digest of the series. */
function tsuidOf(s: CatalogSeries): string {
  const keys = Object.keys(s.tags).sort();
  return createHash('sha1')
    .update(JSON.stringify([s.metric, keys.map((k) => [k, s.tags[k]])]))
    .digest('hex')
    .slice(0, 24)
    .toUpperCase();
}

/** The look-up's answer; the catalog is filtered in slices of the event loop (slices.ts), `now` read when it is done. */
export async function lookupAnswer(req: LookupRequest, catalog: SeriesCatalog, started: number, now: () => number): Promise<Record<string, unknown>> {
  const filters: TagFilter[] = [];
  const anyKeyValues: string[] = [];
  for (const t of req.tags) {
    if (t.key === '*') {
      if (t.value !== '*') anyKeyValues.push(t.value);
      continue;
    }
    filters.push(
      t.value === '*' ? { type: 'wildcard', tagk: t.key, filter: '*', groupBy: false } : { type: 'literal_or', tagk: t.key, filter: t.value, groupBy: false },
    );
  }
  const metric = req.metric === '' ? undefined : req.metric;
  let series = (await catalog.lookupSliced(metric, filters, Number.POSITIVE_INFINITY, new Slices())).series;
  if (anyKeyValues.length > 0) series = series.filter((s) => anyKeyValues.every((v) => Object.values(s.tags).includes(v)));
  const shown = series.slice(0, req.limit).map((s) => ({ tsuid: tsuidOf(s), metric: s.metric, tags: s.tags }));
  return {
    type: 'LOOKUP',
    metric: req.metric === '' ? '*' : req.metric,
    tags: req.tags,
    limit: req.limit === Number.MAX_SAFE_INTEGER ? 0 : req.limit,
    time: now() - started,
    results: shown,
    startIndex: 0,
    totalResults: series.length,
  };
}

export type SuggestType = 'metrics' | 'tagk' | 'tagv';

export function suggestAnswer(params: URLSearchParams | Record<string, unknown>, catalog: SeriesCatalog): string[] {
  const get = (k: string): unknown => (params instanceof URLSearchParams ? (params.get(k) ?? undefined) : params[k]);
  const type = get('type');
  if (type !== 'metrics' && type !== 'tagk' && type !== 'tagv') throw badQuery('type', `Invalid 'type' parameter:${String(type)}`);
  const q = get('q');
  const prefix = typeof q === 'string' ? q : '';
  const maxText = get('max');
  const max = maxText === undefined || maxText === '' ? DEFAULT_LIMIT : Number(maxText);
  if (!Number.isInteger(max) || max < 0) throw badQuery('max', `Unable to parse 'max' as a number: ${String(maxText)}`);
  if (type === 'metrics') return catalog.metrics(prefix, max);
  return type === 'tagk' ? catalog.tagKeys(prefix, max) : catalog.tagValues(prefix, max);
}
