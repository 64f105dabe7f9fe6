// The one place an HBase REST client is built from the configuration. Each role gets its own pool:
// the write path's puts, the read side (read API, rollup job: its own connections, so reads never
// queue behind ingest writes; at least B, as a spread id's latest read opens up to B bucket scans at
// once), and a command-line tool. TLS and credentials (hbase.tls, hbase.auth) come with every client.
import { HBaseRestClient } from '../hbase/index.ts';
import type { Config } from '../runtime/config.ts';
import { restAuthorization, restTls } from './hbase-credentials.ts';

export type HBaseClientRole = 'write' | 'read' | 'tool';

export function createHBaseClient(cfg: Config, role: HBaseClientRole): HBaseRestClient {
  const connections = role === 'read' ? Math.max(4, cfg.query.bucketConcurrency, cfg.keys.saltBuckets) : cfg.hbase.connections;
  const tls = restTls(cfg.hbase);
  const authorization = restAuthorization(cfg.hbase);
  return new HBaseRestClient({
    baseUrl: cfg.hbase.restUrl,
    defaultDeadlineMs: cfg.hbase.requestDeadlineMs,
    connections,
    putEncoding: cfg.hbase.putEncoding,
    ...(tls === undefined ? {} : { tls }),
    ...(authorization === undefined ? {} : { authorization }),
  });
}
