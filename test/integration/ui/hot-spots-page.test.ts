// The /ui page in headless Chromium against a real service under load: events with one dominant id go
// through Kafka into HBase; the page's heatmap has one row per region of the data table with the rows
// written there (checked against per-bucket counts computed here from the produced events), the
// dominant id heads the hot ids table and is marked on its region's row. The page is the service's
// own (`/ui` on its HTTP port), fed by the live write path: the heatmap samples the service's
// per-region counters every 5 s, the hot-ids sketch gets every acknowledged data key. The sketch is
// fed in write chunks, so the hot id's count is checked within the sketch's stated error bound.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prng } from '../../../src/demo/generate.ts';
import { RegionMap } from '../../../src/load/region-map.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import type { UiSnapshot } from '../../../src/ui/page.ts';
import { uniqueName } from '../../support/env.ts';
import { createHarness, produceEvents, retryingRest, startInProcess, waitFor, waitForEvents, type TestEvent } from '../../support/service-harness.ts';
import { dumpDom, pngSize, screenshot } from './headless-chromium.ts';

const B = 4; // the harness creates 4 salt buckets
const HOT = 'pump-17';
const md5Salt = (id: string): number => createHash('md5').update(id, 'utf8').digest().readUInt32BE(0) % B;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Six waves: background ids only, then the hot id taking half of each wave. Distinct (id, ts). */
function waves(): TestEvent[][] {
  const random = prng(42);
  let ts = 1_732_262_400_000;
  return Array.from({ length: 6 }, (_, w) =>
    Array.from({ length: 500 }, () => {
      const id = w >= 2 && random() < 0.5 ? HOT : `meter-${Math.floor(random() * 300)}`;
      return { id, ts: ts++, metric: 'load', value: random() };
    }),
  );
}

interface RowAttrs {
  readonly region: string;
  readonly state: string;
  readonly total: number;
  readonly cellWrites: number[];
  readonly text: string;
}

/** The heatmap rows of a serialized DOM: attributes of each g.region-row and its cells. */
function heatmapRows(dom: string): RowAttrs[] {
  const rows: RowAttrs[] = [];
  for (const m of dom.matchAll(/<g class="region-row"([^>]*)>(.*?)<\/g>/gs)) {
    const attrs = m[1] ?? '';
    const body = m[2] ?? '';
    const attr = (name: string): string => new RegExp(`${name}="([^"]*)"`).exec(attrs)?.[1] ?? '';
    rows.push({
      region: attr('data-region'),
      state: attr('data-state'),
      total: Number(attr('data-total')),
      cellWrites: [...body.matchAll(/<rect class="cell"[^>]*data-writes="(\d+)"/g)].map((c) => Number(c[1])),
      text: body.replace(/<title>.*?<\/title>/gs, '').replace(/<[^>]+>/g, ' '),
    });
  }
  return rows;
}

void test('the /ui page shows each region of the data table and the dominant hot id, in headless Chromium', async (t) => {
  const h = await createHarness(t, { prefix: 'ui' });
  // A hot-ids window and a sampling period that cover the whole test, so nothing ages out meanwhile.
  const svc = await startInProcess(h, [`kafka.groupId=${uniqueName('it-ui')}`, 'http.port=0', 'metrics.hotIdsWindowMs=600000', 'metrics.heatmapSampleMs=1000']);

  const regionMap = new RegionMap({
    source: {
      regions: async (table) => (await h.rest.regions(table)).map((r) => ({ name: r.name, startKey: r.startKey, endKey: r.endKey, server: r.location })),
    },
    log: createLogger({ level: 'warn' }),
  });
  await retryingRest('regions', () => regionMap.refresh(h.names.data));
  const regions = regionMap.regions(h.names.data) ?? [];
  assert.equal(regions.length, B, 'the data table is pre-split into one region per salt bucket');
  const base = `http://127.0.0.1:${svc.httpPort}`;
  const snapshot = async (): Promise<UiSnapshot> => (await (await fetch(`${base}/ui/data.json`)).json()) as UiSnapshot;

  // Load in waves, so the heatmap has a time shape (not asserted: only what was written is).
  const all: TestEvent[] = [];
  for (const wave of waves()) {
    await produceEvents(h, wave);
    all.push(...wave);
    await sleep(1200);
  }
  // A service that fails stops the wait at once with its error, instead of at the timeout.
  await Promise.race([
    waitForEvents(svc, all.length),
    svc.finished.then(() => {
      throw new Error('the service stopped before writing every event');
    }),
  ]);
  // The page samples the counters every second here: wait until its heatmap holds every written row.
  await waitFor('the heatmap to hold every data row', 60_000, async () => (await snapshot()).heatmap.rows.reduce((n, r) => n + r.total, 0) >= all.length, 500);

  // Expected, computed from the produced events: rows per region (= per salt bucket) and the hot id count.
  const encodedOf = (name: string): string => /\.([0-9a-f]{32})\.$/.exec(name)?.[1] ?? name;
  const regionOfBucket = (bucket: number): string => {
    const idx = regions.findLastIndex((r) => Buffer.compare(r.startKey, Buffer.from([bucket])) <= 0);
    return encodedOf(regions[idx]?.name ?? '');
  };
  const expectedTotals = new Map(regions.map((r) => [encodedOf(r.name), 0]));
  for (const e of all) {
    const region = regionOfBucket(md5Salt(e.id));
    expectedTotals.set(region, (expectedTotals.get(region) ?? 0) + 1);
  }
  const hotCount = all.filter((e) => e.id === HOT).length;
  const hotRegion = regionOfBucket(md5Salt(HOT));

  const dom = await dumpDom(`${base}/ui`);
  const rows = heatmapRows(dom);
  assert.deepEqual(
    rows.map((r) => [r.region, r.state]),
    regions.map((r) => [encodedOf(r.name), 'live']),
    'one heatmap row per region, in key order',
  );
  assert.deepEqual(new Map(rows.map((r) => [r.region, r.total])), expectedTotals, 'rows written per region');
  for (const r of rows) {
    assert.equal(
      r.cellWrites.reduce((a, b) => a + b, 0),
      r.total,
      `cells of ${r.region} add up to its total`,
    );
    if (r.total > 0) assert.ok(r.cellWrites.length > 0, `${r.region} has heatmap cells`);
  }
  const hotRow = rows.find((r) => r.region === hotRegion);
  assert.match(hotRow?.text ?? '', new RegExp(`hot: ${HOT}`), 'the dominant id is marked on its region');
  for (const r of rows) if (r.region !== hotRegion) assert.doesNotMatch(r.text, new RegExp(HOT));

  const firstHot = /<tr class="hot-id" data-id="([^"]*)" data-events="([^"]*)" data-k="([^"]*)">/.exec(dom);
  assert.equal(firstHot?.[1], HOT, 'the dominant id heads the hot ids table');
  assert.equal(firstHot[3], '1', 'its events are two years old: spreading is decided on live writes, so it stays in one bucket');
  const data = await snapshot();
  const top = data.hotIds.ids[0];
  assert.equal(top?.id, HOT);
  assert.equal(top.bucket, md5Salt(HOT));
  assert.ok(top.events - top.error <= hotCount && hotCount <= top.events, `estimate ${top.events} (error ${top.error}) brackets the true count ${hotCount}`);
  assert.ok(top.error <= data.hotIds.errorBound);
  const metricsText = await (await fetch(`${base}/metrics`)).text();
  const gauge = new RegExp(`^tsingest_hot_id_events\\{id="${HOT}"\\} (\\d+)$`, 'm').exec(metricsText);
  assert.ok(gauge !== null && Number(gauge[1]) >= hotCount, 'the hot id gauge on the service /metrics');

  const dir = mkdtempSync(join(tmpdir(), 'tsi-ui-'));
  const png = join(dir, 'ui-heatmap.png');
  await screenshot(`${base}/ui`, png);
  assert.deepEqual(pngSize(readFileSync(png)), { width: 1280, height: 900 });
  const keep = process.env['TSI_UI_SCREENSHOT'];
  if (keep !== undefined && keep !== '') copyFileSync(png, keep);
});
