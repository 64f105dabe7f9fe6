import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { BATCH_ROWS_BUCKETS, END_TO_END_BUCKETS, METRIC_NAMES, createMetrics } from '../../../src/metrics/ingest-metrics.ts';

void describe('createMetrics', () => {
  void it('registers every fixed metric name and the prefixed default process metrics', async () => {
    const registry = new Registry();
    const metrics = createMetrics(registry);
    assert.equal(metrics.registry, registry);
    const names = new Set((await registry.getMetricsAsJSON()).map((m) => m.name));
    for (const name of Object.values(METRIC_NAMES)) assert.ok(names.has(name), `${name} registered`);
    assert.ok(names.has('tsingest_process_cpu_user_seconds_total'));
    assert.ok(names.has('tsingest_nodejs_heap_size_total_bytes'));
    for (const name of names) assert.ok(name.startsWith('tsingest_'), `${name} has the prefix`);
  });

  void it('creates independent registries (no global state, no duplicate-name errors)', async () => {
    const a = createMetrics();
    const b = createMetrics();
    a.rowsWritten.inc({ table: 't' }, 5);
    assert.notEqual(a.registry, b.registry);
    assert.match(await a.registry.metrics(), /^tsingest_rows_written_total\{table="t"\} 5$/m);
    assert.doesNotMatch(await b.registry.metrics(), /tsingest_rows_written_total\{/);
  });

  void it('can leave out the default metrics', async () => {
    const { registry } = createMetrics(undefined, { defaultMetrics: false });
    const names = (await registry.getMetricsAsJSON()).map((m) => m.name);
    assert.deepEqual(names.sort(), Object.values(METRIC_NAMES).sort());
  });

  void it('starts events{outcome} at 0 for both outcomes and ready at 0', async () => {
    const { registry } = createMetrics(undefined, { defaultMetrics: false });
    const text = await registry.metrics();
    assert.match(text, /^tsingest_events_total\{outcome="written"\} 0$/m);
    assert.match(text, /^tsingest_events_total\{outcome="dlq"\} 0$/m);
    assert.match(text, /^tsingest_ready 0$/m);
  });

  void it('uses buckets fitting 1..10000 rows and 5 ms..10 min end-to-end', async () => {
    assert.equal(BATCH_ROWS_BUCKETS[0], 1);
    assert.equal(BATCH_ROWS_BUCKETS.at(-1), 10000);
    assert.equal(END_TO_END_BUCKETS[0], 0.005);
    assert.equal(END_TO_END_BUCKETS.at(-1), 600);
    assert.ok(
      END_TO_END_BUCKETS.every((b, i) => i === 0 || b > (END_TO_END_BUCKETS[i - 1] as number)),
      'strictly increasing',
    );
    // The 250 ms latency target is a bound, with neighbours within 50 ms, so p99 around it is read closely.
    for (const b of [0.2, 0.25, 0.3]) assert.ok((END_TO_END_BUCKETS as readonly number[]).includes(b), `bucket ${b}`);
    const metrics = createMetrics(undefined, { defaultMetrics: false });
    metrics.batchRows.observe(500);
    metrics.hbaseRequestDuration.observe({ table: 't', op: 'put', status: '200' }, 0.02);
    const text = await metrics.registry.metrics();
    assert.match(text, /^tsingest_batch_rows_bucket\{le="10000"\} 1$/m);
    assert.match(text, /^tsingest_hbase_request_duration_seconds_count\{table="t",op="put",status="200"\} 1$/m);
  });

  void it('runs scrape hooks before the spread gauges are read, until removed', async () => {
    const metrics = createMetrics(undefined, { defaultMetrics: false });
    let runs = 0;
    const remove = metrics.onScrape(() => {
      runs += 1;
      metrics.regionWriteSkew.set({ table: 't' }, 2.5);
    });
    assert.match(await metrics.registry.metrics(), /^tsingest_instance_region_write_skew\{table="t"\} 2.5$/m);
    assert.ok(runs >= 1);
    remove();
    const before = runs;
    await metrics.registry.metrics();
    assert.equal(runs, before);
  });
});
