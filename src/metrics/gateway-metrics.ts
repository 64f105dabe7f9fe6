/**
 * Per-gateway metrics of the HBase REST clients (hbase.restUrls; src/hbase/gateway-set.ts): attempts
 * by outcome, latency, and whether each client keeps the gateway in rotation. Label `gateway` is the
 * gateway URL's origin (never credentials or path), `client` the client's role (write, read, rollup). Created
 * on the service's prom-client `Registry`; names are fixed like METRIC_NAMES.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { GATEWAY_OUTCOMES, gatewayLabel, type GatewayObserver } from '../hbase/index.ts';
import { HBASE_DURATION_BUCKETS } from './ingest-metrics.ts';

export const GATEWAY_METRIC_NAMES = {
  requests: 'tsingest_hbase_gateway_requests_total',
  up: 'tsingest_hbase_gateway_up',
  duration: 'tsingest_hbase_gateway_request_duration_seconds',
} as const;

export interface GatewayMetrics {
  readonly requests: Counter<'client' | 'gateway' | 'outcome'>;
  readonly up: Gauge<'client' | 'gateway'>;
  readonly duration: Histogram<'client' | 'gateway'>;
}

/** The meters of GatewayMetrics by name (the rollup thread relays their calls: src/toolkit/meter-relay.ts). */
export const GATEWAY_METERS = ['requests', 'up', 'duration'] as const satisfies readonly (keyof GatewayMetrics)[];

const REQUESTS_HELP =
  'Attempts of HBase REST requests per gateway, by outcome (ok: an answer below 500 | server_error: 5xx | connection_error: refused, reset, connect timeout — the gateway leaves the rotation | timeout: the request deadline | error); a failover counts one attempt per gateway';
const UP_HELP = '1 while the client keeps the gateway in rotation, 0 from a connection failure until a probe (GET /version/cluster) gets an answer';

export function createGatewayMetrics(registry: Registry): GatewayMetrics {
  const registers = [registry];
  const labelNames = ['client', 'gateway'] as const;
  return {
    requests: new Counter({ name: GATEWAY_METRIC_NAMES.requests, help: REQUESTS_HELP, labelNames: [...labelNames, 'outcome'] as const, registers }),
    up: new Gauge({ name: GATEWAY_METRIC_NAMES.up, help: UP_HELP, labelNames, registers }),
    duration: new Histogram({
      name: GATEWAY_METRIC_NAMES.duration,
      help: 'Duration of one attempt on one gateway, in seconds',
      labelNames,
      buckets: [...HBASE_DURATION_BUCKETS],
      registers,
    }),
  };
}

/** The observer of one client's gateway set; every gateway's series start (up = 1, counters at 0). */
export function gatewayObserver(m: GatewayMetrics, client: string, urls: readonly string[]): GatewayObserver {
  for (const url of urls) {
    const gateway = gatewayLabel(url);
    m.up.set({ client, gateway }, 1);
    for (const outcome of GATEWAY_OUTCOMES) m.requests.inc({ client, gateway, outcome }, 0);
  }
  return {
    attempted(gateway, outcome, seconds) {
      m.requests.inc({ client, gateway, outcome });
      m.duration.observe({ client, gateway }, seconds);
    },
    health(gateway, up) {
      m.up.set({ client, gateway }, up ? 1 : 0);
    },
  };
}
