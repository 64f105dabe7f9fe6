// Grafana's OpenTSDB datasource against the real service on the real stack, with no Grafana: a day of
// `temp` (3 sites × 4 ids, tags site and id; the compat generator of scripts/lib/compat/dataset.ts)
// goes through Kafka into the service, the rollup job summarises its hours, then
// 1. every request of test/fixtures/grafana-opentsdb/requests.json is replayed byte for byte (method,
//    path and query string, headers, body) and each answer must have the status and the shape the
//    fixture README says Grafana parses on that request's path;
// 2. every template variable and every panel target of the generated stored-series dashboard
//    (scripts/dashboard/stored-series.ts) is turned into the requests Grafana would send, on the
//    browser path and on the server path (test/support/grafana-opentsdb.ts, checked against the
//    fixtures by test/unit/compat/grafana-requests.test.ts), and must answer 200 with data;
// 3. the datasource provisioning files parse and point at the service.
//
// Rewrites: none. The data set covers 2026-11-24T12:00Z–2026-11-25T12:00Z, the fixtures' own day
// (their "now" is 2026-11-25T12:00:00.123Z, their ranges "last 6 h", "last 24 h" and 00:00–12:00 of
// the 25th), and it uses the fixtures' names (metric `temp`, tags `site` = north/south/west and `id`),
// so every request is sent exactly as recorded. The relative requests without `end` end at the
// server's real clock, which is after the data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { events } from '../../../scripts/lib/compat/dataset.ts';
import { OPENTSDB_DATASOURCE, buildStoredSeriesDashboard } from '../../../scripts/dashboard/stored-series.ts';
import { browserQueryRequest, serverQueryRequests, variableRequest } from '../../support/grafana-opentsdb.ts';
import { openTsdbDatasource, provisionedDatasources, type OpenTsdbDatasource } from '../../support/grafana-provisioning.ts';
import { hashPassword } from '../../../src/front-door/credentials.ts';
import { uniqueName } from '../../support/env.ts';
import { createHarness, produceEvents, startInProcess, waitFor, waitForEvents } from '../../support/service-harness.ts';
import { checkFixture, repeatedKeys, send, seriesProblems, variableValues, type DashboardJson, type Fixture } from './grafana-answers.ts';

const ROOT = join(import.meta.dirname, '../../..');
const GRAFANA_PASSWORD = 'grafana-replay-pw-7d1e';
/** What Grafana's datasource proxy adds to every request with basicAuth on. */
const GRAFANA_BASIC = `Basic ${Buffer.from(`grafana:${GRAFANA_PASSWORD}`).toString('base64')}`;
const HOUR = 3_600_000;
/** The fixtures' day: from "now − 24 h" (2026-11-24T12:00Z) to "now" (2026-11-25T12:00Z), whole hours. */
export const DATA = { name: 'grafana', startMs: Date.UTC(2026, 10, 24, 12), hours: 24, seed: 20_241 } as const;
/** TSI_GRAFANA_REPLAY_DUMP=<dir>: also write every answer body there (<request name>.json), to read them. */
const DUMP = process.env['TSI_GRAFANA_REPLAY_DUMP'];
if (DUMP !== undefined) mkdirSync(DUMP, { recursive: true });

void test("Grafana's OpenTSDB requests, replayed against the service", async (t) => {
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
  await waitFor(
    'the rollup job summarised every hour',
    300_000,
    async () =>
      /^rollup:3600s;raw-buckets=0(;|$)/.test(
        (await send(port, { method: 'POST', path: '/api/query', headers: { 'content-type': 'application/json' }, body: hourly }, GRAFANA_BASIC)).plan,
      ),
    1000,
  );

  const anonymous = await send(port, { method: 'POST', path: '/api/query', headers: { 'content-type': 'application/json' }, body: hourly });
  assert.equal(anonymous.status, 401, "without the datasource's Basic credentials: 401");

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
  await t.test("the provisioning files parse: type opentsdb, the service's URL, jsonData as the datasource reads it", () => {
    settings = openTsdbDatasource(compose);
    assert.equal(settings.url, 'https://query:9464', 'compose: the query service (role query), its HTTPS port');
    assert.equal(settings.uid, OPENTSDB_DATASOURCE['uid'], 'the uid the stored-series dashboard uses');
    assert.equal(typeof settings.lookupLimit, 'number');
    assert.deepEqual(
      provisionedDatasources(join(ROOT, 'deploy/grafana/provisioning/datasources/prometheus.yml')).map((d) => d['type']),
      ['prometheus'],
      'the Prometheus datasource is kept',
    );
    const k8s = openTsdbDatasource(join(ROOT, 'deploy/grafana/k8s-datasources.yml'));
    assert.equal(k8s.url, 'https://tsingest-query.tsingest.svc.cluster.local:9464', 'Kubernetes: the query Service');
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
      vars[v.name] =
        v.includeAll && Array.isArray(current) && current.includes('$__all')
          ? values.join('|')
          : typeof current === 'string' && values.includes(current)
            ? current
            : (values[0] ?? '');
    }
    assert.equal(vars['metric'], 'temp');
    const ranges = { startMs: DATA.startMs, endMs };
    for (const panel of dashboard.panels.filter((p) => p.targets !== undefined)) {
      const targets = panel.targets ?? [];
      const browser = browserQueryRequest(targets, {
        name: `${panel.title} (browser)`,
        tsdbVersion: ds.tsdbVersion,
        tsdbResolution: ds.tsdbResolution,
        startMs: ranges.startMs,
        endMs: ranges.endMs,
        interval: '1m',
        vars,
      });
      assert.ok(browser !== null);
      const server = serverQueryRequests(targets, {
        name: `${panel.title} (server)`,
        tsdbVersion: ds.tsdbVersion,
        fromMs: ranges.startMs,
        toMs: ranges.endMs,
        intervalMs: 60_000,
        vars,
      });
      for (const req of [browser, ...server]) {
        const a = await send(port, req, GRAFANA_BASIC);
        const isBrowser = req === browser;
        const unit = isBrowser && ds.tsdbResolution === 2 ? 'ms' : 's';
        const scale = unit === 'ms' ? 1 : 1000;
        const r =
          a.status === 200
            ? seriesProblems(a.text, {
                subQueries: targets.length,
                arrays: req.path.includes('arrays=true'),
                unit,
                start: Math.trunc(ranges.startMs / scale),
                end: Math.trunc(ranges.endMs / scale),
                needsIndex: isBrowser && ds.tsdbVersion === 3,
                goDecoder: !isBrowser,
              })
            : { problems: [`status ${a.status}: ${a.text.slice(0, 300)}`], series: 0, points: 0, indexes: new Set<number>() };
        lines.push(`${req.name}: ${req.body ?? ''} -> ${a.status} ${r.series} series ${r.points} points plan=${a.plan}`);
        failures.push(...r.problems.map((p) => `${req.name}: ${p}`));
        if (a.status !== 200) continue;
        if (r.series === 0 || r.points === 0) failures.push(`${req.name}: no data`);
        const series = JSON.parse(a.text) as { tags: Record<string, string>; dps: Record<string, number | null> | [number, number | null][] }[];
        for (const t of targets) {
          for (const m of (t.alias ?? '').matchAll(/\$tag_(\w+)/g)) {
            if (!series.every((x) => typeof x.tags[m[1] ?? ''] === 'string'))
              failures.push(`${req.name}: alias ${t.alias ?? ''} needs tag ${m[1] ?? ''} in every series`);
          }
          if (t.downsampleInterval === '1h' && !/^rollup:3600s;raw-buckets=0(;|$)/.test(a.plan))
            failures.push(`${req.name}: 1h downsample not answered from the rollups alone (plan ${a.plan})`);
        }
        const total = series.reduce(
          (sum, x) => sum + (Array.isArray(x.dps) ? x.dps.map((p) => p[1]) : Object.values(x.dps)).reduce<number>((s2, v) => s2 + (v ?? 0), 0),
          0,
        );
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
