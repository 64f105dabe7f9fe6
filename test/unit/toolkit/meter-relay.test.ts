// Meters relayed between threads (src/toolkit/meter-relay.ts): every call a stand-in meter takes
// reaches the real meter of the same name, in order, through structured-clone data; a timer started
// on one side is ended on the other; calls that are not meter calls are dropped. The name lists the
// rollup thread relays cover every meter of their objects.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { GATEWAY_METERS, createGatewayMetrics } from '../../../src/metrics/gateway-metrics.ts';
import { createReadMetrics } from '../../../src/metrics/read-metrics.ts';
import { ROLLUP_METER_NAMES, quietRollupMeters, type RollupMeters } from '../../../src/rollup/meters.ts';
import { meterSink, relayedMeters, type MeterCall } from '../../../src/toolkit/meter-relay.ts';

/** A relay as the rollup thread has it: calls cloned as postMessage would, then applied. */
function relayTo(real: RollupMeters): { meters: RollupMeters; calls: MeterCall[] } {
  const sink = meterSink(real);
  const calls: MeterCall[] = [];
  const meters = relayedMeters<RollupMeters>(ROLLUP_METER_NAMES, (call) => {
    const copy = structuredClone(call);
    calls.push(copy);
    sink.apply(copy);
  });
  return { meters, calls };
}

void test('calls on relayed meters land on the real Prometheus meters, labels and values kept', async () => {
  const registry = new Registry();
  const real = createReadMetrics(registry, ['1h', '1d']);
  const { meters } = relayTo(real);
  meters.rollupWindowsWritten.inc({ window: '1h' }, 3);
  meters.rollupWindowsWritten.inc({ window: '1h' });
  meters.rollupBucketsWorked.set(5);
  meters.rollupBucketLag.set({ window: '1h', bucket: '2' }, 7);
  meters.rollupBucketLag.set({ window: '1h', bucket: '3' }, 9);
  meters.rollupBucketLag.remove({ window: '1h', bucket: '3' });
  const end = meters.rollupRunDuration.startTimer();
  end();
  const text = await registry.metrics();
  assert.match(text, /^tsingest_rollup_windows_written_total\{window="1h"\} 4$/m);
  assert.match(text, /^tsingest_rollup_buckets_worked 5$/m);
  assert.match(text, /^tsingest_rollup_bucket_lag_seconds\{window="1h",bucket="2"\} 7$/m);
  assert.doesNotMatch(text, /bucket="3"/);
  assert.match(text, /^tsingest_rollup_run_duration_seconds_count 1$/m, 'the timer ended on the main side');
});

void test('a timer started twice is ended by its own function; a call that is no meter call is dropped', () => {
  const ended: number[] = [];
  let started = 0;
  const real = {
    ...quietRollupMeters(),
    rollupRunDuration: {
      startTimer: () => {
        const n = ++started;
        return () => ended.push(n);
      },
    },
  };
  const { meters, calls } = relayTo(real);
  const first = meters.rollupRunDuration.startTimer();
  const second = meters.rollupRunDuration.startTimer();
  second();
  first();
  assert.deepEqual(ended, [2, 1]);
  assert.equal((meters.rollupRuns as unknown as Record<string, unknown>)['reset'], undefined, 'not a relayed call');
  const sink = meterSink(real);
  assert.doesNotThrow(() => {
    sink.apply({ meter: 'rollupRuns', method: 'constructor', args: [] });
    sink.apply({ meter: 'nothing', method: 'inc', args: [] });
  });
  assert.deepEqual(
    calls.map((c) => c.method),
    ['startTimer', 'startTimer', 'endTimer', 'endTimer'],
  );
});

void test('the relayed name lists cover every meter of the rollup meters and the gateway meters', () => {
  assert.deepEqual([...ROLLUP_METER_NAMES].sort(), Object.keys(quietRollupMeters()).sort());
  assert.deepEqual([...GATEWAY_METERS].sort(), Object.keys(createGatewayMetrics(new Registry())).sort());
});
