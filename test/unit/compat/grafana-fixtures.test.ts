// The Grafana OpenTSDB request fixtures (test/fixtures/grafana-opentsdb/requests.json) stay what their
// README says they are: every entry names its method, path and Grafana source; POST bodies are compact
// JSON with the key order the cited code produces (browser: object-literal order; server: Go
// json.Marshal, struct order then sorted map keys); timestamps are epoch ms on the browser path and
// the older server path, epoch seconds on the current server path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const DIR = resolve(import.meta.dirname, '..', '..', 'fixtures', 'grafana-opentsdb');
const manifest = JSON.parse(readFileSync(join(DIR, 'requests.json'), 'utf8')) as unknown;
const readme = readFileSync(join(DIR, 'README.md'), 'utf8');

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown, what: string): Obj => {
  assert.ok(isObj(v), `${what} is an object`);
  return v;
};
const str = (v: unknown, what: string): string => {
  assert.equal(typeof v, 'string', `${what} is a string`);
  return v as string;
};

const root = obj(manifest, 'manifest');
const commits = obj(root['commits'], 'commits');
assert.ok(Array.isArray(root['requests']), 'requests is an array');
const requests = (root['requests'] as unknown[]).map((r, i) => obj(r, `requests[${i}]`));

const ROUTES = ['browser', 'server', 'server-legacy'] as const;
type Route = (typeof ROUTES)[number];
const UNIT: Record<Route, 'ms' | 's'> = { browser: 'ms', server: 's', 'server-legacy': 'ms' };
const SOURCE = /^([0-9a-f]{12}):([\w./-]+\.(?:ts|tsx|go)):(\d+)(?:-(\d+))?$/;

function routeOf(r: Obj): Route {
  const route = str(r['route'], 'route');
  assert.ok((ROUTES as readonly string[]).includes(route), `route ${route} is one of ${ROUTES.join(', ')}`);
  return route as Route;
}

/** Epoch ms: 13 digits; epoch seconds: 10 digits (both cover 2001–2286). */
function assertTime(v: unknown, unit: 'ms' | 's', what: string): number {
  assert.ok(Number.isSafeInteger(v), `${what} is an integer`);
  const t = v as number;
  if (unit === 'ms') assert.ok(t >= 1e12 && t < 1e13, `${what} ${t} is epoch ms`);
  else assert.ok(t >= 1e9 && t < 1e10, `${what} ${t} is epoch seconds`);
  return t;
}

/** Every object nested in `v` has its keys in Go map order (sorted bytewise). */
function assertSortedKeys(v: unknown, where: string): void {
  if (Array.isArray(v)) {
    v.forEach((x, i) => {
      assertSortedKeys(x, `${where}[${i}]`);
    });
    return;
  }
  if (!isObj(v)) return;
  const keys = Object.keys(v);
  assert.deepEqual(
    keys,
    [...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))),
    `${where} keys are sorted as Go marshals a map`,
  );
  for (const k of keys) assertSortedKeys(v[k], `${where}.${k}`);
}

test('the manifest names its Grafana commits and every entry is complete', () => {
  assert.ok(requests.length >= 20, 'all the requests are listed');
  for (const [short, c] of Object.entries(commits)) {
    const commit = str(obj(c, `commits.${short}`)['commit'], `commits.${short}.commit`);
    assert.match(commit, /^[0-9a-f]{40}$/);
    assert.ok(commit.startsWith(short), `${short} is the prefix of ${commit}`);
  }
  const names = new Set<string>();
  for (const r of requests) {
    const name = str(r['name'], 'name');
    assert.ok(!names.has(name), `${name} is unique`);
    names.add(name);
    routeOf(r);
    assert.ok(r['method'] === 'GET' || r['method'] === 'POST', `${name}: method is GET or POST`);
    assert.match(str(r['path'], `${name}.path`), /^\/api\/[a-z/]+(\?.*)?$/, `${name}: path`);
    obj(r['headers'], `${name}.headers`);
    obj(r['context'], `${name}.context`);
    const sources = r['source'];
    assert.ok(Array.isArray(sources) && sources.length > 0, `${name}: has a source`);
    for (const s of sources) {
      const m = SOURCE.exec(str(s, `${name}.source`));
      assert.ok(m, `${name}: source ${String(s)} is <commit12>:<file>:<lines>`);
      const [, short = '', , from = '', to] = m;
      assert.ok(short in commits, `${name}: source commit ${short} is described under commits`);
      assert.ok(to === undefined || Number(to) >= Number(from), `${name}: line range ${from}-${String(to)}`);
    }
    assert.ok(readme.includes(name), `${name} is documented in README.md`);
  }
});

test('GET entries carry no body and a decodable query string', () => {
  for (const r of requests.filter((x) => x['method'] === 'GET')) {
    const name = str(r['name'], 'name');
    assert.equal(r['body'], null, `${name}: no body`);
    assert.equal(r['timeUnit'], null, `${name}: no timestamps`);
    const path = str(r['path'], 'path');
    const query = path.includes('?') ? path.slice(path.indexOf('?') + 1) : '';
    for (const part of query.split('&').filter((p) => p !== '')) {
      assert.match(part, /^[a-z]+=/, `${name}: ${part} is key=value`);
      assert.doesNotThrow(() => decodeURIComponent(part), `${name}: ${part} decodes`);
    }
  }
});

test('POST bodies are compact JSON, timestamps in the unit of their path', () => {
  for (const r of requests.filter((x) => x['method'] === 'POST')) {
    const name = str(r['name'], 'name');
    const route = routeOf(r);
    assert.equal(obj(r['headers'], 'headers')['content-type'], 'application/json', `${name}: content-type`);
    assert.equal(r['timeUnit'], UNIT[route], `${name}: timeUnit matches the ${route} path`);
    const raw = str(r['body'], `${name}.body`);
    const body = obj(JSON.parse(raw), `${name} body`);
    assert.equal(JSON.stringify(body), raw, `${name}: compact, no whitespace, no escapes JSON.stringify would not make`);
    assert.doesNotMatch(raw, /[<>&]/, `${name}: no characters Go would HTML-escape`);
    const start = assertTime(body['start'], UNIT[route], `${name}: start`);
    if ('end' in body) assert.ok(assertTime(body['end'], UNIT[route], `${name}: end`) > start, `${name}: end after start`);
    const queries = body['queries'];
    assert.ok(Array.isArray(queries) && queries.length > 0, `${name}: queries`);
    for (const [i, q] of queries.entries()) {
      const sub = obj(q, `${name}.queries[${i}]`);
      str(sub['metric'], `${name}.queries[${i}].metric`);
      str(sub['aggregator'], `${name}.queries[${i}].aggregator`);
    }
  }
});

test('browser bodies: datasource.ts key order and its rules for end, showQuery, msResolution', () => {
  for (const r of requests.filter((x) => x['method'] === 'POST' && x['route'] === 'browser')) {
    const name = str(r['name'], 'name');
    const body = obj(JSON.parse(str(r['body'], 'body')), name);
    const ctx = obj(r['context'], 'context');
    const range = obj(ctx['range'], `${name}.context.range`);
    const expected = ['start', 'queries', 'msResolution', 'globalAnnotations'];
    if (ctx['tsdbVersion'] === 3) expected.push('showQuery');
    if (range['to'] !== 'now') expected.push('end');
    assert.deepEqual(Object.keys(body), expected, `${name}: top-level keys in performTimeSeriesQuery order`);
    assert.equal(body['msResolution'], ctx['tsdbResolution'] === 2, `${name}: msResolution`);
    assert.equal(body['globalAnnotations'], true, `${name}: globalAnnotations`);
    assert.ok(!str(r['path'], 'path').includes('?'), `${name}: no query string on the browser path`);
  }
});

test('server bodies: one sub-query (current) or several (legacy), struct order then sorted map keys', () => {
  for (const r of requests.filter((x) => x['method'] === 'POST' && x['route'] !== 'browser')) {
    const name = str(r['name'], 'name');
    const body = obj(JSON.parse(str(r['body'], 'body')), name);
    const ctx = obj(r['context'], 'context');
    assert.deepEqual(Object.keys(body), ['start', 'end', 'queries'], `${name}: OpenTsdbQuery struct order`);
    assertSortedKeys(body['queries'], `${name}.queries`);
    const queries = body['queries'] as unknown[];
    if (r['route'] === 'server') assert.equal(queries.length, 1, `${name}: one request per query`);
    assert.equal(str(r['path'], 'path').endsWith('?arrays=true'), ctx['tsdbVersion'] === 4, `${name}: ?arrays=true iff tsdbVersion 4`);
  }
});
