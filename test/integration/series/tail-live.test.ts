// The dashboard case against the real stack: events keep arriving with ts = now (a few of them late),
// their data writes slowed at random by a proxy in front of the gateway (points become visible up to
// 2.5 s after ingest took them), while a panel over the last hour is refreshed every second. Once the
// feed stops and ingest has caught up, the panel's answer, served with the tail cache, must hold every
// point, exactly: per site and minute, the count of distinct (id, ts) produced. Once in one process,
// once with an ingest and a query process and an id promoted to spread mid-feed (its new epoch's
// points in other salt buckets, which the query process learns from the registry's refresh).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { uniqueName } from '../../support/env.ts';
import { startHoldingProxy } from '../../support/holding-proxy.ts';
import type { Service } from '../../../src/service/service.ts';
import { createHarness, produceEvents, startInProcess, waitForEvents, type Harness, type TestEvent } from '../../support/service-harness.ts';
import { registryNow } from '../spread/helpers.ts';
import { post } from './helpers.ts';

const MIN = 60_000;
const SITES = ['north', 'south', 'east', 'west'] as const;
const IDS = 40;
const FEED_MS = 45_000;

interface Series {
  readonly tags: Record<string, string>;
  readonly dps: Record<string, number>;
}

function panel(start: number, end: number): Record<string, unknown> {
  return {
    start,
    end,
    queries: [{ aggregator: 'sum', metric: 'temp', downsample: '1m-count', filters: [{ type: 'wildcard', tagk: 'site', filter: '*', groupBy: true }] }],
  };
}

/** Per site, per minute (seconds): the distinct (id, ts) produced in [start, end]. */
function expected(events: readonly TestEvent[], start: number, end: number): Map<string, Map<string, number>> {
  const seen = new Set<string>();
  const out = new Map<string, Map<string, number>>();
  for (const e of events) {
    if (e.ts < start || e.ts > end || seen.has(`${e.id}|${e.ts}`)) continue;
    seen.add(`${e.id}|${e.ts}`);
    const site = e.tags?.['site'] ?? '';
    const bySite = out.get(site) ?? new Map<string, number>();
    out.set(site, bySite);
    const minute = String((e.ts - (e.ts % MIN)) / 1000);
    bySite.set(minute, (bySite.get(minute) ?? 0) + 1);
  }
  return out;
}

function answered(body: unknown): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const s of body as Series[]) out.set(s.tags['site'] ?? '', new Map(Object.entries(s.dps)));
  return out;
}

async function tailLookups(port: number): Promise<{ hit: number; miss: number; untouched: number }> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const of = (outcome: string): number =>
    Number(new RegExp(`^tsingest_series_cache_lookups_total\\{cache="tail",outcome="${outcome}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 'NaN');
  return { hit: of('hit'), miss: of('miss'), untouched: of('untouched') };
}

async function catalogRereads(port: number): Promise<{ scanned: number; journal: number; unchanged: number }> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const of = (outcome: string): number =>
    Number(new RegExp(`^tsingest_series_catalog_rereads_total\\{outcome="${outcome}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 'NaN');
  return { scanned: of('scanned'), journal: of('journal'), unchanged: of('unchanged') };
}

const BASE_SETS = ['rollup.windows=["1m","1h"]', 'rollup.intervalMs=2000', 'index.tags=["site"]', 'series.catalogRefreshMs=1000'] as const;

/** A harness whose services reach the gateway through a proxy that delays half the data table's writes by up to 2.5 s. */
async function slowWrites(
  t: { after(fn: () => Promise<void>): void },
  prefix: string,
  sets: readonly string[],
): Promise<{ h: Harness; restUrl: string; delayed: () => number }> {
  const h = await createHarness(t, { prefix, partitions: 2, sets: [...BASE_SETS, ...sets] });
  const proxy = await startHoldingProxy(h.env.restUrl, h.defer);
  const data = h.names.data;
  proxy.delay(
    (method, path) => method !== 'GET' && !path.includes('/scanner') && decodeURIComponent(path).startsWith(`/${data}/`) && Math.random() < 0.5,
    2500,
  );
  return { h, restUrl: proxy.url, delayed: () => proxy.delayed };
}

/**
 * Feeds 20 events each 250 ms for FEED_MS (one in ten up to 40 s old: series.tailCache.lateMs is 30 s)
 * while `query` refreshes the panel every second; `midway` runs once half-way. Waits until `ingest`
 * wrote them all, then asks the panel twice and checks both answers against what was produced.
 */
async function refreshedWhileFed(h: Harness, ingest: Service, query: Service, midway: () => Promise<void> = () => Promise.resolve()): Promise<void> {
  const events: TestEvent[] = [];
  const feedStart = Date.now();
  const start = feedStart - (feedStart % MIN) - MIN;
  let refreshes = 0;
  const refresh = (async () => {
    while (Date.now() - feedStart < FEED_MS) {
      const r = await post(query.httpPort, '/api/query', panel(start, Date.now()));
      if (r.status === 200) refreshes++;
      await new Promise((res) => setTimeout(res, 1000));
    }
  })();
  let n = 0;
  let half = false;
  while (Date.now() - feedStart < FEED_MS) {
    if (!half && Date.now() - feedStart > FEED_MS / 2) {
      half = true;
      await midway();
    }
    const now = Date.now();
    const batch: TestEvent[] = Array.from({ length: 20 }, () => {
      const id = n++ % IDS;
      const ts = Math.random() < 0.1 ? now - Math.floor(Math.random() * 40_000) : now - Math.floor(Math.random() * 300);
      return { id: `dev-${id}`, ts: Math.max(ts, start), metric: 'temp', value: n, tags: { site: SITES[id % SITES.length] ?? 'north' } };
    });
    events.push(...batch);
    await produceEvents(h, batch);
    await new Promise((res) => setTimeout(res, 250));
  }
  await refresh;
  await waitForEvents(ingest, events.length, 120_000);
  const end = Date.now();
  const want = expected(events, start, end);

  const first = await post(query.httpPort, '/api/query', panel(start, end));
  assert.equal(first.status, 200);
  assert.deepEqual(answered(first.body), want, 'the first answer after the catch-up');
  await new Promise((res) => setTimeout(res, 3000));
  const again = await post(query.httpPort, '/api/query', panel(start, end));
  assert.deepEqual(answered(again.body), want, 'the same range asked again');
  // once no write is newer than a read's touch allowance (TOUCH_EVERY_MS and the clock tolerance), the
  // ids are answered from the tail cache with no read of HBase, still exactly
  const quiet = await tailLookups(query.httpPort);
  await new Promise((res) => setTimeout(res, 11_000));
  await post(query.httpPort, '/api/query', panel(start, end));
  const third = await post(query.httpPort, '/api/query', panel(start, end));
  assert.deepEqual(answered(third.body), want, 'the same range asked once the writes are old');
  const lookups = await tailLookups(query.httpPort);
  assert.ok(lookups.untouched > quiet.untouched, `entries answered with no read: ${JSON.stringify({ quiet, lookups })}`);
  assert.ok(refreshes >= 20, `the panel was refreshed during the feed (${refreshes} answers)`);
  assert.ok(lookups.hit > 0, `the tail cache answered part of the refreshes: ${JSON.stringify(lookups)}`);
}

void test('one process: a panel over the last hour, refreshed while events arrive and their writes lag, holds every point once ingest caught up', async (t) => {
  const { h, restUrl, delayed } = await slowWrites(t, 'tlive', []);
  const svc = await startInProcess(h, [`kafka.groupId=${uniqueName('it-tlive')}`, 'http.port=0', `hbase.restUrl=${restUrl}`]);
  await refreshedWhileFed(h, svc, svc);
  assert.ok(delayed() > 0, 'some data writes were delayed');
});

void test('an ingest and a query process, an id promoted to spread mid-feed: the panel holds every point once ingest caught up', async (t) => {
  const spread = ['keys.spread.leadMs=3000', 'keys.spread.refreshMs=500', 'keys.spread.clockToleranceMs=500'];
  const { h, restUrl, delayed } = await slowWrites(t, 'tlrole', spread);
  const group = uniqueName('it-tlrole');
  const sets = [`kafka.groupId=${group}`, 'http.port=0', `hbase.restUrl=${restUrl}`];
  const ingest = await startInProcess(h, [...sets, 'service.role=ingest']);
  const query = await startInProcess(h, [...sets, 'service.role=query']);
  let since = Number.NaN;
  await refreshedWhileFed(h, ingest, query, async () => {
    // as `tsingest spread set dev-0 4` does: its epoch begins leadMs on
    since = (await (await registryNow(h, h.config([`kafka.groupId=${group}`]))).registry.promote('dev-0', 4, 'manual'))?.since ?? Number.NaN;
  });
  assert.ok(Number.isFinite(since) && since < Date.now() - 10_000, 'dev-0 was spread for part of the feed');
  assert.ok(delayed() > 0, 'some data writes were delayed');
});

void test("a new id of a known metric is in the first answer after its write, read from the catalog's journal with no timed reread; a query with nothing new reads the catalog's generation, not the catalog", async (t) => {
  const h = await createHarness(t, {
    prefix: 'tlnew',
    partitions: 1,
    sets: ['rollup.windows=["1m","1h"]', 'index.tags=["site"]', 'series.catalogRefreshMs=600000'],
  });
  const svc = await startInProcess(h, [`kafka.groupId=${uniqueName('it-tlnew')}`, 'http.port=0']);
  const now = Date.now();
  const start = now - (now % MIN) - MIN;
  const known: TestEvent[] = [0, 1, 2].map((i) => ({ id: `dev-${i}`, ts: now - 1000 + i, metric: 'temp', value: i, tags: { site: 'north' } }));
  await produceEvents(h, known);
  await waitForEvents(svc, known.length);
  const first = await post(svc.httpPort, '/api/query', panel(start, Date.now()));
  assert.deepEqual(answered(first.body), expected(known, start, Date.now()), 'the catalog read at the first query');
  // nothing new written: the query's reread reads the catalog's generation and spares the scan
  const before = await catalogRereads(svc.httpPort);
  const again = await post(svc.httpPort, '/api/query', panel(start, Date.now()));
  assert.deepEqual(answered(again.body), answered(first.body));
  const after = await catalogRereads(svc.httpPort);
  assert.equal(after.unchanged, before.unchanged + 1, `spared: ${JSON.stringify({ before, after })}`);
  assert.equal(after.scanned, before.scanned, 'no scan');
  const fresh: TestEvent = { id: 'dev-new', ts: Date.now(), metric: 'temp', value: 9, tags: { site: 'south' } };
  await produceEvents(h, [fresh]);
  await waitForEvents(svc, known.length + 1);
  const end = Date.now();
  const next = await post(svc.httpPort, '/api/query', panel(start, end));
  assert.deepEqual(answered(next.body), expected([...known, fresh], start, end), 'the new id (a new site too) is in the next answer');
  const last = await catalogRereads(svc.httpPort);
  assert.ok(last.journal > after.journal, `ingest journaled the new series and replaced the generation: the journal read, ${JSON.stringify({ after, last })}`);
  assert.equal(last.scanned, after.scanned, 'and no scan of every series row');
});
