import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { registerSeriesCacheMetrics } from '../../../src/metrics/series-cache-metrics.ts';

void test('the caches’ hits, misses and bytes are read at each scrape; a cache not given has no series', async () => {
  const registry = new Registry();
  const counts = { hits: 3, misses: 1, bytes: 4096 };
  const remove = registerSeriesCacheMetrics(registry, { tail: { stats: () => counts } });
  const text = async (): Promise<string> => registry.metrics();
  let t = await text();
  assert.match(t, /^tsingest_series_cache_lookups_total\{cache="tail",outcome="hit"\} 3$/m);
  assert.match(t, /^tsingest_series_cache_lookups_total\{cache="tail",outcome="miss"\} 1$/m);
  assert.match(t, /^tsingest_series_cache_bytes\{cache="tail"\} 4096$/m);
  assert.doesNotMatch(t, /cache="window"/);
  counts.hits = 10;
  counts.bytes = 100;
  t = await text();
  assert.match(t, /^tsingest_series_cache_lookups_total\{cache="tail",outcome="hit"\} 10$/m);
  assert.match(t, /^tsingest_series_cache_bytes\{cache="tail"\} 100$/m);
  remove();
  assert.doesNotMatch(await text(), /tsingest_series_cache/);
});

void test("the catalog's rereads by outcome, read at each scrape; none without a catalog", async () => {
  const registry = new Registry();
  const rereads = { scanned: 2, journal: 3, unchanged: 0 };
  const remove = registerSeriesCacheMetrics(registry, {}, { rereads: () => rereads });
  let t = await registry.metrics();
  assert.match(t, /^tsingest_series_catalog_rereads_total\{outcome="scanned"\} 2$/m);
  assert.match(t, /^tsingest_series_catalog_rereads_total\{outcome="unchanged"\} 0$/m);
  assert.match(t, /^tsingest_series_catalog_rereads_total\{outcome="journal"\} 3$/m);
  rereads.unchanged = 7;
  t = await registry.metrics();
  assert.match(t, /^tsingest_series_catalog_rereads_total\{outcome="unchanged"\} 7$/m);
  remove();
  assert.doesNotMatch(await registry.metrics(), /catalog_rereads/);
  const without = new Registry();
  registerSeriesCacheMetrics(without, {});
  assert.doesNotMatch(await without.metrics(), /catalog_rereads/);
});
