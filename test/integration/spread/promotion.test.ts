// Spread ids against the real stack: two service instances promote a hot id mid-stream through the
// registry, every event lands in the one row its epoch gives (late events on both sides of `since`
// too), a replay from the earliest offset leaves the tables unchanged row for row, and latest, range,
// by-tag and rollups of the spread id equal what the test computes from the events it produced.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { saltOf, spreadOffset } from '../../../src/keys/index.ts';
import { createReadMetrics } from '../../../src/metrics/read-metrics.ts';
import { SPREAD_METRIC_NAMES } from '../../../src/metrics/spread-metrics.ts';
import { collectPage, createQueries, type Queries } from '../../../src/reads-v1/queries.ts';
import type { EventItem, QueryItem, QueryKind, RollupItem } from '../../../src/reads-v1/types.ts';
import { RollupJob } from '../../../src/rollup/job.ts';
import { rollupSettings } from '../../../src/rollup/rollup-settings.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { tablesOf } from '../../../src/service/keyspace.ts';
import type { Service } from '../../../src/service/service.ts';
import { uniqueName } from '../../support/env.ts';
import { createHarness, eventsProcessed, produceEvents, startInProcess, waitFor, type TestEvent } from '../../support/service-harness.ts';
import { followPages } from '../reads-v1/fixture.ts';
import { HOT, SPREAD_SETS, expectedDataKeys, expectedIndexKeys, expectedRowsOf, produceLive, registryNow, tableRows } from './helpers.ts';

async function processed(services: readonly Service[]): Promise<number> {
  let n = 0;
  for (const s of services) {
    const c = await eventsProcessed(s);
    n += c.written + c.dlq;
  }
  return n;
}

async function autoPromotions(s: Service): Promise<number> {
  const m = await s.metrics.registry.getSingleMetric(SPREAD_METRIC_NAMES.promotions)?.get();
  return m?.values.find((v) => v.labels['origin'] === 'auto')?.value ?? 0;
}

async function pages(q: Queries, kind: QueryKind, raw: Record<string, string>): Promise<{ items: QueryItem[]; pages: number[] }> {
  return followPages(async (cursor) => {
    const page = await collectPage(q.run(q.parse(kind, cursor === null ? raw : { ...raw, cursor })));
    return { items: page.items, next: page.end.next };
  });
}

const events = (items: readonly QueryItem[]): EventItem[] => items.filter((x): x is EventItem => 'ts' in x);
const rollups = (items: readonly QueryItem[]): RollupItem[] => items.filter((x): x is RollupItem => 'windowStart' in x);

const rowsOf = (items: readonly EventItem[]): { ts: number; metrics: Record<string, number> }[] => items.map((e) => ({ ts: e.ts, metrics: { ...e.metrics } }));

void test('a hot id spread mid-stream by two instances: one row per event, a replay changes nothing, reads are exact', async (t) => {
  const h = await createHarness(t, { prefix: 'spr', partitions: 4, sets: [...SPREAD_SETS] });
  const group = uniqueName('it-spr');
  const a = await startInProcess(h, [`kafka.groupId=${group}`, 'http.port=0']);
  const b = await startInProcess(h, [`kafka.groupId=${group}`, 'http.port=0']);
  const cfg = h.config([`kafka.groupId=${group}`]);

  // Live events until the instances, summing their write shares in the registry, promote "hot".
  let since = Number.NaN;
  const phase1 = await produceLive(h, 200, async (out) => {
    if (out.length > 4000) throw new Error('no promotion after 4,000 events');
    const entry = (await registryNow(h, cfg)).registry.entryOf(HOT);
    since = entry?.epochs[0]?.since ?? Number.NaN;
    return !Number.isNaN(since);
  });
  // The promotion is durable before any write uses it: nothing written so far is at ts ≥ since.
  assert.ok(
    phase1.every((e) => e.ts < since),
    'the epoch starts after every event written before it was visible',
  );
  const phase2 = await produceLive(h, 200, () => Date.now() > since + 3000, phase1.length);
  // Late events, produced after the promotion, on both sides of since.
  const late: TestEvent[] = [
    { id: HOT, ts: since - 777, metric: 'late', value: 1, tags: { site: 'h' } },
    { id: HOT, ts: since + 777, metric: 'late', value: 2, tags: { site: 'h' } },
  ];
  await produceEvents(h, late);
  const all = [...phase1, ...phase2, ...late];
  await waitFor(`${all.length} events processed by the two instances`, 120_000, async () => (await processed([a, b])) >= all.length);

  const { keyspace: ks, registry } = await registryNow(h, cfg);
  await t.test('the instances agree through the registry: one epoch, K sized to the share, applied once', async () => {
    const entry = registry.entryOf(HOT);
    assert.deepEqual(entry?.epochs, [{ since, k: 4 }]);
    assert.deepEqual(registry.spreadIds(), [HOT], 'no cold id is spread');
    assert.equal((await autoPromotions(a)) + (await autoPromotions(b)), 1, 'one instance applied it; the other found it done');
  });

  await t.test('every event is in the one row its epoch gives; the hot id spreads over all 4 buckets after since', async () => {
    const data = await tableRows(h, h.names.data);
    assert.deepEqual(data.keys, expectedDataKeys(ks, all), 'row for row');
    const buckets = new Set(all.filter((e) => e.id === HOT && e.ts >= since).map((e) => ks.dataKey(e.id, e.ts)[0]));
    assert.equal(buckets.size, 4);
    assert.equal(ks.dataKey(HOT, since - 777)[0], saltOf(HOT, 4), 'a late event before since keeps the plain key');
    assert.equal(ks.dataKey(HOT, since + 777)[0], (saltOf(HOT, 4) + spreadOffset(since + 777, 4)) % 4, 'a late event after since goes to its spread bucket');
    assert.deepEqual((await tableRows(h, h.names.index)).keys, expectedIndexKeys(ks, all), "index rows carry the data row's spread offset");
  });

  const before = { data: await tableRows(h, h.names.data), index: await tableRows(h, h.names.index) };
  await t.test('a replay from the earliest offset after the promotion leaves the tables unchanged, row for row', async (t) => {
    await a.stop('replay test');
    await b.stop('replay test');
    const c = await startInProcess(h, [`kafka.groupId=${uniqueName('it-spr-replay')}`, 'http.port=0']);
    await waitFor(`the replay of ${all.length} events`, 120_000, async () => (await processed([c])) >= all.length);
    await c.stop('replayed');
    const after = { data: await tableRows(h, h.names.data), index: await tableRows(h, h.names.index) };
    t.diagnostic(
      `replay of ${all.length} events across the promotion: data rows ${before.data.keys.length} → ${after.data.keys.length} (cells ${before.data.cells} → ${after.data.cells}), index rows ${before.index.keys.length} → ${after.index.keys.length}`,
    );
    assert.deepEqual(after.data, before.data, 'data: same rows, same cells');
    assert.deepEqual(after.index, before.index, 'index: same rows, same cells');
  });

  const q = createQueries({
    cfg,
    hbase: h.rest,
    keyspace: ks,
    tables: tablesOf(cfg),
    entryFor: (id) => registry.fetch(id),
    metrics: createReadMetrics(new Registry()),
  });
  await t.test('latest and range of the spread id, across pages, equal its events', async () => {
    const latest = await pages(q, 'latest', { id: HOT, limit: '7' });
    assert.ok(latest.pages.length > 3);
    assert.deepEqual(rowsOf(events(latest.items)), expectedRowsOf(all, HOT));
    const from = since - 1500;
    const to = since + 1500;
    const range = await pages(q, 'range', { id: HOT, from: String(from), to: String(to), limit: '5' });
    assert.deepEqual(rowsOf(events(range.items)), expectedRowsOf(all, HOT, from, to));
  });

  await t.test("by-tag over the spread id's index rows, across pages, equals its events", async () => {
    const got = events((await pages(q, 'by_tag', { tag: 'site', value: 'h', limit: '9' })).items);
    assert.ok(got.every((e) => e.id === HOT));
    assert.deepEqual(rowsOf(got), expectedRowsOf(all, HOT));
  });

  await t.test('rollups of the spread id: one summary row per window, equal to its events', async () => {
    const job = new RollupJob({
      store: h.rest,
      settings: rollupSettings(cfg, ks, tablesOf(cfg)),
      metrics: createReadMetrics(new Registry(), ['5s', '1m']),
      log: createLogger({ level: 'silent' }),
      now: () => Date.now() + 3_600_000,
    });
    const report = await job.run();
    assert.equal(report.ok, true);
    const got = rollups((await pages(q, 'rollups', { id: HOT, window: '5s', limit: '4' })).items);
    const expected = new Map<number, Map<string, { count: number; sum: number }>>();
    for (const e of all.filter((x) => x.id === HOT)) {
      const start = e.ts - (e.ts % 5000);
      const w = expected.get(start) ?? new Map<string, { count: number; sum: number }>();
      const m = w.get(e.metric) ?? { count: 0, sum: 0 };
      w.set(e.metric, { count: m.count + 1, sum: m.sum + e.value });
      expected.set(start, w);
    }
    assert.deepEqual(
      got.map((r) => r.windowStart),
      [...expected.keys()].sort((x, y) => y - x),
      'one row per window, newest first',
    );
    for (const r of got) {
      for (const [metric, want] of expected.get(r.windowStart) ?? []) {
        const m = r.metrics[metric];
        assert.ok(m !== undefined, `${r.windowStart} ${metric}`);
        assert.equal(m.count, want.count, `${r.windowStart} ${metric}`);
        assert.ok(Math.abs(m.sum - want.sum) < 1e-9);
      }
    }
    const minutely = rollups((await pages(q, 'rollups', { id: HOT, window: '1m' })).items);
    assert.equal(
      minutely.reduce((n, r) => n + Object.values(r.metrics).reduce((s, m) => s + m.count, 0), 0),
      all.filter((e) => e.id === HOT).length,
      '1m summaries count every event once',
    );
  });
});
