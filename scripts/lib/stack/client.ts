// The scripts' HBase REST client for the local stack, built by the service's own factory
// (src/service/clients.ts createHBaseClient): the same transport, gateway set and put encoding as the
// service, so a bench or drill talks to HBase the way the service does. `sets` are config keys
// (key=value, as `--set` takes them), e.g. `hbase.connections=32`.
import type { HBaseRestClient } from '../../../src/hbase/index.ts';
import { loadConfig } from '../../../src/runtime/index.ts';
import { createHBaseClient } from '../../../src/service/index.ts';

/** A REST client for the stack at `restUrl` (60 s per request unless `sets` says otherwise). */
export function stackRestClient(restUrl: string, sets: readonly string[] = []): HBaseRestClient {
  const cfg = loadConfig({ env: {}, sets: [`hbase.restUrl=${restUrl}`, 'hbase.requestDeadlineMs=60000', ...sets] });
  return createHBaseClient(cfg, 'tool');
}
