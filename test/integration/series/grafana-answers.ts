// What Grafana's OpenTSDB datasource needs of each answer (grafana-replay.test.ts replays its requests):
// the request sent as recorded, the shape of a /api/query answer on the browser path (JSON objects,
// query.index with showQuery) and the server path (Go's decoder: no repeated keys, arrays when asked),
// and per fixture what its route must answer beyond its status.
import { request } from 'node:http';
import type { OpenTsdbTarget } from '../../support/grafana-opentsdb.ts';

/** The ids of the replayed data set (grafana-replay.test.ts). */
export const IDS = ['n01', 'n02', 'n03', 'n04'];

export interface Fixture {
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
export function send(
  port: number,
  r: { method: string; path: string; headers: Readonly<Record<string, string>>; body: string | null },
  authorization?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...r.headers, ...(authorization === undefined ? {} : { authorization }) };
    if (r.body !== null) headers['content-length'] = String(Buffer.byteLength(r.body));
    const req = request({ host: '127.0.0.1', port, method: r.method, path: r.path, headers, timeout: 60_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => {
        chunks.push(c);
      });
      res.on('end', () => {
        resolve({
          status: res.statusCode ?? 0,
          contentType: res.headers['content-type'] ?? '',
          plan: String(res.headers['x-tsingest-plan'] ?? ''),
          text: Buffer.concat(chunks).toString('utf8'),
        });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${r.method} ${r.path}: no answer within 60 s`)));
    req.on('error', reject);
    req.end(r.body ?? undefined);
  });
}

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

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
    else if (ts < s.start - (s.unit === 'ms' ? 86_400_000 : 86_400) || ts > s.end)
      problems.push(`${where}: timestamp ${ts} outside the range [${s.start}, ${s.end}]`);
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
      if (!Array.isArray(anns) || anns.some((a) => !isObj(a) || typeof a['description'] !== 'string' || typeof a['startTime'] !== 'number'))
        problems.push(`${w}: ${key} is not [{description, startTime}]`);
    }
    if (s.needsIndex) {
      const q = el['query'];
      const index = isObj(q) ? q['index'] : undefined;
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= s.subQueries)
        problems.push(`${w}: query.index ${JSON.stringify(index)} is not a sub-query position`);
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
export function repeatedKeys(text: string): number {
  let repeated = 0;
  for (const m of text.matchAll(/"dps":\{([^}]*)\}/g)) {
    const keys = [...(m[1] ?? '').matchAll(/"(\d+)":/g)].map((k) => k[1]);
    repeated += keys.length - new Set(keys).size;
  }
  return repeated;
}

export interface DashboardJson {
  readonly templating: {
    readonly list: readonly {
      readonly name: string;
      readonly query: string;
      readonly includeAll: boolean;
      readonly current: { readonly value?: string | readonly string[] };
    }[];
  };
  readonly panels: readonly { readonly title: string; readonly targets?: readonly OpenTsdbTarget[] }[];
}

/** What Grafana makes of a variable query's answer: suggest → the strings; tag_values → results[*].tags[key], de-duplicated. */
export function variableValues(query: string, body: unknown): string[] {
  if (Array.isArray(body)) return body.filter((x): x is string => typeof x === 'string');
  const key = /tag_values\((.*?),\s?(.*)\)/.exec(query)?.[2]?.split(',')[0]?.trim() ?? '';
  const results = isObj(body) && Array.isArray(body['results']) ? (body['results'] as { tags: Record<string, string> }[]) : [];
  return [...new Set(results.map((r) => r.tags[key]).filter((v): v is string => v !== undefined))];
}

export function jsonOf(a: Answer): unknown {
  return JSON.parse(a.text) as unknown;
}

/** What each fixture must answer, beyond its status and content type. */
export function checkFixture(f: Fixture, a: Answer, nowMs: number): string[] {
  const path = f.path.split('?')[0];
  const problems: string[] = [];
  const expect = (ok: boolean, what: string): void => {
    if (!ok) problems.push(what);
  };
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
    if (shape.needsIndex)
      expect(r.indexes.size === body.queries.length, `query.index covers ${[...r.indexes].join(',')} of ${body.queries.length} sub-queries`);
    if (f.route === 'browser' && body.showQuery !== true) {
      const metrics = new Set(body.queries.map((q) => q.metric));
      expect(
        (jsonOf(a) as Obj[]).every((s) => metrics.has(String(s['metric']))),
        'a series metric matches no target (Grafana maps it to target 0)',
      );
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
    expect(
      Array.isArray(results) && results.every((r) => isObj(r) && isObj(r['tags']) && Object.values(r['tags']).every((v) => typeof v === 'string')),
      'lookup: results[*].tags is not string tags',
    );
    const tags = Array.isArray(results) ? results.map((r) => (r as { tags: Record<string, string> }).tags) : [];
    const m = decodeURIComponent(new URLSearchParams(f.path.split('?')[1]).get('m') ?? '');
    if (m.includes('{'))
      expect(
        JSON.stringify([...new Set(tags.map((t) => t['id']))].sort()) === JSON.stringify(IDS),
        `lookup ${m}: ids ${JSON.stringify(tags.map((t) => t['id']))}`,
      );
    else
      expect(
        tags.some((t) => 'site' in t && 'id' in t),
        `lookup ${m}: tag names lack site/id`,
      );
  } else if (path === '/api/aggregators') {
    expect(
      Array.isArray(body) && body.every((x) => typeof x === 'string') && ['sum', 'avg', 'count', 'max', 'min'].every((x) => body.includes(x)),
      'aggregators: not an array of names',
    );
  } else if (path === '/api/config/filters') {
    expect(
      isObj(body) && ['literal_or', 'iliteral_or', 'wildcard', 'regexp', 'not_literal_or'].every((k) => k in body),
      'config/filters: not an object keyed by filter name',
    );
  } else {
    problems.push(`unexpected path ${path}`);
  }
  return problems;
}
