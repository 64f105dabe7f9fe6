// Per-gateway series: every gateway of a client starts up with its counters at 0, labelled by origin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { createGatewayMetrics, gatewayObserver } from '../../../src/metrics/gateway-metrics.ts';

test('gateway series start at 0 / up, labelled by origin and client; the observer moves them', async () => {
  const registry = new Registry();
  const m = createGatewayMetrics(registry);
  const o = gatewayObserver(m, 'write', ['http://u:p@a:8080/hbase', 'http://b:8080/hbase']);
  o.attempted('http://a:8080', 'ok', 0.01);
  o.attempted('http://b:8080', 'connection_error', 0.001);
  o.health('http://b:8080', false);
  const text = await registry.metrics();
  const line = (s: string): string | undefined => text.split('\n').find((l) => l.startsWith(s));
  assert.equal(
    line('tsingest_hbase_gateway_up{client="write",gateway="http://a:8080"}'),
    'tsingest_hbase_gateway_up{client="write",gateway="http://a:8080"} 1',
  );
  assert.equal(
    line('tsingest_hbase_gateway_up{client="write",gateway="http://b:8080"}'),
    'tsingest_hbase_gateway_up{client="write",gateway="http://b:8080"} 0',
  );
  assert.equal(line('tsingest_hbase_gateway_requests_total{client="write",gateway="http://b:8080",outcome="connection_error"}')?.split(' ')[1], '1');
  assert.equal(line('tsingest_hbase_gateway_requests_total{client="write",gateway="http://a:8080",outcome="timeout"}')?.split(' ')[1], '0');
  assert.ok(!text.includes('u:p@'), 'no credentials in labels');
});
