// Look-up and suggest over an in-memory catalog, and the /api/query rendering (dps forms, NaN/null,
// seconds and ms, the showQuery echo as OpenTSDB 2.4.1 spells it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SeriesIndex } from '../../../src/catalog/series-index.ts';
import { lookupAnswer, lookupFromBody, lookupFromQuery, parseLookupM, suggestAnswer } from '../../../src/series-http/lookup.ts';
import { parseQueryBody } from '../../../src/series-language/parse-query.ts';
import { dpsJson, seriesJson, subQueryEcho } from '../../../src/series-http/series-render.ts';
import { TsdbQueryError } from '../../../src/series-language/errors.ts';

function catalog(): SeriesIndex {
  const index = new SeriesIndex({ idTagKey: 'id' });
  for (const [metric, id, site] of [
    ['temp', 'd1', 'north'],
    ['temp', 'd2', 'north'],
    ['temp', 'd3', 'south'],
    ['hum', 'd1', 'north'],
  ] as const)
    index.add({ metric, id, tags: { site } });
  return index;
}

void test('look-up: m with {k=v} pairs, * as any key or value, limit, totals; the id shows as a tag', async () => {
  const c = catalog();
  assert.deepEqual(parseLookupM('temp{site=*,*=d1}'), {
    metric: 'temp',
    tags: [
      { key: 'site', value: '*' },
      { key: '*', value: 'd1' },
    ],
  });
  const all = await lookupAnswer(lookupFromQuery(new URLSearchParams('m=temp{site=north}&limit=1')), c, 0, () => 5);
  assert.equal(all['totalResults'], 2);
  assert.deepEqual(
    (all['results'] as { tags: unknown }[]).map((r) => r.tags),
    [{ id: 'd1', site: 'north' }],
  );
  assert.equal(all['type'], 'LOOKUP');
  assert.equal(all['time'], 5);
  const anyKey = await lookupAnswer(lookupFromBody({ metric: '*', tags: [{ key: '*', value: 'd1' }] }), c, 0, () => 0);
  assert.deepEqual((anyKey['results'] as { metric: string }[]).map((r) => r.metric).sort(), ['hum', 'temp']);
  const noLimit = await lookupAnswer(lookupFromQuery(new URLSearchParams('m=temp&limit=0')), c, 0, () => 0);
  assert.equal((noLimit['results'] as unknown[]).length, 3, "limit=0 (Grafana's server path without lookupLimit): no limit");
  assert.throws(
    () => lookupFromQuery(new URLSearchParams('limit=5')),
    (e: unknown) => e instanceof TsdbQueryError && e.field === 'm',
  );
});

void test('suggest: by prefix, sorted, max; an unknown type is a 400 naming it', () => {
  const c = catalog();
  assert.deepEqual(suggestAnswer(new URLSearchParams('type=metrics'), c), ['hum', 'temp']);
  assert.deepEqual(suggestAnswer(new URLSearchParams('type=tagk&q='), c), ['id', 'site']);
  assert.deepEqual(suggestAnswer(new URLSearchParams('type=tagv&q=d&max=2'), c), ['d1', 'd2']);
  assert.deepEqual(suggestAnswer({ type: 'metrics', q: 'cpu' }, c), []);
  assert.throws(
    () => suggestAnswer(new URLSearchParams('type=tsuid'), c),
    (e: unknown) => e instanceof TsdbQueryError && e.field === 'type',
  );
});

void test('rendering: dps as an object of seconds or ms, or [[ts, v]] arrays; NaN as "NaN", null as null', () => {
  const dps = [
    [1_700_000_000_500, 1.5],
    [1_700_000_001_000, Number.NaN],
    [1_700_000_002_000, null],
  ] as const;
  assert.equal(dpsJson(dps, { msResolution: false, arrays: false }), '{"1700000000":1.5,"1700000001":"NaN","1700000002":null}');
  assert.equal(dpsJson(dps, { msResolution: true, arrays: true }), '[[1700000000500,1.5],[1700000001000,"NaN"],[1700000002000,null]]');
  const q = parseQueryBody(
    {
      start: 1_700_000_000,
      queries: [{ aggregator: 'avg', metric: 'temp', downsample: '1h-avg', filters: [{ type: 'wildcard', tagk: 'id', filter: '*', groupBy: true }] }],
      showQuery: true,
    },
    new URLSearchParams(),
    1_800_000_000_000,
  );
  const sub = q.queries[0];
  assert.ok(sub !== undefined);
  const echo = subQueryEcho(sub, 'rollup:3600s');
  assert.deepEqual(echo['filters'], [{ tagk: 'id', filter: '*', group_by: true, type: 'wildcard' }]);
  assert.deepEqual(echo['tags'], { id: 'wildcard(*)' });
  assert.equal(echo['rateOptions'], null);
  assert.equal(echo['rollupTable'], 'rollup:3600s');
  const text = seriesJson({ metric: 'temp', tags: { id: 'd1' }, aggregateTags: [], dps: [[3_600_000, 2]] }, sub, q, { arrays: false, plan: 'raw' });
  const parsed = JSON.parse(text) as Record<string, unknown>;
  assert.deepEqual(Object.keys(parsed), ['metric', 'tags', 'aggregateTags', 'query', 'dps']);
  assert.deepEqual(parsed['dps'], { 3600: 2 });
});
