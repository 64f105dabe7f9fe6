// The query layer against the real stack: data written by the real ingest service from Kafka, read
// back through src/reads-v1 with expected answers computed from the produced events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { encodeIndexKey, idTimeRange, indexSaltOf } from '../../../src/keys/index.ts';
import { createReadMetrics } from '../../../src/metrics/read-metrics.ts';
import { collectPage, createQueries, type Queries } from '../../../src/reads-v1/queries.ts';
import { keyspaceOf, tablesOf } from '../../../src/service/keyspace.ts';
import { rangeShape } from '../../../src/reads-v1/scan-reads.ts';
import type { EventItem, QueryItem, QueryKind, RollupItem } from '../../../src/reads-v1/types.ts';
import {
  BASE,
  HOUR,
  ROLLUP_FROM,
  ROLLUP_WINDOWS,
  danglingOf,
  expectedByTag,
  expectedRange,
  followPages,
  plain,
  readFixture,
  type Paged,
  type ReadFixture,
} from './fixture.ts';

const isEvent = (x: QueryItem): x is EventItem => 'ts' in x;
const isRollup = (x: QueryItem): x is RollupItem => 'windowStart' in x;

async function pagesOf(q: Queries, kind: QueryKind, raw: Record<string, string>): Promise<Paged<QueryItem>> {
  return followPages(async (cursor) => {
    const page = await collectPage(q.run(q.parse(kind, cursor === null ? raw : { ...raw, cursor })));
    return { items: page.items, next: page.end.next, dangling: page.end.dangling };
  });
}

async function eventPages(q: Queries, kind: QueryKind, raw: Record<string, string>): Promise<Paged<EventItem>> {
  const p = await pagesOf(q, kind, raw);
  assert.ok(p.items.every(isEvent));
  return { ...p, items: p.items.filter(isEvent) };
}

/** By-tag reads of the site whose rows moved there (whole rows back) and of an hq time window (from in, to out). */
async function movedAndWindow(q: Queries, f: ReadFixture, extra: Record<string, string>): Promise<void> {
  const moved = await eventPages(q, 'by_tag', { tag: 'site', value: 'moved', ...extra });
  assert.deepEqual(moved.items.map(plain), expectedByTag(f, 'moved').map(plain));
  assert.deepEqual(Object.keys(moved.items[0]?.metrics ?? {}).sort(), ['load', 'temp'], 'the whole data row comes back');
  const from = BASE + 60_000;
  const to = BASE + 70_300;
  const window = await eventPages(q, 'by_tag', { tag: 'site', value: 'hq', from: String(from), to: String(to), limit: '5' });
  assert.deepEqual(window.items.map(plain), expectedByTag(f, 'hq', from, to).map(plain));
  assert.ok(window.items.some((x) => x.ts === from) && window.items.every((x) => x.ts !== to));
}

void test('query layer: latest, range, by-tag and rollups read back what ingest wrote', async (t) => {
  const f = await readFixture(t, 'qry');
  const metrics = createReadMetrics(new Registry());
  const q = createQueries({ cfg: f.cfg, hbase: f.h.rest, keyspace: keyspaceOf(f.cfg), tables: tablesOf(f.cfg), metrics });

  await t.test('latest N of an id is newest first, paged without gaps or repeats; dev10 never leaks into dev1', async () => {
    const expected = expectedRange(f, 'dev1').map(plain);
    const got = await eventPages(q, 'latest', { id: 'dev1', limit: '7' });
    assert.deepEqual(got.items.map(plain), expected);
    assert.deepEqual(got.pages, [7, 7, 7, 7, 2]);
    assert.ok(got.items.every((x) => x.time === new Date(x.ts).toISOString()));
    const dev10 = await collectPage(q.run(q.parse('latest', { id: 'dev10', limit: '3' })));
    assert.deepEqual(dev10.items.filter(isEvent).map(plain), expectedRange(f, 'dev10').slice(0, 3).map(plain));
    assert.notEqual(dev10.end.next, null);
  });

  await t.test('a unicode id reads back', async () => {
    const got = await eventPages(q, 'latest', { id: '设备-7' });
    assert.deepEqual(got.items.map(plain), expectedRange(f, '设备-7').map(plain));
    assert.equal(got.items.length, 6);
  });

  await t.test('range: an event exactly at from is in, one exactly at to is out; metric filter; limits capped', async () => {
    const from = BASE + 5000;
    const to = BASE + 20_000;
    const got = await eventPages(q, 'range', { id: 'dev1', from: String(from), to: new Date(to).toISOString(), limit: '4' });
    const expected = expectedRange(f, 'dev1', { from, to }).map(plain);
    assert.deepEqual(got.items.map(plain), expected);
    assert.equal(got.items.at(-1)?.ts, from, 'the event at from is the oldest returned');
    assert.equal(got.items[0]?.ts, to - 1000, 'the event at to is not returned');
    const hum = await eventPages(q, 'range', { id: 'dev1', from: String(from), to: String(to), metric: 'hum', limit: '2' });
    assert.deepEqual(hum.items.map(plain), expectedRange(f, 'dev1', { from, to, metric: 'hum' }).map(plain));
    assert.ok(hum.items.length >= 4 && hum.items.every((x) => Object.keys(x.metrics).join() === 'hum'));
    // the region server already drops rows without the metric (the filter of rangeShape), not only the client
    let scanned = 0;
    for await (const row of f.h.rest.scan(f.h.names.data, {
      ...idTimeRange('dev1', { fromTs: from, toTs: to - 1 }, f.cfg.keys.saltBuckets),
      ...rangeShape('hum', f.cfg.tables.data.family),
    })) {
      assert.ok(row.cells.some((c) => c.qualifier.toString() === 'hum'));
      scanned++;
    }
    assert.equal(scanned, hum.items.length);
    assert.equal(q.parse('range', { id: 'dev1', limit: '999999999' }).limit, f.cfg.query.maxLimit);
    const empty = await collectPage(q.run(q.parse('range', { id: 'dev1', from: String(from), to: String(from) })));
    assert.deepEqual(empty, { items: [], end: { next: null } });
  });

  await t.test('by-tag: hits from several buckets merged newest first, paged, dangling entries dropped and counted', async () => {
    const expected = expectedByTag(f, 'hq');
    const salts = new Set(expected.map((r) => indexSaltOf({ indexName: 'site', value: 'hq', id: r.id }, f.cfg.keys.saltBuckets)));
    assert.ok(salts.size >= 3, `hits spread over ${salts.size} buckets`);
    const got = await eventPages(q, 'by_tag', { tag: 'site', value: 'hq', limit: '10' });
    assert.deepEqual(got.items.map(plain), expected.map(plain));
    assert.equal(new Set(got.items.map((x) => `${x.id}@${x.ts}`)).size, got.items.length, 'no repeats');
    assert.equal(got.dangling, danglingOf(f, 'hq'));
    assert.equal(got.dangling, 2, 'the lost row and the row whose tags moved');
    const counted = (await metrics.queryDangling.get()).values.find((v) => v.labels['index'] === 'site')?.value;
    assert.equal(counted, 2);
    const unicode = await eventPages(q, 'by_tag', { tag: 'site', value: '工厂-1' });
    assert.deepEqual(unicode.items.map(plain), expectedByTag(f, '工厂-1').map(plain));
    await movedAndWindow(q, f, {});
  });

  await t.test('by-tag pages larger than query.verifyChunk verify their hits by range scans: the same items and dangling counts', async () => {
    const cfg = { ...f.cfg, query: { ...f.cfg.query, verifyChunk: 2, verifyScanChunk: 7 } };
    const scanning = createQueries({ cfg, hbase: f.h.rest, keyspace: keyspaceOf(cfg), tables: tablesOf(cfg), metrics: createReadMetrics(new Registry()) });
    const hq = await eventPages(scanning, 'by_tag', { tag: 'site', value: 'hq', limit: '10' });
    assert.deepEqual(hq.items.map(plain), expectedByTag(f, 'hq').map(plain));
    assert.ok(hq.items.length > 7, `${hq.items.length} items: more than one verification chunk of 7`);
    assert.equal(hq.dangling, 2, 'the lost row and the row whose tags moved');
    await movedAndWindow(scanning, f, { limit: '10' });
  });

  await t.test('rollups: summary rows of one id and window size, newest first, paged, metric filter', async () => {
    const to = ROLLUP_FROM + ROLLUP_WINDOWS * HOUR;
    const got = await pagesOf(q, 'rollups', { id: 'dev1', window: '1h', from: String(ROLLUP_FROM), to: String(to), limit: '4' });
    assert.ok(got.items.every(isRollup));
    const items = got.items.filter(isRollup);
    const expected = [...f.rollups].reverse();
    assert.deepEqual(
      items.map((r) => ({ windowStart: r.windowStart, metrics: r.metrics })),
      expected,
    );
    assert.ok(items.every((r) => r.id === 'dev1' && r.window === '1h' && r.windowEnd === r.windowStart + HOUR));
    assert.deepEqual(got.pages, [4, 2]);
    const hum = await collectPage(q.run(q.parse('rollups', { id: 'dev1', window: '3600', from: String(ROLLUP_FROM), to: String(to), metric: 'hum' })));
    const humItems = hum.items.filter(isRollup);
    assert.deepEqual(
      humItems.map((r) => r.windowStart),
      expected.filter((r) => 'hum' in r.metrics).map((r) => r.windowStart),
    );
    assert.ok(humItems.every((r) => Object.keys(r.metrics).join() === 'hum'));
    const inner = await collectPage(
      q.run(q.parse('rollups', { id: 'dev1', window: '1h', from: String(ROLLUP_FROM + HOUR), to: String(ROLLUP_FROM + 3 * HOUR) })),
    );
    assert.deepEqual(
      inner.items.filter(isRollup).map((r) => r.windowStart),
      [ROLLUP_FROM + 2 * HOUR, ROLLUP_FROM + HOUR],
      'windows starting in [from, to)',
    );
  });

  await t.test('repair: with query.repairDangling the dangling index rows are deleted, and later reads find none', async () => {
    const cfg = { ...f.cfg, query: { ...f.cfg.query, repairDangling: true, danglingGraceMs: 0 } };
    const repairing = createQueries({ cfg, hbase: f.h.rest, keyspace: keyspaceOf(cfg), tables: tablesOf(cfg), metrics });
    const first = await eventPages(repairing, 'by_tag', { tag: 'site', value: 'hq', limit: '50' });
    assert.equal(first.dangling, 2);
    const lost = f.indexEntries.filter((x) => x.value === 'hq' && !expectedByTag(f, 'hq').some((r) => r.id === x.id && r.ts === x.ts));
    assert.equal(lost.length, 2);
    for (const x of lost) {
      const key = encodeIndexKey({ indexName: 'site', value: 'hq', ts: x.ts, id: x.id }, f.cfg.keys.saltBuckets);
      assert.equal(await f.h.rest.get(f.h.names.index, key), null, `index row of ${x.id}@${x.ts} deleted`);
    }
    const again = await eventPages(q, 'by_tag', { tag: 'site', value: 'hq', limit: '50' });
    assert.equal(again.dangling, 0);
    assert.deepEqual(again.items.map(plain), first.items.map(plain));
    assert.equal((await metrics.queryRepaired.get()).values.find((v) => v.labels['index'] === 'site')?.value, 2);
  });
});
