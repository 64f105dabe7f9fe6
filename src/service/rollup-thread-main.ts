// The rollup thread's entry (src/service/rollup-thread.ts starts it): builds its own HBase client
// (client "rollup"), spread registry, keyspace and job from the configuration it is given, then does
// each run the main thread asks for, relaying its meter calls and answering with the run's report.
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { errorMessage } from '../errors.ts';
import { GATEWAY_METERS, type GatewayMetrics } from '../metrics/gateway-metrics.ts';
import { RollupJob } from '../rollup/job.ts';
import { ROLLUP_METER_NAMES, type RollupMeters } from '../rollup/meters.ts';
import { ownAll } from '../rollup/ownership.ts';
import { rollupSettings } from '../rollup/rollup-settings.ts';
import { createLogger } from '../runtime/logger.ts';
import { relayedMeters } from '../toolkit/meter-relay.ts';
import { createHBaseClient } from './clients.ts';
import { keyspaceOf, spreadRegistryOf, tablesOf } from './keyspace.ts';
import type { FromRollupThread, RollupThreadData, ToRollupThread } from './rollup-thread.ts';

function threadPort(): MessagePort {
  if (parentPort === null) throw new Error('rollup-thread-main.ts runs as the rollup worker thread (src/service/rollup-thread.ts)');
  return parentPort;
}

const port = threadPort();
const post = (m: FromRollupThread): void => {
  port.postMessage(m);
};

const { cfg } = workerData as RollupThreadData;
const log = createLogger({ level: cfg.log.level }).child({ module: 'rollup', thread: 'rollup' });
const tables = tablesOf(cfg);
const gateway = relayedMeters<GatewayMetrics>(GATEWAY_METERS, (call) => {
  post({ kind: 'gateway', call });
});
const hbase = createHBaseClient(cfg, 'rollup', gateway);
const registry = spreadRegistryOf(cfg, tables, hbase, {
  onRefreshError: (err) => {
    log.warn({ err }, 'spread registry refresh failed (retried before the run)');
  },
});
const all = ownAll(cfg.keys.saltBuckets).owned();
let owned: ReadonlySet<number> = all;
const setOwned = (list: readonly number[] | null): void => {
  owned = list === null ? all : new Set(list);
};
const job = new RollupJob({
  store: hbase,
  settings: rollupSettings(cfg, keyspaceOf(cfg, registry), tables),
  metrics: relayedMeters<RollupMeters>(ROLLUP_METER_NAMES, (call) => {
    post({ kind: 'meter', call });
  }),
  log,
  ownership: { owned: () => owned },
});

let abort: AbortController | undefined;

async function runOnce(signal: AbortSignal): Promise<void> {
  try {
    // the keyspace looks ids up in a fresh snapshot of the spread registry
    await registry.ready(signal);
    post({ kind: 'report', report: await job.run(signal) });
  } catch (err) {
    post({ kind: 'failed', message: errorMessage(err) });
  }
}

async function close(): Promise<void> {
  abort?.abort(new Error('the rollup thread is closing'));
  try {
    await hbase.close();
  } catch (err) {
    log.warn({ err }, 'closing the rollup thread HBase client failed');
  }
  post({ kind: 'closed' });
  port.close();
}

port.on('message', (m: ToRollupThread) => {
  switch (m.kind) {
    case 'run': {
      setOwned(m.owned);
      const controller = new AbortController();
      abort = controller;
      void runOnce(controller.signal);
      return;
    }
    case 'owned':
      setOwned(m.owned);
      return;
    case 'abort':
      abort?.abort(new Error(m.reason));
      return;
    case 'close':
      void close();
      return;
  }
});
