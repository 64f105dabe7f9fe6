// The one place the Kafka client and the HBase REST clients are built from the configuration (the
// service, every CLI command, the rollup job). Each HBase role gets its own pool:
// the write path's puts, the read side (read API, rollup job: its own connections, so reads never
// queue behind ingest writes; at least B, as a spread id's latest read opens up to B bucket scans at
// once), and a command-line tool. TLS and credentials (hbase.tls, hbase.auth: a header, or SPNEGO as
// a decorator of each gateway's transport) come with every client.
import { Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import { HBaseRestClient } from '../hbase/index.ts';
import type { Config } from '../runtime/config.ts';
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

export type HBaseClientRole = 'write' | 'read' | 'tool';

export function createHBaseClient(cfg: Config, role: HBaseClientRole): HBaseRestClient {
  const connections = role === 'read' ? Math.max(4, cfg.query.bucketConcurrency, cfg.keys.saltBuckets) : cfg.hbase.connections;
  const tls = restTls(cfg.hbase);
  const authorization = restAuthorization(cfg.hbase);
  const authTransport = restAuthTransport(cfg.hbase);
  return new HBaseRestClient({
    baseUrl: cfg.hbase.restUrl,
    defaultDeadlineMs: cfg.hbase.requestDeadlineMs,
    connections,
    putEncoding: cfg.hbase.putEncoding,
    ...(tls === undefined ? {} : { tls }),
    ...(authorization === undefined ? {} : { authorization }),
    ...(authTransport === undefined ? {} : { authTransport }),
  });
}
