/**
 * The event loop's delay (node:perf_hooks monitorEventLoopDelay): how late the loop ran a timer that
 * was due, over the time since the previous scrape. One gauge on the service's prom-client `Registry`,
 * `tsingest_event_loop_delay_seconds{quantile="0.5"|"0.99"|"1"}` (1 = the maximum), read and reset at
 * each scrape. A request, a job or a cache that holds the loop shows here first: while it is held,
 * /healthz does not answer and the Kafka consumer sends no heartbeat (docs/OBSERVABILITY.md, the
 * TsingestEventLoopStalled alert). Several Prometheus servers scraping one instance each see the
 * delay since any scrape.
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
