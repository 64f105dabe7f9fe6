// The request builders of test/support/grafana-opentsdb.ts (used to turn the stored-series dashboard's
// panels and variables into Grafana's requests) reproduce the recorded fixtures byte for byte: the
// panel targets are read back out of the fixtures' browser bodies (a browser sub-query is the target
// plus rate / rateOptions / downsample), rebuilt for both paths and compared with the fixture bodies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { browserQueryRequest, serverQueryRequests, variableRequest, type OpenTsdbTarget, type ReplayRequest } from '../../support/grafana-opentsdb.ts';

const DIR = resolve(import.meta.dirname, '..', '..', 'fixtures', 'grafana-opentsdb');
interface Fixture {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string | null;
}
const fixtures = (JSON.parse(readFileSync(join(DIR, 'requests.json'), 'utf8')) as { requests: Fixture[] }).requests;
const fixture = (name: string): Fixture => {
  const f = fixtures.find((x) => x.name === name);
  assert.ok(f !== undefined, `fixture ${name}`);
  return f;
};

/** The saved targets of a browser fixture: its sub-queries without what convertTargetToQuery appends. */
function targetsOf(name: string): OpenTsdbTarget[] {
  const body = JSON.parse(fixture(name).body ?? 'null') as { queries: Record<string, unknown>[] };
  return body.queries.map(({ rate: _r, rateOptions: _o, downsample: _d, ...target }) => target as unknown as OpenTsdbTarget);
}

function assertSame(built: ReplayRequest | null | undefined, name: string): void {
  const f = fixture(name);
  assert.ok(built !== null && built !== undefined, `${name}: a request is built`);
  assert.equal(built.method, f.method, `${name}: method`);
  assert.equal(built.path, f.path, `${name}: path`);
  assert.deepEqual(built.headers, f.headers, `${name}: headers`);
  assert.equal(built.body, f.body, `${name}: body`);
}

const NOW = Date.parse('2026-11-25T12:00:00.123Z');
const ABS = { from: Date.parse('2026-11-25T00:00:00.000Z'), to: Date.parse('2026-11-25T12:00:00.000Z') };
const H = 3_600_000;

test("browser path: panel targets become the fixtures' POST /api/query bodies", () => {
  const common = { vars: {} };
  const two = targetsOf('browser-query-v3-relative-two-queries');
  assertSame(
    browserQueryRequest(two, { ...common, name: '', tsdbVersion: 3, tsdbResolution: 1, startMs: NOW - 6 * H, endMs: null, interval: '1m' }),
    'browser-query-v3-relative-two-queries',
  );
  assertSame(
    browserQueryRequest(targetsOf('browser-query-v3-absolute-ms-resolution'), {
      ...common,
      name: '',
      tsdbVersion: 3,
      tsdbResolution: 2,
      startMs: ABS.from,
      endMs: ABS.to,
      interval: '30s',
    }),
    'browser-query-v3-absolute-ms-resolution',
  );
  assertSame(
    browserQueryRequest(targetsOf('browser-query-v1-legacy-tags'), {
      ...common,
      name: '',
      tsdbVersion: 1,
      tsdbResolution: 1,
      startMs: NOW - 24 * H,
      endMs: null,
      interval: '5m',
    }),
    'browser-query-v1-legacy-tags',
  );
  assertSame(
    browserQueryRequest(targetsOf('browser-query-v4-fractional-interval'), {
      ...common,
      name: '',
      tsdbVersion: 4,
      tsdbResolution: 1,
      startMs: ABS.from,
      endMs: ABS.to,
      interval: '1m',
    }),
    'browser-query-v4-fractional-interval',
  );
  assert.equal(
    browserQueryRequest([{ refId: 'A', metric: 'temp', hide: true }, { refId: 'B' }], {
      ...common,
      name: '',
      tsdbVersion: 3,
      tsdbResolution: 1,
      startMs: 0,
      endMs: null,
      interval: '1m',
    }),
    null,
    'hidden and metric-less targets are not sent',
  );
});

test("server path: the same targets become one request per target, in seconds, with Go's sorted keys", () => {
  const [a, b] = targetsOf('browser-query-v3-relative-two-queries');
  assert.ok(a !== undefined && b !== undefined);
  const last6h = { vars: {}, tsdbVersion: 3, fromMs: NOW - 6 * H, toMs: NOW, intervalMs: 60_000 };
  assertSame(serverQueryRequests([a], { ...last6h, name: '' })[0], 'server-query-v3-filters-downsample');
  assertSame(serverQueryRequests([b], { ...last6h, name: '' })[0], 'server-query-v3-rate-counter-max');
  const legacy: OpenTsdbTarget = {
    refId: 'A',
    aggregator: 'avg',
    downsampleAggregator: 'avg',
    downsampleFillPolicy: 'none',
    metric: 'temp',
    tags: { site: 'north', id: '*' },
    shouldComputeRate: true,
    isCounter: true,
  };
  assertSame(serverQueryRequests([legacy], { ...last6h, fromMs: NOW - 24 * H, intervalMs: 300_000, name: '' })[0], 'server-query-v3-legacy-tags-drop-resets');
  assertSame(
    serverQueryRequests(targetsOf('browser-query-v4-fractional-interval'), {
      vars: {},
      tsdbVersion: 4,
      fromMs: ABS.from,
      toMs: ABS.to,
      intervalMs: 0,
      name: '',
    })[0],
    'server-query-v4-arrays',
  );
  assertSame(
    serverQueryRequests([{ refId: 'Anno', metric: 'temp', aggregator: 'sum', disableDownsampling: true }], {
      vars: {},
      tsdbVersion: 3,
      fromMs: ABS.from,
      toMs: ABS.to,
      intervalMs: 0,
      name: '',
    })[0],
    'server-annotations',
  );
});

test("variable queries become the fixtures' suggest and look-up GETs on both paths", () => {
  const browser = { name: '', route: 'browser', lookupLimit: 1000, vars: {} } as const;
  const server = { ...browser, route: 'server' } as const;
  assertSame(variableRequest('metrics(te)', browser), 'browser-suggest-metrics');
  assertSame(variableRequest('metrics()', browser), 'browser-suggest-metrics-empty-prefix');
  assertSame(variableRequest('suggest_tagk(si)', browser), 'browser-suggest-tagk');
  assertSame(variableRequest('suggest_tagv(nor)', browser), 'browser-suggest-tagv');
  assertSame(variableRequest('tag_names(temp)', browser), 'browser-lookup-tag-names');
  assertSame(variableRequest('tag_values($m, id, site=north)', { ...browser, vars: { m: 'temp' } }), 'browser-lookup-tag-values');
  assertSame(variableRequest('metrics(te)', server), 'server-resource-suggest');
  assertSame(variableRequest('tag_names(temp)', server), 'server-resource-lookup-tag-names');
  assertSame(variableRequest('tag_values(temp, id, site=north)', server), 'server-resource-lookup-tag-values');
  assert.equal(variableRequest('label_values(up, job)', browser), null);
});
