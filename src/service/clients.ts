// The one place the Kafka client and the HBase REST clients are built from the configuration (the
// service, every CLI command, the rollup job). Each HBase role gets its own pool:
// the write path's puts, the read side (read API, doctor: its own connections, so reads never
// queue behind ingest writes; at least B, as a spread id's latest read opens up to B bucket scans at
// once), the rollup job on its own thread (rollup.thread; at least B too, for a spread id's window),
// and a command-line tool. TLS and credentials (hbase.tls, hbase.auth: a header, or SPNEGO as
// a decorator of each gateway's transport) come with every client and apply to every gateway of hbase.restUrls: each client talks through a gateway set
// (src/hbase/gateway-set.ts) over one transport per gateway, built by `gatewayTransport`.
import { Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import { GatewaySetTransport, HBaseRestClient, PriorityTransport, UndiciTransport, type HttpTransport, type TransportTls } from '../hbase/index.ts';
import { currentRequestWeight } from '../series-query/index.ts';
import { gatewayObserver, type GatewayMetrics } from '../metrics/gateway-metrics.ts';
import { hbaseRestUrls, type Config } from '../runtime/config.ts';
import { restAuthTransport, restAuthorization, restTls } from './hbase-credentials.ts';
import { kafkaLogCreator } from './kafka-logging.ts';
import { kafkaSasl, kafkaTls } from './kafka-security.ts';

/** The Kafka client of the consumer, the DLQ producer, the lag monitor's admin and `tsingest produce`; kafka.tls and kafka.sasl apply to all. */
export function kafkaClient(cfg: Config, log: Logger): Kafka {
  const ssl = kafkaTls(cfg.kafka);
  const sasl = kafkaSasl(cfg.kafka);
  return new Kafka({
    clientId: cfg.kafka.clientId,
    brokers: cfg.kafka.brokers,
    logCreator: kafkaLogCreator(log),
    ...(ssl === undefined ? {} : { ssl }),
    ...(sasl === undefined ? {} : { sasl }),
  });
}

export type HBaseClientRole = 'write' | 'read' | 'rollup' | 'tool';

/** What every gateway's transport of one client shares. */
export interface GatewaySettings {
  /** sockets kept to this gateway */
  readonly connections: number;
  /** the read client's: the weight of the request a call is made for (the lightest goes first) */
  readonly priority?: () => number | undefined;
  readonly tls: TransportTls | undefined;
  /** a per-gateway authenticating decorator (SPNEGO: its cookie is per gateway) */
  readonly auth: ((transport: HttpTransport, origin: string) => HttpTransport) | undefined;
}

/**
 * One gateway's transport: the one place a per-gateway transport is built (a per-gateway decorator,
 * e.g. authentication, wraps it here). `url` is one entry of hbase.restUrls.
 */
export function gatewayTransport(url: string, s: GatewaySettings): HttpTransport {
  const origin = new URL(url).origin;
  const pool = new UndiciTransport({ origin, connections: s.connections, ...(s.tls === undefined ? {} : { tls: s.tls }) });
  const authed = s.auth === undefined ? pool : s.auth(pool, origin);
  if (s.priority === undefined) return authed;
  return new PriorityTransport({ inner: authed, slots: s.connections, priority: s.priority, ...lightLane(s.connections) });
}

/** Requests of a query matching at most this many series are light: they may take the sockets kept for them. */
export const LIGHT_SERIES = 64;

/**
 * The read client's sockets kept for light requests (a quarter, at least one when there are two): a
 * one-id panel's reads, and the catalog's rereads, never wait behind the scans of site-wide panels.
 */
export function lightLane(connections: number): { reserved: number; lightMax: number } {
  return { reserved: connections < 2 ? 0 : Math.max(1, Math.floor(connections / 4)), lightMax: LIGHT_SERIES };
}

/** `metrics`: per-gateway series labelled with this client's role (the service's clients). */
export function createHBaseClient(cfg: Config, role: HBaseClientRole, metrics?: GatewayMetrics): HBaseRestClient {
  const connections =
    role === 'read'
      ? Math.max(4, cfg.query.bucketConcurrency, cfg.keys.saltBuckets)
      : role === 'rollup'
        ? Math.max(4, cfg.keys.saltBuckets)
        : cfg.hbase.connections;
  const authTransport = restAuthTransport(cfg.hbase);
  // the read client's calls wait for a socket lightest request first (series API panels refreshed together)
  const settings: GatewaySettings = {
    connections,
    tls: restTls(cfg.hbase),
    auth: authTransport,
    ...(role === 'read' ? { priority: currentRequestWeight } : {}),
  };
  const authorization = restAuthorization(cfg.hbase);
  const urls = hbaseRestUrls(cfg.hbase);
  const base = new URL(urls[0] ?? cfg.hbase.restUrl);
  const transport = new GatewaySetTransport({
    gateways: urls.map((url) => ({ url, transport: gatewayTransport(url, settings) })),
    // every gateway has the same path prefix (config.ts checks it)
    probePath: `${base.pathname.replace(/\/+$/, '')}/version/cluster`,
    ...(metrics === undefined ? {} : { observer: gatewayObserver(metrics, role, urls) }),
  });
  return new HBaseRestClient({
    baseUrl: urls[0] ?? cfg.hbase.restUrl,
    transport,
    closeTransport: true,
    defaultDeadlineMs: cfg.hbase.requestDeadlineMs,
    putEncoding: cfg.hbase.putEncoding,
    ...(authorization === undefined ? {} : { authorization }),
    // already applied per gateway by gatewayTransport; given here for the wording of a refusal
    ...(authTransport === undefined ? {} : { authTransport }),
  });
}
