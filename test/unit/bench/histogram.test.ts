// The benchmark's reading of the service's histograms: label filters, count/sum, and quantiles of
// the difference of two scrapes, on prom-client's own exposition text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Histogram, Registry } from 'prom-client';
import { parseMetrics } from '../../../scripts/lib/bench/child.ts';
import { histogramSnapshot, quantile } from '../../../scripts/lib/bench/service.ts';

async function scrape(reg: Registry): Promise<ReturnType<typeof parseMetrics>> {
  return parseMetrics(await reg.metrics());
}

test('a snapshot sums the accepted label sets; quantiles come from the difference of two scrapes', async () => {
  const reg = new Registry();
  const h = new Histogram({ name: 'x_seconds', help: 'x', labelNames: ['op', 'status'] as const, buckets: [0.1, 0.2, 0.4], registers: [reg] });
  h.observe({ op: 'put', status: '200' }, 5); // before the window: must not count
  const ok = (l: Readonly<Record<string, string>>): boolean => l['op'] === 'put' && l['status'] === '200';
  const before = histogramSnapshot(await scrape(reg), 'x_seconds', ok);
  for (let i = 0; i < 50; i++) h.observe({ op: 'put', status: '200' }, 0.05); // (0, 0.1]
  for (let i = 0; i < 50; i++) h.observe({ op: 'put', status: '200' }, 0.3); // (0.2, 0.4]
  for (let i = 0; i < 100; i++) h.observe({ op: 'put', status: '503' }, 9); // filtered out
  const after = histogramSnapshot(await scrape(reg), 'x_seconds', ok);
  assert.equal(after.count - before.count, 100);
  assert.ok(Math.abs(after.sum - before.sum - (50 * 0.05 + 50 * 0.3)) < 1e-9);
  assert.ok(Math.abs(quantile(after, before, 0.5) - 0.1) < 1e-9, 'the median is the top of the first bucket');
  assert.ok(Math.abs(quantile(after, before, 0.75) - 0.3) < 1e-9, 'interpolated half way through (0.2, 0.4]');
  const all = histogramSnapshot(await scrape(reg), 'x_seconds');
  assert.equal(all.count, 201);
  assert.ok(Number.isNaN(quantile(after, after, 0.5)), 'an empty window has no quantile');
});
