/**
 * The front door's concurrency caps as metrics (docs/OBSERVABILITY.md): queries in flight and waiting
 * for a slot, read at each scrape, and since start how many were admitted after a wait and how many
 * were turned away (429). A dashboard whose panels wait often is one whose caps (http.limits) are low
 * for its size.
 */
import { Counter, Gauge, type Registry } from 'prom-client';

export const QUERY_LIMIT_METRIC_NAMES = {
  inFlight: 'tsingest_http_queries_in_flight',
  waiting: 'tsingest_http_queries_waiting',
  waited: 'tsingest_http_queries_waited_total',
  turnedAway: 'tsingest_http_queries_turned_away_total',
} as const;

/** What the caps tell (src/front-door/limits.ts QueryLimits fits). */
export interface QueryLimitsView {
  readonly inFlight: number;
  readonly waiting: number;
  readonly counts: { readonly waited: number; readonly turnedAway: number };
}

export function registerQueryLimitMetrics(registry: Registry, limits: QueryLimitsView): void {
  const registers = [registry];
  new Gauge({
    name: QUERY_LIMIT_METRIC_NAMES.inFlight,
    help: 'Queries admitted under the concurrency caps (http.limits) and not yet answered',
    registers,
    collect() {
      this.set(limits.inFlight);
    },
  });
  new Gauge({
    name: QUERY_LIMIT_METRIC_NAMES.waiting,
    help: 'Queries over a concurrency cap waiting for a slot (at most http.limits.waitMs, http.limits.maxWaiting at once)',
    registers,
    collect() {
      this.set(limits.waiting);
    },
  });
  const total = (name: string, help: string, read: () => number): void => {
    new Counter({
      name,
      help,
      registers,
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  };
  total(QUERY_LIMIT_METRIC_NAMES.waited, 'Queries admitted after waiting for a slot', () => limits.counts.waited);
  total(
    QUERY_LIMIT_METRIC_NAMES.turnedAway,
    'Queries turned away with 429 by the concurrency caps (no slot within http.limits.waitMs, or too many waiting)',
    () => limits.counts.turnedAway,
  );
}
