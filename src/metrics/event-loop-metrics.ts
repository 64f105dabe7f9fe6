/**
 * The event loop's delay since the previous scrape, as the gauge
 * `tsingest_event_loop_delay_seconds{quantile}` (docs/OBSERVABILITY.md).
 * Design notes: docs/DECISIONS.md#event-loop-delay
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Gauge, type Registry } from 'prom-client';

export const EVENT_LOOP_METRIC_NAMES = { delay: 'tsingest_event_loop_delay_seconds' } as const;

/** The `quantile` label values: the median, the 99th percentile, and 1 for the maximum. */
export const EVENT_LOOP_QUANTILES = ['0.5', '0.99', '1'] as const;

/** Sampling resolution of the delay histogram (ms): a delay shorter than this is not seen. */
const RESOLUTION_MS = 10;

/** Registers the gauge and starts the histogram; returns the stop function (disables it, removes the gauge). */
export function registerEventLoopDelay(registry: Registry): () => void {
  const h = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  h.enable();
  const seconds = (ns: number): number => (Number.isFinite(ns) ? ns / 1e9 : 0);
  new Gauge({
    name: EVENT_LOOP_METRIC_NAMES.delay,
    help: 'How late the event loop ran timers that were due, since the previous scrape (quantile 1 = the longest): time the loop was held by synchronous work',
    labelNames: ['quantile'] as const,
    registers: [registry],
    collect() {
      const none = h.count === 0;
      this.set({ quantile: '0.5' }, none ? 0 : seconds(h.percentile(50)));
      this.set({ quantile: '0.99' }, none ? 0 : seconds(h.percentile(99)));
      this.set({ quantile: '1' }, none ? 0 : seconds(h.max));
      h.reset();
    },
  });
  return () => {
    h.disable();
    registry.removeSingleMetric(EVENT_LOOP_METRIC_NAMES.delay);
  };
}
