import { describe, it } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMetrics } from '../../../src/metrics/ingest-metrics.ts';
import { encodedRegionName } from '../../../src/hbase/region-name.ts';
import { RegionMap } from '../../../src/load/region-map.ts';
import { encodeDataKey } from '../../../src/keys/index.ts';
import type { HeatmapSnapshot } from '../../../src/ui/heatmap-data.ts';
import type { HotIdsSnapshot } from '../../../src/load/hot-ids.ts';
import { HotIds } from '../../../src/load/hot-ids.ts';
import { HOT_ID_METRICS, registerHotIdMetrics } from '../../../src/metrics/hot-id-metrics.ts';
import { testKeyspace } from '../../support/keyspace.ts';
import { IDLE_COLOR, esc, heatColor, renderHeatmap, renderPage, ringSkew, type UiSnapshot } from '../../../src/ui/ui-render.ts';
import { startUi, uiRoutes, type RouteHandler } from '../../../src/ui/page.ts';
import { DOCTOR_OFF } from '../../../src/doctor/scheduler.ts';
import { startHttpServer } from '../../../src/runtime/http.ts';
import { Lifecycle } from '../../../src/runtime/lifecycle.ts';
import { FakeSource, saltedRegions, silentLog } from '../load/fixtures.ts';

const count = (html: string, re: RegExp): number => [...html.matchAll(re)].length;

function snapshot(): UiSnapshot {
  const heatmap: HeatmapSnapshot = {
    sampleMs: 5000,
    maxSamples: 4,
    times: [1_700_000_005_000, 1_700_000_010_000],
    rows: [
      { region: 'aaaa', start: '', end: '\\x01', server: 'rs1:16020', state: 'live', writes: [0, 0], total: 0 },
      { region: 'bbbb', start: '\\x01', end: '', server: 'rs1:16020', state: 'live', writes: [30, 10], total: 40 },
      { region: 'cccc', start: '\\x01', end: '', server: 'rs0:16020', state: 'gone', writes: [5, 0], total: 5 },
    ],
  };
  const hotIds: HotIdsSnapshot = {
    windowMs: 60_000,
    total: 45,
    capacity: 64,
    errorBound: 45 / 64,
    undecodable: 0,
    ids: [
      {
        id: '<dev&"1">',
        events: 30,
        error: 0,
        share: 30 / 45,
        bucket: 1,
        k: 4,
        epoch: { since: 1_700_000_000_000, k: 4 },
        region: 'bbbb',
        server: 'rs1:16020',
      },
    ],
  };
  return { generatedAt: 1_700_000_010_500, table: 'tsi_data', buckets: 2, heatmap, hotIds, doctor: DOCTOR_OFF };
}

void describe('render', () => {
  void it('escapes text and makes control characters visible', () => {
    assert.equal(esc(`<a href="x">&'\u0001\u007f`), '&lt;a href=&quot;x&quot;&gt;&amp;&#39;\\x01\\x7F');
  });

  void it('colours idle cells grey and darkens with the value', () => {
    assert.equal(heatColor(0, 10), IDLE_COLOR);
    assert.equal(heatColor(5, 0), IDLE_COLOR);
    assert.equal(heatColor(10, 10), 'rgb(128,0,38)');
    const red = (c: string): number => Number(/rgb\((\d+)/.exec(c)?.[1]);
    const green = (c: string): number => Number(/rgb\(\d+,(\d+)/.exec(c)?.[1]);
    assert.ok(green(heatColor(1, 100)) > green(heatColor(50, 100)) && red(heatColor(50, 100)) > red(heatColor(100, 100)));
  });

  void it('draws one row per region, one cell per busy sample, and marks the hot id region', () => {
    const s = snapshot();
    const svg = renderHeatmap(s.heatmap, s.hotIds);
    assert.equal(count(svg, /<g class="region-row"/g), 3);
    assert.equal(count(svg, /<rect class="cell"/g), 3); // 30, 10 and 5: zeros stay on the idle background
    assert.match(svg, /<g class="region-row" data-region="bbbb" data-start="\\x01" data-state="live" data-total="40" data-hot="1">/);
    assert.match(svg, /hot: &lt;dev&amp;&quot;1&quot;&gt;/);
    assert.match(svg, /\(gone\)/);
    assert.match(svg, /data-writes="30"><title>\\x01 · 22:13:20–22:13:25 UTC: 30 rows \(6\/s\)<\/title>/);
    assert.equal(ringSkew(s.heatmap), 40 / 20);
  });

  void it('renders the hot ids table with escaped ids, shares, K and the error bound', () => {
    const html = renderPage(snapshot(), 5000);
    assert.match(html, /^<!doctype html>/);
    assert.match(html, /<tr class="hot-id" data-id="&lt;dev&amp;&quot;1&quot;&gt;" data-events="30" data-k="4">/);
    assert.match(html, /<td class="num k">4<\/td>/, 'K in effect, no epoch to come');
    const s = snapshot();
    const [first] = s.hotIds.ids;
    assert.ok(first !== undefined);
    const pending = renderPage({ ...s, hotIds: { ...s.hotIds, ids: [{ ...first, k: 1, epoch: { since: 1_700_000_060_000, k: 8 } }] } }, 5000);
    assert.match(pending, /<td class="num k">1 <small>→ 8 from 22:14:20<\/small><\/td>/, 'a promotion whose epoch has not started yet');
    assert.match(html, /66\.7%/);
    assert.match(html, /at most 0\.7 too high/);
    assert.match(html, /const every=5000;/);
    assert.doesNotMatch(renderPage(snapshot(), 0), /<script>/);
    assert.doesNotMatch(html, /(src|href)="(https?:)?\/\//, 'no external assets');
  });

  void it('says so when there is nothing to show yet', () => {
    const s = snapshot();
    const empty = { ...s, heatmap: { ...s.heatmap, times: [], rows: [] }, hotIds: { ...s.hotIds, ids: [], total: 0 } };
    const html = renderPage(empty, 0);
    assert.match(html, /id="heatmap-empty"/);
    assert.match(html, /id="hot-ids-empty"/);
  });
});

async function serve(t: TestContext, handler: RouteHandler): Promise<string> {
  const server = createServer((req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://localhost');
    handler(req, res, pathname).then(
      (handled) => {
        if (!handled) {
          res.writeHead(404);
          res.end('not ours');
        }
      },
      (err: unknown) => {
        res.writeHead(500);
        res.end(String(err));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

void describe('uiRoutes', () => {
  void it('serves the page, its JSON, HEAD, a redirect for /ui/ and 405 for other methods', async (t) => {
    const snap = snapshot();
    const base = await serve(t, uiRoutes({ snapshot: () => snap }));
    const page = await fetch(`${base}/ui`);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(page.headers.get('cache-control'), 'no-store');
    assert.equal(count(await page.text(), /<g class="region-row"/g), 3);
    const data = await fetch(`${base}/ui/data.json`);
    assert.match(data.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(await data.json(), JSON.parse(JSON.stringify(snap)));
    const head = await fetch(`${base}/ui`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), '');
    const slash = await fetch(`${base}/ui/`, { redirect: 'manual' });
    assert.equal(slash.status, 302);
    assert.equal(new URL(slash.headers.get('location') ?? '', `${base}/ui/`).pathname, '/ui');
    const post = await fetch(`${base}/ui`, { method: 'POST' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
    const other = await fetch(`${base}/ui/else`);
    assert.equal(other.status, 404);
    assert.equal(await other.text(), 'not ours');
  });

  void it('mounts on the service HTTP server as its extra routes', async (t) => {
    const metrics = createMetrics(undefined, { defaultMetrics: false });
    const lifecycle = new Lifecycle({ log: silentLog, metrics });
    const server = await startHttpServer({ host: '127.0.0.1', port: 0, registry: metrics.registry, lifecycle, log: silentLog, routes: uiRoutes({ snapshot }) });
    t.after(() => server.close());
    const base = `http://127.0.0.1:${server.port}`;
    assert.equal((await fetch(`${base}/ui/data.json`)).status, 200);
    assert.equal((await fetch(`${base}/healthz`)).status, 200);
    assert.equal((await fetch(`${base}/nope`)).status, 404);
  });

  void it('answers 503 until the service built the page parts', async (t) => {
    const base = await serve(t, uiRoutes({ snapshot: () => undefined }));
    assert.equal((await fetch(`${base}/ui/data.json`)).status, 503);
  });

  void it('rejects a bad refresh period, naming it', () => {
    assert.throws(() => uiRoutes({ snapshot: () => undefined, refreshMs: -5 }), /refreshMs must be a number ≥ 0, got -5/);
  });
});

void describe('startUi', () => {
  void it('composes the service hot ids and the sampler over the service metrics and region map', async () => {
    const metrics = createMetrics(undefined, { defaultMetrics: false });
    const source = new FakeSource();
    const regions = saltedRegions('d', 2);
    source.answer = regions;
    const regionMap = new RegionMap({ source, log: silentLog });
    await regionMap.refresh('d');
    const hotIds = new HotIds({ table: 'd', keyspace: testKeyspace(2), regions: regionMap });
    const unregister = registerHotIdMetrics(metrics.registry, hotIds);
    const ui = startUi({ metrics, regionMap, table: 'd', buckets: 2, hotIds, sampleMs: 60_000 });
    const r1 = encodedRegionName(regions[1]?.name ?? '');
    metrics.regionWrites.inc({ table: 'd', region: r1, server: 'rs1:16020' }, 12);
    hotIds.recordDataKeys([encodeDataKey({ id: 'x', ts: 1 }, 2), encodeDataKey({ id: 'x', ts: 2 }, 2)]);
    await ui.sampler.sample();
    const snap = ui.snapshot();
    assert.deepEqual(
      snap.heatmap.rows.map((r) => r.total),
      [0, 12],
    );
    assert.deepEqual(
      snap.hotIds.ids.map((h) => [h.id, h.events]),
      [['x', 2]],
    );
    assert.deepEqual(snap.doctor, DOCTOR_OFF, 'without a doctor the snapshot says it is off');
    assert.match(await metrics.registry.metrics(), /tsingest_hot_id_events\{id="x"\} 2/);
    ui.close();
    ui.close();
    unregister();
    assert.equal(metrics.registry.getSingleMetric(HOT_ID_METRICS.events), undefined);
  });
});
