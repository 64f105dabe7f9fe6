// The read paths over an in-memory store: pagination, the by-tag merge across buckets, verification
// and dangling-entry handling (count, repair after the grace period), the concurrency bound.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { buildDataRow, buildEventCells, encodeTags, TAGS_QUALIFIER } from '../../../src/events/cells.ts';
import { encodeDataKey, encodeIndexKey, encodePrintableDataKey, encodeRollupKey, indexSaltOf } from '../../../src/keys/index.ts';
import { createReadMetrics } from '../../../src/metrics/read-metrics.ts';
import { collectPage, createQueries, type Queries } from '../../../src/reads-v1/queries.ts';
import { keyspaceOf, tablesOf } from '../../../src/service/keyspace.ts';
import type { EventItem, QueryItem, QueryKind, RollupItem } from '../../../src/reads-v1/types.ts';
import { encodeSummary, summaryOf } from '../../../src/rollup/summary.ts';
import { loadConfig } from '../../../src/runtime/config.ts';
import { FakeHBase } from '../../support/fake-hbase.ts';

const NOW = Date.UTC(2024, 10, 22, 12, 0, 0);
const B = 4;
const D = 'd';
const T = { data: 'tsdata', index: 'tsindex', rollup: 'tsrollup' };

interface Ev {
  id: string;
  ts: number;
  metric: string;
  value: number;
  tags: Record<string, string>;
}

function setup(sets: string[] = []): { store: FakeHBase; queries: Queries; metrics: ReturnType<typeof createReadMetrics> } {
  const cfg = loadConfig({ env: {}, sets: [`keys.saltBuckets=${B}`, 'index.tags=["site"]', 'query.verifyChunk=3', 'query.bucketConcurrency=2', ...sets] });
  const store = new FakeHBase();
  const metrics = createReadMetrics(new Registry());
  return { store, queries: createQueries({ cfg, hbase: store, keyspace: keyspaceOf(cfg), tables: tablesOf(cfg), metrics, now: () => NOW }), metrics };
}

function write(store: FakeHBase, e: Ev): void {
  const row = buildDataRow({ ...e }, B, D);
  store.seed(T.data, row.key, row.cells);
  for (const [indexName, value] of Object.entries(e.tags)) {
    if (indexName !== 'site') continue;
    store.seed(T.index, encodeIndexKey({ indexName, value, ts: e.ts, id: e.id }, B), [
      { family: D, qualifier: Buffer.from(e.metric), value: Buffer.alloc(0), timestamp: e.ts },
    ]);
  }
}

async function allPages(queries: Queries, kind: QueryKind, raw: Record<string, string>): Promise<{ items: QueryItem[]; pages: number; dangling: number }> {
  const items: QueryItem[] = [];
  let cursor: string | null = null;
  let pages = 0;
  let dangling = 0;
  do {
    const spec = queries.parse(kind, cursor === null ? raw : { ...raw, cursor });
    const page = await collectPage(queries.run(spec));
    items.push(...page.items);
    dangling += page.end.dangling ?? 0;
    cursor = page.end.next;
    pages++;
    assert.ok(pages < 100, 'pagination terminates');
  } while (cursor !== null);
  return { items, pages, dangling };
}

function eventPages(p: { items: QueryItem[]; pages: number; dangling: number }): { items: EventItem[]; pages: number; dangling: number } {
  return { ...p, items: p.items.filter((x): x is EventItem => 'ts' in x) };
}

function rollupPages(p: { items: QueryItem[]; pages: number; dangling: number }): { items: RollupItem[]; pages: number; dangling: number } {
  return { ...p, items: p.items.filter((x): x is RollupItem => 'windowStart' in x) };
}

const idBytesOrder = (a: { ts: number; id: string }, b: { ts: number; id: string }): number =>
  b.ts - a.ts || Buffer.compare(Buffer.from(a.id), Buffer.from(b.id));

test('by-tag: merged newest first across buckets, paged with no gap or repeat, dangling hits dropped and counted', async () => {
  const { store, queries, metrics } = setup();
  const events: Ev[] = [];
  for (let i = 0; i < 40; i++)
    events.push({ id: `dev-${i % 9}`, ts: NOW - 100_000 + Math.floor(i / 3) * 1000, metric: 'temp', value: i, tags: { site: i % 4 === 0 ? 'b' : 'a' } });
  for (const e of events) write(store, e);
  const salts = new Set(events.filter((e) => e.tags['site'] === 'a').map((e) => indexSaltOf({ indexName: 'site', value: 'a', id: e.id }, B)));
  assert.ok(salts.size > 1, 'hits of site=a sit in several buckets');
  // dangling: one data row deleted, one data row whose tags changed to another site
  const gone = events.find((e) => e.tags['site'] === 'a' && e.id === 'dev-1');
  const moved = events.find((e) => e.tags['site'] === 'a' && e.id === 'dev-2');
  assert.ok(gone !== undefined && moved !== undefined);
  await store.deleteRow(T.data, encodeDataKey(gone, B));
  store.seed(T.data, encodeDataKey(moved, B), [{ family: D, qualifier: TAGS_QUALIFIER, value: encodeTags({ site: 'c' }), timestamp: moved.ts }]);

  const expected = events.filter((e) => e.tags['site'] === 'a' && e !== gone && e !== moved).sort(idBytesOrder);
  const { items, pages, dangling } = eventPages(await allPages(queries, 'by_tag', { tag: 'site', value: 'a', limit: '4' }));
  assert.deepEqual(
    items.map((x) => `${x.id}@${x.ts}`),
    expected.map((e) => `${e.id}@${e.ts}`),
  );
  assert.deepEqual(
    items.map((x) => x.metrics),
    expected.map((e) => ({ temp: e.value })),
  );
  assert.equal(pages, Math.ceil(expected.length / 4));
  assert.equal(dangling, 2, 'each dangling hit counted once over all pages');
  assert.equal((await metrics.queryDangling.get()).values.find((v) => v.labels['index'] === 'site')?.value, 2);
  assert.equal(store.count('deleteRow', T.index), 0, 'no repair unless configured');
  assert.ok(store.maxActive <= 2, `at most query.bucketConcurrency scanner steps at once (saw ${store.maxActive})`);

  const window = await collectPage(
    queries.run(queries.parse('by_tag', { tag: 'site', value: 'a', from: String(expected[5]?.ts), to: String(expected[1]?.ts) })),
  );
  const inWindow = expected.filter((e) => e.ts >= (expected[5]?.ts ?? 0) && e.ts < (expected[1]?.ts ?? 0));
  assert.deepEqual(
    window.items.filter((x): x is EventItem => 'ts' in x).map((x) => `${x.id}@${x.ts}`),
    inWindow.map((e) => `${e.id}@${e.ts}`),
  );
  assert.equal(window.end.next, null);
});

test('by-tag repair deletes dangling index rows older than the grace period only', async () => {
  const { store, queries, metrics } = setup(['query.repairDangling=true', 'query.danglingGraceMs=60000']);
  const old: Ev = { id: 'old', ts: NOW - 120_000, metric: 'temp', value: 1, tags: { site: 'x' } };
  const fresh: Ev = { id: 'fresh', ts: NOW - 1_000, metric: 'temp', value: 2, tags: { site: 'x' } };
  const kept: Ev = { id: 'kept', ts: NOW - 50_000, metric: 'temp', value: 3, tags: { site: 'x' } };
  for (const e of [old, fresh, kept]) write(store, e);
  await store.deleteRow(T.data, encodeDataKey(old, B));
  await store.deleteRow(T.data, encodeDataKey(fresh, B));
  const page = await collectPage(queries.run(queries.parse('by_tag', { tag: 'site', value: 'x' })));
  assert.deepEqual(
    page.items.map((x) => x.id),
    ['kept'],
  ); // both kinds of item carry the id
  assert.deepEqual(page.end, { next: null, dangling: 2 });
  assert.equal(store.has(T.index, encodeIndexKey({ indexName: 'site', value: 'x', ts: old.ts, id: old.id }, B)), false, 'old dangling entry repaired');
  assert.equal(store.has(T.index, encodeIndexKey({ indexName: 'site', value: 'x', ts: fresh.ts, id: fresh.id }, B)), true, 'fresh one kept (grace)');
  assert.equal((await metrics.queryRepaired.get()).values.find((v) => v.labels['index'] === 'site')?.value, 1);
  const again = await collectPage(queries.run(queries.parse('by_tag', { tag: 'site', value: 'x' })));
  assert.equal(again.end.dangling, 1, 'only the unrepaired entry is seen again');
});

test('by-tag repair: a run with repair false (an HTTP read without the admin scope) writes nothing, whatever query.repairDangling says', async () => {
  const { store, queries, metrics } = setup(['query.repairDangling=true', 'query.danglingGraceMs=0']);
  const gone: Ev = { id: 'gone', ts: NOW - 120_000, metric: 'temp', value: 1, tags: { site: 'x' } };
  write(store, gone);
  await store.deleteRow(T.data, encodeDataKey(gone, B));
  const key = encodeIndexKey({ indexName: 'site', value: 'x', ts: gone.ts, id: gone.id }, B);
  const page = await collectPage(queries.run(queries.parse('by_tag', { tag: 'site', value: 'x' }), { repair: false }));
  assert.equal(page.end.dangling, 1, 'reported');
  assert.equal(store.has(T.index, key), true, 'not deleted');
  assert.equal((await metrics.queryRepaired.get()).values.length, 0);
  await collectPage(queries.run(queries.parse('by_tag', { tag: 'site', value: 'x' }), { repair: true }));
  assert.equal(store.has(T.index, key), false, 'repaired when allowed');
});

test('latest and range: pages of a single scan; a metric filter drops rows without that metric', async () => {
  const { store, queries, metrics } = setup();
  const events: Ev[] = [];
  for (let i = 0; i < 11; i++) events.push({ id: 'dev1', ts: NOW - i * 1000, metric: i % 2 === 0 ? 'temp' : 'hum', value: i, tags: { site: 's' } });
  events.push({ id: 'dev10', ts: NOW, metric: 'temp', value: 99, tags: {} });
  for (const e of events) write(store, e);
  const mine = events.filter((e) => e.id === 'dev1').sort(idBytesOrder);
  const latest = eventPages(await allPages(queries, 'latest', { id: 'dev1', limit: '3' }));
  assert.deepEqual(
    latest.items.map((x) => x.ts),
    mine.map((e) => e.ts),
  );
  assert.equal(latest.pages, 4);
  const temps = eventPages(await allPages(queries, 'range', { id: 'dev1', metric: 'temp', limit: '2' }));
  assert.deepEqual(
    temps.items.map((x) => [x.ts, x.metrics]),
    mine.filter((e) => e.metric === 'temp').map((e) => [e.ts, { temp: e.value }]),
  );
  assert.ok(
    temps.items.every((x) => x.tags['site'] === 's'),
    'tags come along with a metric filter',
  );
  // a row with two metrics (two events at one ts): with a metric the item keeps only that one
  write(store, { id: 'dev2', ts: NOW, metric: 'temp', value: 1, tags: { site: 's' } });
  write(store, { id: 'dev2', ts: NOW, metric: 'hum', value: 2, tags: { site: 's' } });
  const metricsOf = async (raw: Record<string, string>): Promise<unknown[]> =>
    (await collectPage(queries.run(queries.parse('range', raw)))).items.map((x) => ('ts' in x ? x.metrics : null));
  assert.deepEqual(await metricsOf({ id: 'dev2', metric: 'hum' }), [{ hum: 2 }]);
  assert.deepEqual(await metricsOf({ id: 'dev2' }), [{ temp: 1, hum: 2 }]);
  assert.deepEqual(await metricsOf({ id: 'dev2', metric: 'load' }), []);
  const first = mine[mine.length - 1]?.ts ?? 0;
  const last = mine[0]?.ts ?? 0;
  const bounded = await collectPage(queries.run(queries.parse('range', { id: 'dev1', from: String(first), to: String(last) })));
  assert.deepEqual(
    bounded.items.filter((x): x is EventItem => 'ts' in x).map((x) => x.ts),
    mine.filter((e) => e.ts >= first && e.ts < last).map((e) => e.ts),
    'from inclusive, to exclusive',
  );
  assert.ok(
    ((await metrics.queryDuration.get()).values.find((v) => v.metricName?.endsWith('_count') === true && v.labels['kind'] === 'range')?.value ?? 0) >= 1,
  );
});

test('rollups: summary rows of one id and window size, windows starting in [from, to), metric filter', async () => {
  const { store, queries } = setup();
  const hour = 3_600_000;
  const base = NOW - (NOW % hour) - 5 * hour;
  for (let w = 0; w < 5; w++) {
    const start = base + w * hour;
    store.seed(T.rollup, encodeRollupKey({ id: 'dev1', windowSec: 3600, windowStart: start }, B), [
      { family: D, qualifier: Buffer.from('temp'), value: encodeSummary(summaryOf(start + 1, w)), timestamp: start },
      ...(w % 2 === 0 ? [{ family: D, qualifier: Buffer.from('hum'), value: encodeSummary(summaryOf(start + 2, 10 * w)), timestamp: start }] : []),
    ]);
  }
  store.seed(T.rollup, encodeRollupKey({ id: 'dev1', windowSec: 86_400, windowStart: NOW - (NOW % 86_400_000) }, B), [
    { family: D, qualifier: Buffer.from('temp'), value: encodeSummary(summaryOf(NOW, 1)), timestamp: NOW },
  ]);
  const all = rollupPages(await allPages(queries, 'rollups', { id: 'dev1', window: '1h', limit: '2' }));
  assert.deepEqual(
    all.items.map((r) => r.windowStart),
    [4, 3, 2, 1, 0].map((w) => base + w * hour),
  );
  assert.ok(all.items.every((r) => r.windowEnd === r.windowStart + hour && r.window === '1h'));
  assert.deepEqual(all.items[0]?.metrics['hum'], {
    count: 1,
    sum: 40,
    min: 40,
    max: 40,
    mean: 40,
    first: 40,
    firstTs: base + 4 * hour + 2,
    last: 40,
    lastTs: base + 4 * hour + 2,
  });
  const hum = await collectPage(
    queries.run(queries.parse('rollups', { id: 'dev1', window: '1h', metric: 'hum', from: String(base + hour), to: String(base + 4 * hour) })),
  );
  assert.deepEqual(
    hum.items.filter((r): r is RollupItem => 'windowStart' in r).map((r) => [r.windowStart, Object.keys(r.metrics)]),
    [[base + 2 * hour, ['hum']]],
  );
});

test('index.saltMode=value reads one bucket; keys.format=printable data keys decode and verify', async () => {
  const { store, queries } = setup(['index.saltMode="value"', 'keys.format="printable"']);
  const events: Ev[] = Array.from({ length: 7 }, (_, i) => ({ id: `p-${i % 3}`, ts: NOW - 10_000 + i * 1000, metric: 'temp', value: i, tags: { site: 'v' } }));
  for (const e of events) {
    const cells = buildEventCells({ ...e }, D);
    store.seed(T.data, encodePrintableDataKey(e, B), cells);
    store.seed(T.index, encodeIndexKey({ indexName: 'site', value: 'v', ts: e.ts, id: e.id }, B, 'value'), [
      { family: D, qualifier: Buffer.from('temp'), value: Buffer.alloc(0), timestamp: e.ts },
    ]);
  }
  const salts = new Set(store.rows(T.index).map((r) => r.row[0]));
  assert.equal(salts.size, 1, 'value salting puts every entry of a value in one bucket');
  const before = store.count('scan');
  const got = eventPages(await allPages(queries, 'by_tag', { tag: 'site', value: 'v', limit: '3' }));
  assert.deepEqual(
    got.items.map((x) => `${x.id}@${x.ts}`),
    [...events].sort(idBytesOrder).map((e) => `${e.id}@${e.ts}`),
  );
  assert.equal(store.count('scan') - before, got.pages, 'one index scan per page');
  const latest = eventPages(await allPages(queries, 'latest', { id: 'p-1' }));
  assert.deepEqual(
    latest.items.map((x) => x.ts),
    events
      .filter((e) => e.id === 'p-1')
      .map((e) => e.ts)
      .sort((a, b) => b - a),
  );
});
