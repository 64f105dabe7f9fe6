// tsingest_event_loop_delay_seconds (src/metrics/event-loop-metrics.ts): a loop held by synchronous
// work shows as the maximum delay of the next scrape, which then starts over.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { EVENT_LOOP_METRIC_NAMES, registerEventLoopDelay } from '../../../src/metrics/event-loop-metrics.ts';

async function delays(registry: Registry): Promise<Record<string, number>> {
  const m = await registry.getSingleMetric(EVENT_LOOP_METRIC_NAMES.delay)?.get();
  return Object.fromEntries((m?.values ?? []).map((v) => [String(v.labels['quantile']), v.value]));
}

void test("a held loop is the next scrape's maximum; the scrape after starts over", async (t) => {
  const registry = new Registry();
  const stop = registerEventLoopDelay(registry);
  t.after(stop);
  await new Promise((r) => setTimeout(r, 50));
  const held = Date.now();
  while (Date.now() - held < 400) {
    // the loop is held
  }
  await new Promise((r) => setTimeout(r, 30));
  const first = await delays(registry);
  assert.deepEqual(Object.keys(first).sort(), ['0.5', '0.99', '1']);
  assert.ok((first['1'] ?? 0) >= 0.3, `the hold is the maximum (${first['1']} s)`);
  await new Promise((r) => setTimeout(r, 50));
  const second = await delays(registry);
  assert.ok((second['1'] ?? 1) < 0.3, `reset at the scrape (${second['1']} s)`);
  stop();
  assert.equal(registry.getSingleMetric(EVENT_LOOP_METRIC_NAMES.delay), undefined, 'removed when stopped');
});
