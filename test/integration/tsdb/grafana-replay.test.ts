// Grafana's OpenTSDB datasource against the real service on the real stack, with no Grafana: a day of
// `temp` (3 sites × 4 ids, tags site and id; the compat generator of scripts/lib/compat/dataset.ts)
// goes through Kafka into the service, the rollup job summarises its hours, then
// 1. every request of test/fixtures/grafana-opentsdb/requests.json is replayed byte for byte (method,
//    path and query string, headers, body) and each answer must have the status and the shape the
//    fixture README says Grafana parses on that request's path;
// 2. every template variable and every panel target of the generated stored-series dashboard
//    (scripts/dashboard/stored-series.ts) is turned into the requests Grafana would send, on the
//    browser path and on the server path (test/support/grafana-opentsdb.ts, checked against the
//    fixtures by test/unit/tsdb/grafana-requests.test.ts), and must answer 200 with data;
// 3. the datasource provisioning files parse and point at the service.
//
// Rewrites: none. The data set covers 2026-11-24T12:00Z–2026-11-25T12:00Z, the fixtures' own day
// (their "now" is 2026-11-25T12:00:00.123Z, their ranges "last 6 h", "last 24 h" and 00:00–12:00 of
// the 25th), and it uses the fixtures' names (metric `temp`, tags `site` = north/south/west and `id`),
// so every request is sent exactly as recorded. The relative requests without `end` end at the
// server's real clock, which is after the data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { events } from '../../../scripts/lib/compat/dataset.ts';
import { OPENTSDB_DATASOURCE, buildStoredSeriesDashboard } from '../../../scripts/dashboard/stored-series.ts';
import { browserQueryRequest, serverQueryRequests, variableRequest, type OpenTsdbTarget } from '../../support/grafana-opentsdb.ts';
import { openTsdbDatasource, provisionedDatasources, type OpenTsdbDatasource } from '../../support/grafana-provisioning.ts';
import { hashPassword } from '../../../src/front-door/credentials.ts';
import { uniqueName } from '../../support/env.ts';
import { createHarness, produceEvents, startInProcess, waitFor, waitForEvents } from '../../support/service-harness.ts';

const ROOT = join(import.meta.dirname, '../../..');
const GRAFANA_PASSWORD = 'grafana-replay-pw-7d1e';
/** What Grafana's datasource proxy adds to every request with basicAuth on. */
const GRAFANA_BASIC = `Basic ${Buffer.from(`grafana:${GRAFANA_PASSWORD}`).toString('base64')}`;
const HOUR = 3_600_000;
/** The fixtures' day: from "now − 24 h" (2026-11-24T12:00Z) to "now" (2026-11-25T12:00Z), whole hours. */
export const DATA = { name: 'grafana', startMs: Date.UTC(2026, 10, 24, 12), hours: 24, seed: 20_241 } as const;
const IDS = ['n01', 'n02', 'n03', 'n04'];
/** TSI_GRAFANA_REPLAY_DUMP=<dir>: also write every answer body there (<request name>.json), to read them. */
const DUMP = process.env['TSI_GRAFANA_REPLAY_DUMP'];
if (DUMP !== undefined) mkdirSync(DUMP, { recursive: true });

interface Fixture {
  readonly name: string;
  readonly route: 'browser' | 'server' | 'server-legacy';
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | null;
  readonly timeUnit: 'ms' | 's' | null;
}

export interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly plan: string;
  readonly text: string;
}

/** Sends the request as given: the path goes on the wire unchanged (no URL normalisation), the body as its exact bytes. */
export function send(port: number, r: { method: string; path: string; headers: Readonly<Record<string, string>>; body: string | null }, authorization?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...r.headers, ...(authorization === undefined ? {} : { authorization }) };
    if (r.body !== null) headers['content-length'] = String(Buffer.byteLength(r.body));
    const req = request({ host: '127.0.0.1', port, method: r.method, path: r.path, headers, timeout: 60_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => { chunks.push(c); });
      res.on('end', () => { resolve({
        status: res.statusCode ?? 0,
        contentType: res.headers['content-type'] ?? '',
        plan: String(res.headers['x-tsingest-plan'] ?? ''),
        text: Buffer.concat(chunks).toString('utf8'),
      }); });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${r.method} ${r.path}: no answer within 60 s`)));
    req.on('error', reject);
    req.end(r.body ?? undefined);
  });
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface SeriesShape {
  /** the request's `queries` (to check query.index) */
  readonly subQueries: number;
  /** ?arrays=true: dps as [[ts, v], …] */
  readonly arrays: boolean;
  /** timestamps in ms (msResolution) or seconds */
  readonly unit: 'ms' | 's';
  /** the request's range in that unit (end: the server's now when the request has none) */
  readonly start: number;
  readonly end: number;
  /** tsdbVersion 3 on the browser path: query.index required */
  readonly needsIndex: boolean;
  /** the server path: Go's decoder (numbers or null only, integer keys) */
  readonly goDecoder: boolean;
}

/** The shape both of Grafana's parsers need from an /api/query answer; returns the problems found and the points. */
export function seriesProblems(text: string, s: SeriesShape): { problems: string[]; series: number; points: number; indexes: Set<number> } {
  const problems: string[] = [];
  const indexes = new Set<number>();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    return { problems: [`not JSON (a bare NaN?): ${String(err)}`], series: 0, points: 0, indexes };
  }
  if (!Array.isArray(body)) return { problems: ['not an array'], series: 0, points: 0, indexes };
  let points = 0;
  const stamp = (ts: number, where: string): void => {
    if (!Number.isSafeInteger(ts)) problems.push(`${where}: timestamp ${ts} is not an integer`);
    else if (s.unit === 'ms' ? ts < 1e12 || ts >= 1e13 : ts < 1e9 || ts >= 1e10) problems.push(`${where}: timestamp ${ts} is not epoch ${s.unit}`);
    else if (ts < s.start - (s.unit === 'ms' ? 86_400_000 : 86_400) || ts > s.end) problems.push(`${where}: timestamp ${ts} outside the range [${s.start}, ${s.end}]`);
  };
  const value = (v: unknown, where: string): void => {
    if (v === null || (typeof v === 'number' && Number.isFinite(v))) return;
    if (s.goDecoder || typeof v !== 'string') problems.push(`${where}: value ${JSON.stringify(v)} is not a number or null`);
  };
  body.forEach((el: unknown, i) => {
    const w = `series ${i}`;
    if (!isObj(el)) return void problems.push(`${w}: not an object`);
    if (typeof el['metric'] !== 'string') problems.push(`${w}: metric is not a string`);
    const tags = el['tags'];
    if (!isObj(tags)) problems.push(`${w}: tags is not an object`);
    else for (const [k, v] of Object.entries(tags)) if (typeof v !== 'string') problems.push(`${w}: tag ${k} is not a string`);
    const agg = el['aggregateTags'];
    if (!Array.isArray(agg) || agg.some((x) => typeof x !== 'string')) problems.push(`${w}: aggregateTags is not an array of strings`);
    for (const key of ['annotations', 'globalAnnotations']) {
      const anns = el[key];
      if (anns === undefined) continue;
      if (!Array.isArray(anns) || anns.some((a) => !isObj(a) || typeof a['description'] !== 'string' || typeof a['startTime'] !== 'number')) problems.push(`${w}: ${key} is not [{description, startTime}]`);
    }
    if (s.needsIndex) {
      const q = el['query'];
      const index = isObj(q) ? q['index'] : undefined;
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= s.subQueries) problems.push(`${w}: query.index ${JSON.stringify(index)} is not a sub-query position`);
      else indexes.add(index);
    }
    const dps = el['dps'];
    if (s.arrays) {
      if (!Array.isArray(dps)) return void problems.push(`${w}: dps is not an array`);
      dps.forEach((p: unknown, j) => {
        if (!Array.isArray(p) || p.length < 2 || typeof p[0] !== 'number') return void problems.push(`${w} point ${j}: not [ts, value]`);
        stamp(p[0], `${w} point ${j}`);
        value(p[1], `${w} point ${j}`);
      });
      points += dps.length;
    } else {
      if (!isObj(dps)) return void problems.push(`${w}: dps is not an object`);
      for (const [k, v] of Object.entries(dps)) {
        if (!/^\d+$/.test(k)) problems.push(`${w}: dps key ${k} is not an integer`);
        else stamp(Number(k), `${w} dps ${k}`);
        value(v, `${w} dps ${k}`);
      }
      points += Object.keys(dps).length;
    }
  });
  return { problems: problems.slice(0, 10), series: body.length, points, indexes };
}

/** Keys in the `dps` objects of the answer text that repeat within one object (JSON.parse and Go keep the last). */
function repeatedKeys(text: string): number {
  let repeated = 0;
  for (const m of text.matchAll(/"dps":\{([^}]*)\}/g)) {
    const keys = [...(m[1] ?? '').matchAll(/"(\d+)":/g)].map((k) => k[1]);
    repeated += keys.length - new Set(keys).size;
  }
  return repeated;
}

interface DashboardJson {
  readonly templating: { readonly list: readonly { readonly name: string; readonly query: string; readonly includeAll: boolean; readonly current: { readonly value?: string | readonly string[] } }[] };
  readonly panels: readonly { readonly title: string; readonly targets?: readonly OpenTsdbTarget[] }[];
}

/** What Grafana makes of a variable query's answer: suggest → the strings; tag_values → results[*].tags[key], de-duplicated. */
function variableValues(query: string, body: unknown): string[] {
  if (Array.isArray(body)) return body.filter((x): x is string => typeof x === 'string');
  const key = /tag_values\((.*?),\s?(.*)\)/.exec(query)?.[2]?.split(',')[0]?.trim() ?? '';
  const results = isObj(body) && Array.isArray(body['results']) ? (body['results'] as { tags: Record<string, string> }[]) : [];
  return [...new Set(results.map((r) => r.tags[key]).filter((v): v is string => v !== undefined))];
}

function jsonOf(a: Answer): unknown {
  return JSON.parse(a.text) as unknown;
}

/** What each fixture must answer, beyond its status and content type. */
function checkFixture(f: Fixture, a: Answer, nowMs: number): string[] {
  const path = f.path.split('?')[0];
  const problems: string[] = [];
  const expect = (ok: boolean, what: string): void => { if (!ok) problems.push(what); };
  expect(a.status === 200, `status ${a.status} (${a.text.slice(0, 300)})`);
  expect(/^application\/json/.test(a.contentType), `content-type ${a.contentType}`);
  if (a.status !== 200) return problems;
  if (path === '/api/query') {
    const body = JSON.parse(f.body ?? '{}') as { start: number; end?: number; queries: { metric: string }[]; msResolution?: boolean; showQuery?: boolean };
    const unit = body.msResolution === true ? 'ms' : 's';
    const toUnit = (t: number): number => (unit === 'ms' ? (t < 1e12 ? t * 1000 : t) : t >= 1e12 ? Math.trunc(t / 1000) : t);
    const shape: SeriesShape = {
      subQueries: body.queries.length,
      arrays: f.path.includes('arrays=true'),
      unit,
      start: toUnit(body.start),
      end: toUnit(body.end ?? nowMs),
      needsIndex: f.route === 'browser' && body.showQuery === true,
      goDecoder: f.route !== 'browser',
    };
    const r = seriesProblems(a.text, shape);
    problems.push(...r.problems);
    expect(r.series > 0 && r.points > 0, `no data (${r.series} series, ${r.points} points)`);
    if (shape.needsIndex) expect(r.indexes.size === body.queries.length, `query.index covers ${[...r.indexes].join(',')} of ${body.queries.length} sub-queries`);
    if (f.route === 'browser' && body.showQuery !== true) {
      const metrics = new Set(body.queries.map((q) => q.metric));
      expect((jsonOf(a) as Obj[]).every((s) => metrics.has(String(s['metric']))), 'a series metric matches no target (Grafana maps it to target 0)');
    }
    return problems;
  }
  const body = jsonOf(a);
  if (path === '/api/suggest') {
    expect(Array.isArray(body) && body.every((x) => typeof x === 'string'), 'suggest: not an array of strings');
    const q = new URLSearchParams(f.path.split('?')[1]).get('q') ?? '';
    const expected: Record<string, (v: string[]) => boolean> = {
      te: (v) => v.includes('temp') && v.every((x) => x.startsWith('te')),
      '': (v) => v.includes('temp') && v.includes('hum'),
      si: (v) => v.includes('site') && v.every((x) => x.startsWith('si')),
      nor: (v) => v.includes('north') && v.every((x) => x.startsWith('nor')),
      cpu: (v) => v.length === 0,
    };
    expect(expected[q]?.(body as string[]) ?? false, `suggest q=${q}: unexpected ${a.text}`);
  } else if (path === '/api/search/lookup') {
    const results = isObj(body) ? body['results'] : undefined;
    expect(Array.isArray(results) && results.every((r) => isObj(r) && isObj(r['tags']) && Object.values(r['tags']).every((v) => typeof v === 'string')), 'lookup: results[*].tags is not string tags');
    const tags = Array.isArray(results) ? results.map((r) => (r as { tags: Record<string, string> }).tags) : [];
    const m = decodeURIComponent(new URLSearchParams(f.path.split('?')[1]).get('m') ?? '');
    if (m.includes('{')) expect(JSON.stringify([...new Set(tags.map((t) => t['id']))].sort()) === JSON.stringify(IDS), `lookup ${m}: ids ${JSON.stringify(tags.map((t) => t['id']))}`);
    else expect(tags.some((t) => 'site' in t && 'id' in t), `lookup ${m}: tag names lack site/id`);
  } else if (path === '/api/aggregators') {
    expect(Array.isArray(body) && body.every((x) => typeof x === 'string') && ['sum', 'avg', 'count', 'max', 'min'].every((x) => (body).includes(x)), 'aggregators: not an array of names');
  } else if (path === '/api/config/filters') {
    expect(isObj(body) && ['literal_or', 'iliteral_or', 'wildcard', 'regexp', 'not_literal_or'].every((k) => k in body), 'config/filters: not an object keyed by filter name');
  } else {
    problems.push(`unexpected path ${path}`);
  }
  return problems;
}

void test('Grafana\'s OpenTSDB requests, replayed against the service', async (t) => {
  const h = await createHarness(t, {
    prefix: 'graf',
    partitions: 2,
    sets: ['rollup.windows=["1h","1d"]', 'rollup.graceMs=0', 'rollup.markerSettleMs=0', 'rollup.intervalMs=2000', 'series.catalogRefreshMs=2000'],
  });
  // `temp` for the whole day; `hum` for its first two hours, so metric suggestions have two names.
  const data = events(DATA)
    .filter((e) => e.metric === 'temp' || (e.metric === 'hum' && e.ts < DATA.startMs + 2 * HOUR))
    .map((e) => ({ id: e.id, ts: e.ts, metric: e.metric, value: e.value, tags: e.tags }));
  // The port with credentials on, as the provisioned datasource reaches it: the Basic user grafana (scope read).
  const credentials = { users: [{ name: 'grafana', scrypt: await hashPassword(GRAFANA_PASSWORD), scopes: ['read'] }] };
  const svc = await startInProcess(h, [`kafka.groupId=${uniqueName('it-graf')}`, 'http.port=0', `http.auth.credentials=${JSON.stringify(credentials)}`]);
  await produceEvents(h, data);
  await waitForEvents(svc, data.length, 300_000);
  const port = svc.httpPort;
  const endMs = DATA.startMs + DATA.hours * HOUR;
  const hourly = JSON.stringify({ start: DATA.startMs, end: endMs - 1, queries: [{ aggregator: 'avg', metric: 'temp', downsample: '1h-avg' }] });
  await waitFor('the rollup job summarised every hour', 300_000, async () => /^rollup:3600s;raw-buckets=0(;|$)/.test((await send(port, { method: 'POST', path: '/api/query', headers: { 'content-type': 'application/json' }, body: hourly }, GRAFANA_BASIC)).plan), 1000);

  const anonymous = await send(port, { method: 'POST', path: '/api/query', headers: { 'content-type': 'application/json' }, body: hourly });
  assert.equal(anonymous.status, 401, 'without the datasource\'s Basic credentials: 401');

  await t.test('every fixture request answers with the status and shape Grafana parses', async () => {
    const fixtures = (JSON.parse(readFileSync(join(ROOT, 'test/fixtures/grafana-opentsdb/requests.json'), 'utf8')) as { requests: Fixture[] }).requests;
    const failures: string[] = [];
    const lines: string[] = [];
    for (const f of fixtures) {
      const a = await send(port, f, GRAFANA_BASIC);
      if (DUMP !== undefined) writeFileSync(join(DUMP, `${f.name}.json`), a.text);
      const problems = checkFixture(f, a, Date.now());
      const repeats = f.path.startsWith('/api/query') ? repeatedKeys(a.text) : 0;
      lines.push(`${f.name}: ${a.status} ${a.text.length} B${a.plan === '' ? '' : ` plan=${a.plan}`}${repeats > 0 ? ` repeated-dps-keys=${repeats}` : ''}`);
      failures.push(...problems.map((p) => `${f.name} (${f.method} ${f.path}): ${p}`));
    }
    t.diagnostic(`replayed ${fixtures.length} requests, 0 rewritten`);
    for (const line of lines) t.diagnostic(line);
    assert.ok(fixtures.length >= 20);
    assert.deepEqual(failures, [], 'every fixture answered as Grafana needs');
  });
  const compose = join(ROOT, 'deploy/grafana/provisioning/datasources/opentsdb.yml');
  let settings: OpenTsdbDatasource | undefined;
  await t.test('the provisioning files parse: type opentsdb, the service\'s URL, jsonData as the datasource reads it', () => {
    settings = openTsdbDatasource(compose);
    assert.equal(settings.url, 'https://ingest:9464', 'compose: the ingest service, its HTTPS port');
    assert.equal(settings.uid, OPENTSDB_DATASOURCE['uid'], 'the uid the stored-series dashboard uses');
    assert.equal(typeof settings.lookupLimit, 'number');
    assert.deepEqual(provisionedDatasources(join(ROOT, 'deploy/grafana/provisioning/datasources/prometheus.yml')).map((d) => d['type']), ['prometheus'], 'the Prometheus datasource is kept');
    const k8s = openTsdbDatasource(join(ROOT, 'deploy/grafana/k8s-datasources.yml'));
    assert.equal(k8s.url, 'https://tsingest-metrics.tsingest.svc.cluster.local:9464');
    assert.deepEqual({ ...k8s, url: '' }, { ...settings, url: '' }, 'Kubernetes: the same datasource');
  });

  await t.test('the stored-series dashboard: each variable and panel, as Grafana sends it on both paths, answers with data', async () => {
    const ds = settings ?? openTsdbDatasource(compose);
    const dashboard = buildStoredSeriesDashboard() as unknown as DashboardJson;
    const failures: string[] = [];
    const lines: string[] = [];
    const vars: Record<string, string> = {};
    for (const v of dashboard.templating.list) {
      const answers: string[][] = [];
      for (const route of ['browser', 'server'] as const) {
        const req = variableRequest(v.query, { name: `variable ${v.name} (${route})`, route, lookupLimit: ds.lookupLimit, vars });
        assert.ok(req !== null, `variable ${v.name}: ${v.query} is a query the datasource sends`);
        const a = await send(port, req, GRAFANA_BASIC);
        const values = a.status === 200 ? variableValues(v.query, JSON.parse(a.text) as unknown) : [];
        lines.push(`${req.name}: ${req.method} ${req.path} -> ${a.status} ${JSON.stringify(values)}`);
        if (a.status !== 200 || values.length === 0) failures.push(`${req.name}: ${a.status} no values (${a.text.slice(0, 200)})`);
        answers.push(values);
      }
      assert.deepEqual(answers[0], answers[1], `variable ${v.name}: both paths give the same values`);
      const values = answers[0] ?? [];
      const current = v.current.value;
      // All (a multi variable) = every value in Grafana's pipe format; otherwise the current value, or the first.
      vars[v.name] = v.includeAll && Array.isArray(current) && current.includes('$__all') ? values.join('|') : typeof current === 'string' && values.includes(current) ? current : (values[0] ?? '');
    }
    assert.equal(vars['metric'], 'temp');
    const ranges = { startMs: DATA.startMs, endMs };
    for (const panel of dashboard.panels.filter((p) => p.targets !== undefined)) {
      const targets = panel.targets ?? [];
      const browser = browserQueryRequest(targets, { name: `${panel.title} (browser)`, tsdbVersion: ds.tsdbVersion, tsdbResolution: ds.tsdbResolution, startMs: ranges.startMs, endMs: ranges.endMs, interval: '1m', vars });
      assert.ok(browser !== null);
      const server = serverQueryRequests(targets, { name: `${panel.title} (server)`, tsdbVersion: ds.tsdbVersion, fromMs: ranges.startMs, toMs: ranges.endMs, intervalMs: 60_000, vars });
      for (const req of [browser, ...server]) {
        const a = await send(port, req, GRAFANA_BASIC);
        const isBrowser = req === browser;
        const unit = isBrowser && ds.tsdbResolution === 2 ? 'ms' : 's';
        const scale = unit === 'ms' ? 1 : 1000;
        const r = a.status === 200
          ? seriesProblems(a.text, { subQueries: targets.length, arrays: req.path.includes('arrays=true'), unit, start: Math.trunc(ranges.startMs / scale), end: Math.trunc(ranges.endMs / scale), needsIndex: isBrowser && ds.tsdbVersion === 3, goDecoder: !isBrowser })
          : { problems: [`status ${a.status}: ${a.text.slice(0, 300)}`], series: 0, points: 0, indexes: new Set<number>() };
        lines.push(`${req.name}: ${req.body ?? ''} -> ${a.status} ${r.series} series ${r.points} points plan=${a.plan}`);
        failures.push(...r.problems.map((p) => `${req.name}: ${p}`));
        if (a.status !== 200) continue;
        if (r.series === 0 || r.points === 0) failures.push(`${req.name}: no data`);
        const series = JSON.parse(a.text) as { tags: Record<string, string>; dps: Record<string, number | null> | [number, number | null][] }[];
        for (const t of targets) {
          for (const m of (t.alias ?? '').matchAll(/\$tag_(\w+)/g)) {
            if (!series.every((x) => typeof x.tags[m[1] ?? ''] === 'string')) failures.push(`${req.name}: alias ${t.alias ?? ''} needs tag ${m[1] ?? ''} in every series`);
          }
          if (t.downsampleInterval === '1h' && !/^rollup:3600s;raw-buckets=0(;|$)/.test(a.plan)) failures.push(`${req.name}: 1h downsample not answered from the rollups alone (plan ${a.plan})`);
        }
        const total = series.reduce((sum, x) => sum + (Array.isArray(x.dps) ? x.dps.map((p) => p[1]) : Object.values(x.dps)).reduce<number>((s2, v) => s2 + (v ?? 0), 0), 0);
        const first = targets[0];
        if (first?.downsampleAggregator === 'count') {
          const expected = data.filter((e) => e.metric === 'temp').length;
          if (total !== expected) failures.push(`${req.name}: the hourly counts add up to ${total}, not the ${expected} temp events stored`);
        }
        if (first?.disableDownsampling === true) {
          const expected = data.filter((e) => e.metric === 'temp' && e.id === vars['id']).length;
          if (r.points !== expected) failures.push(`${req.name}: ${r.points} raw points for id ${vars['id'] ?? ''}, not the ${expected} events stored`);
        }
      }
    }
    for (const line of lines) t.diagnostic(line);
    assert.deepEqual(failures, [], 'every variable and panel request answered with data');
  });
});
