// Pure: the requests Grafana's built-in OpenTSDB datasource sends for a panel target or a template
// variable, rebuilt from its code as test/fixtures/grafana-opentsdb/README.md documents it:
// - browser path (`performTimeSeriesQuery` + `convertTargetToQuery`, grafana-opentsdb-datasource
//   52d3efdbb24c:src/datasource.ts:282-310, :600-739): one POST for all visible targets, epoch ms,
//   each sub-query the whole interpolated target plus rate/rateOptions/downsample;
// - server path (`BuildMetric` / `CreateRequest`, 680d47bebd4e:pkg/opentsdb/utils.go:47-156): one POST
//   per target, epoch seconds, the sub-query as Go marshals a map (sorted keys, HTML-escaped strings);
// - variable queries (`metricFindQuery`, :431-483) on both paths.
// test/unit/compat/grafana-requests.test.ts checks that these builders reproduce the fixtures' bytes.

export interface OpenTsdbFilter {
  readonly type: string;
  readonly tagk: string;
  readonly filter: string;
  readonly groupBy: boolean;
}

/** A panel target as Grafana's OpenTSDB query editor saves it (only the fields the request uses are typed). */
export interface OpenTsdbTarget {
  readonly refId: string;
  readonly datasource?: { readonly type: string; readonly uid: string };
  readonly aggregator?: string;
  readonly downsampleAggregator?: string;
  readonly downsampleFillPolicy?: string;
  readonly metric?: string;
  readonly downsampleInterval?: string;
  readonly disableDownsampling?: boolean;
  readonly filters?: readonly OpenTsdbFilter[];
  readonly tags?: Readonly<Record<string, string>>;
  readonly shouldComputeRate?: boolean;
  readonly isCounter?: boolean;
  readonly counterMax?: string;
  readonly counterResetValue?: string;
  readonly explicitTags?: boolean;
  readonly alias?: string;
  readonly hide?: boolean;
}

export interface ReplayRequest {
  readonly name: string;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | null;
}

/** Variable name → value as Grafana's 'pipe' format gives it (several values joined by `|`). */
export type Vars = Readonly<Record<string, string>>;

export const BROWSER_HEADERS = { accept: 'application/json, text/plain, */*' } as const;
const BROWSER_POST_HEADERS = { 'content-type': 'application/json', ...BROWSER_HEADERS } as const;
const SERVER_POST_HEADERS = { 'content-type': 'application/json' } as const;

/** templateSrv.replace for plain `$name` / `${name}` references. */
export function replaceVars(text: string, vars: Vars): string {
  return text.replace(/\$\{(\w+)\}|\$(\w+)/g, (whole, braced: string | undefined, bare: string | undefined) => vars[braced ?? bare ?? ''] ?? whole);
}

type Mutable = Record<string, unknown>;

/** interpolateVariablesInQuery: a deep clone with metric, aggregator (default avg), filters / tags and the text fields replaced. */
function interpolate(target: OpenTsdbTarget, vars: Vars): Mutable {
  const q = structuredClone(target) as unknown as Mutable;
  q['metric'] = replaceVars(target.metric ?? '', vars);
  q['aggregator'] = target.aggregator === undefined || target.aggregator === '' ? 'avg' : replaceVars(target.aggregator, vars);
  if (target.filters !== undefined && target.filters.length > 0) {
    q['filters'] = target.filters.map((f) => ({ ...f, tagk: replaceVars(f.tagk, vars), filter: replaceVars(f.filter, vars) }));
  } else if (target.tags !== undefined) {
    q['tags'] = Object.fromEntries(Object.entries(target.tags).map(([k, v]) => [k, replaceVars(v, vars)]));
  }
  for (const k of ['downsampleInterval', 'alias', 'downsampleAggregator', 'downsampleFillPolicy', 'counterMax', 'counterResetValue'] as const) {
    const v = target[k];
    if (v !== undefined && v !== '') q[k] = replaceVars(v, vars);
  }
  return q;
}

/** The browser path's downsample: `interval-agg[-fill]`, a fractional-seconds interval in ms. */
function browserDownsample(target: OpenTsdbTarget, interval: string, vars: Vars): string {
  let iv = replaceVars(target.downsampleInterval !== undefined && target.downsampleInterval !== '' ? target.downsampleInterval : interval, vars);
  if (/\.[0-9]+s/.test(iv)) iv = `${String(parseFloat(iv) * 1000)}ms`;
  const fill = target.downsampleFillPolicy;
  return `${iv}-${String(target.downsampleAggregator)}${fill !== undefined && fill !== '' && fill !== 'none' ? `-${fill}` : ''}`;
}

/** convertTargetToQuery (browser path), or null for a hidden or metric-less target. */
export function browserSubQuery(target: OpenTsdbTarget, o: { readonly tsdbVersion: number; readonly interval: string; readonly vars: Vars }): Mutable | null {
  if (target.metric === undefined || target.metric === '' || target.hide === true) return null;
  const q = interpolate(target, o.vars);
  if (target.shouldComputeRate === true) {
    const rateOptions: Mutable = { counter: target.isCounter === true };
    if (target.counterMax !== undefined && target.counterMax.length > 0) rateOptions['counterMax'] = parseInt(target.counterMax, 10);
    if (target.counterResetValue !== undefined && target.counterResetValue.length > 0) rateOptions['resetValue'] = parseInt(target.counterResetValue, 10);
    // Grafana tests the misspelt `ResetValue`, which is never set: dropResets === !counterMax.
    if (o.tsdbVersion >= 2) rateOptions['dropResets'] = !(rateOptions['counterMax'] as number | undefined);
    q['rate'] = true;
    q['rateOptions'] = rateOptions;
  }
  if (target.disableDownsampling !== true) q['downsample'] = browserDownsample(target, o.interval, o.vars);
  if (target.explicitTags === true) q['explicitTags'] = true;
  return q;
}

export interface BrowserQueryOptions {
  readonly name: string;
  readonly tsdbVersion: number;
  /** 1 = seconds, 2 = milliseconds */
  readonly tsdbResolution: number;
  readonly startMs: number;
  /** null: the range ends at `now` (Grafana leaves `end` out) */
  readonly endMs: number | null;
  /** the panel's query interval (`options.interval`), used when a target has no downsampleInterval */
  readonly interval: string;
  readonly vars: Vars;
}

/** The browser path's POST /api/query for a panel's targets (null when no target is sent). */
export function browserQueryRequest(targets: readonly OpenTsdbTarget[], o: BrowserQueryOptions): ReplayRequest | null {
  const queries = targets.map((t) => browserSubQuery(t, o)).filter((q): q is Mutable => q !== null);
  if (queries.length === 0) return null;
  const body: Mutable = { start: o.startMs, queries, msResolution: o.tsdbResolution === 2, globalAnnotations: true };
  if (o.tsdbVersion === 3) body['showQuery'] = true;
  if (o.endMs !== null) body['end'] = o.endMs;
  return { name: o.name, method: 'POST', path: '/api/query', headers: BROWSER_POST_HEADERS, body: JSON.stringify(body) };
}

/** encoding/json.Marshal: object keys sorted bytewise at every level, `<` `>` `&` escaped. */
export function goJson(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (typeof v !== 'object' || v === null) return v;
    const keys = Object.keys(v).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    return Object.fromEntries(keys.map((k) => [k, sort((v as Mutable)[k])]));
  };
  return JSON.stringify(sort(value)).replaceAll('<', '\\u003c').replaceAll('>', '\\u003e').replaceAll('&', '\\u0026');
}

/** FormatDownsampleInterval (utils.go:22-45). */
export function formatDownsampleInterval(ms: number): string {
  const s = Math.trunc(ms / 1000);
  if (s < 60) return s < 1 ? `${ms}ms` : `${s}s`;
  const m = Math.trunc(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.trunc(m / 60);
  return h < 24 ? `${h}h` : `${Math.trunc(h / 24)}d`;
}

/** BuildMetric (utils.go:47-130) on an interpolated target. */
export function serverSubQuery(target: OpenTsdbTarget, o: { readonly intervalMs: number; readonly vars: Vars }): Mutable {
  const t = interpolate(target, o.vars) as OpenTsdbTarget & Mutable;
  const m: Mutable = { metric: t.metric ?? '', aggregator: t.aggregator ?? '' };
  if (t.disableDownsampling !== true) {
    let iv = t.downsampleInterval ?? '';
    if (iv === '') iv = o.intervalMs > 0 ? formatDownsampleInterval(o.intervalMs) : '1m';
    else if (iv.includes('.') && iv.endsWith('s') && Number.isFinite(Number(iv.slice(0, -1)))) iv = `${Math.trunc(Number(iv.slice(0, -1)) * 1000)}ms`;
    const fill = t.downsampleFillPolicy ?? '';
    m['downsample'] = `${iv}-${t.downsampleAggregator ?? ''}${fill !== '' && fill !== 'none' ? `-${fill}` : ''}`;
  }
  if (t.shouldComputeRate === true) {
    const num = (s: string | undefined): number | undefined => (s === undefined || s === '' || !Number.isFinite(Number(s)) ? undefined : Number(s));
    const counterMax = num(t.counterMax);
    const resetValue = num(t.counterResetValue);
    const ro: Mutable = { counter: t.isCounter === true };
    if (counterMax !== undefined) ro['counterMax'] = counterMax;
    if (resetValue !== undefined) ro['resetValue'] = resetValue;
    if (counterMax === undefined && (resetValue === undefined || resetValue === 0)) ro['dropResets'] = true;
    m['rate'] = true;
    m['rateOptions'] = ro;
  }
  if (t.tags !== undefined && Object.keys(t.tags).length > 0) m['tags'] = t.tags;
  if (t.filters !== undefined && t.filters.length > 0) m['filters'] = t.filters;
  if (t.explicitTags === true) m['explicitTags'] = true;
  return m;
}

export interface ServerQueryOptions {
  readonly name: string;
  readonly tsdbVersion: number;
  readonly fromMs: number;
  readonly toMs: number;
  readonly intervalMs: number;
  readonly vars: Vars;
}

/** QueryData (opentsdb.go:152-208): one POST per visible target with a metric; seconds; `?arrays=true` for version 4. */
export function serverQueryRequests(targets: readonly OpenTsdbTarget[], o: ServerQueryOptions): ReplayRequest[] {
  return targets
    .filter((t) => t.hide !== true && t.metric !== undefined && t.metric !== '')
    .map((t) => ({
      name: `${o.name} [${t.refId}]`,
      method: 'POST',
      path: o.tsdbVersion === 4 ? '/api/query?arrays=true' : '/api/query',
      headers: SERVER_POST_HEADERS,
      // OpenTsdbQuery is a struct (fields in declaration order: start, end, queries); each query a map.
      body: `{"start":${Math.trunc(o.fromMs / 1000)},"end":${Math.trunc(o.toMs / 1000)},"queries":${goJson([serverSubQuery(t, o)])}}`,
    }));
}

/** url.QueryEscape: everything but A-Z a-z 0-9 - _ . ~ escaped, space as `+`. */
export function goQueryEscape(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replaceAll('%20', '+');
}

export interface VariableQueryOptions {
  readonly name: string;
  readonly route: 'browser' | 'server';
  readonly lookupLimit: number;
  readonly vars: Vars;
}

/** metricFindQuery: the GET a variable query sends (null for a query the datasource does not recognise). */
export function variableRequest(query: string, o: VariableQueryOptions): ReplayRequest | null {
  const q = replaceVars(query, o.vars);
  const headers = o.route === 'browser' ? BROWSER_HEADERS : {};
  const get = (path: string): ReplayRequest => ({ name: o.name, method: 'GET', path, headers, body: null });
  const suggest = (type: string, prefix: string): ReplayRequest => get(`/api/suggest?type=${type}&q=${encodeURIComponent(prefix)}&max=${o.lookupLimit}`);
  const metrics = /metrics\((.*)\)/.exec(q);
  if (metrics !== null) return suggest('metrics', metrics[1] ?? '');
  const names = /tag_names\((.*)\)/.exec(q);
  if (names !== null) {
    const metric = names[1] ?? '';
    return get(
      o.route === 'browser' ? `/api/search/lookup?m=${encodeURIComponent(metric)}&limit=1000` : `/api/search/lookup?limit=1000&m=${goQueryEscape(metric)}`,
    );
  }
  const values = /tag_values\((.*?),\s?(.*)\)/.exec(q);
  if (values !== null) {
    const keys = (values[2] ?? '').split(',').map((k) => k.trim());
    const m = `${values[1] ?? ''}{${keys[0] ?? ''}=*${keys.length > 1 ? `,${keys.slice(1).join(',')}` : ''}}`;
    return get(
      o.route === 'browser'
        ? `/api/search/lookup?m=${encodeURIComponent(m)}&limit=${o.lookupLimit}`
        : `/api/search/lookup?limit=${o.lookupLimit}&m=${goQueryEscape(m)}`,
    );
  }
  const tagk = /suggest_tagk\((.*)\)/.exec(q);
  if (tagk !== null) return suggest('tagk', tagk[1] ?? '');
  const tagv = /suggest_tagv\((.*)\)/.exec(q);
  if (tagv !== null) return suggest('tagv', tagv[1] ?? '');
  return null;
}
