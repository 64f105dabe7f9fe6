// `npm run bench:series`: our side. A service as its own process (`node src/cli.ts run`, child.ts:
// its RSS and CPU are its own) on fresh tables and topics made like the integration harness makes them
// (applyTables through the admin tool, a topic + DLQ), with rollups that summarise closed hours at
// once (graceMs 0, markerSettleMs 0) and a catalog reread every 2 s; timed requests, and the wait
// until the rollup job has summarised a window (X-Tsingest-Plan `rollup:3600s;raw-buckets=0`).
import { Kafka, logLevel } from 'kafkajs';
import { applyTables, JavaTableAdmin } from '../../../src/admin/index.ts';
import type { HBaseRestClient } from '../../../src/hbase/index.ts';
import { loadConfig, type Config } from '../../../src/runtime/index.ts';
import { memory, startServiceChild, sumOf, type ServiceChild } from './child.ts';
import { freePort } from '../stack/probes.ts';
import { waitFor } from '../stack/proc.ts';
import type { StackEndpoints } from '../stack/config.ts';
import { stackRestClient } from '../stack/client.ts';
import { endpointSets, runSets, type RunNames } from '../stack/run-sets.ts';
import { deleteRunTopics } from '../stack/topics.ts';

export type OurTables = RunNames;

export function ourNames(run: string): OurTables {
  return { data: `${run}_d`, index: `${run}_i`, rollup: `${run}_r`, meta: `${run}_m`, topic: `${run}-events`, dlq: `${run}-dlq` };
}

/** The `--set` pairs of our service on `names` (no group id, no port). */
export function ourSets(ep: StackEndpoints, names: OurTables, buckets: number, extra: readonly string[] = []): string[] {
  return [
    ...endpointSets(ep),
    ...runSets(names),
    `kafka.clientId=${names.topic}`,
    'kafka.maxWaitTimeMs=100',
    `keys.saltBuckets=${buckets}`,
    'index.tags=["site"]',
    'rollup.windows=["1h","1d"]',
    'rollup.graceMs=0',
    'rollup.markerSettleMs=0',
    'rollup.intervalMs=2000',
    'series.catalogRefreshMs=2000',
    'log.level=warn',
    ...extra,
  ];
}

export interface OurStack {
  readonly names: OurTables;
  readonly sets: readonly string[];
  readonly cfg: Config;
  readonly rest: HBaseRestClient;
  readonly kafka: Kafka;
  readonly admin: JavaTableAdmin;
  /** a new topic (and its removal at drop()) */
  topic(name: string, partitions: number): Promise<void>;
  /** drops the tables and topics */
  drop(): Promise<void>;
}

/** Fresh tables (applyTables: pre-split, verified) and the events topic + DLQ. */
export async function createOurStack(
  ep: StackEndpoints,
  run: string,
  shape: { readonly buckets: number; readonly partitions: number; readonly extra?: readonly string[] },
  say: (m: string) => void,
): Promise<OurStack> {
  const { buckets, partitions, extra = [] } = shape;
  const names = ourNames(run);
  const sets = ourSets(ep, names, buckets, extra);
  const cfg = loadConfig({ env: {}, sets: [...sets, 'kafka.groupId=unused'] });
  const rest = stackRestClient(ep.restUrl);
  const admin = new JavaTableAdmin({ command: ep.adminCommand });
  const kafka = new Kafka({ clientId: run, brokers: ep.kafkaBrokers.split(','), logLevel: logLevel.NOTHING });
  const topics = [names.topic, names.dlq];
  const drop = async (): Promise<void> => {
    for (const t of [names.data, names.index, names.rollup, names.meta]) {
      await rest.deleteTable(t, { ignoreMissing: true, deadlineMs: 120_000 }).catch((err: unknown) => {
        say(`could not drop ${t}: ${String(err)}`);
      });
    }
    const ka = kafka.admin();
    await ka.connect();
    await deleteRunTopics(ka, topics, (err: unknown) => {
      say(`could not delete topics: ${String(err)}`);
    });
    await ka.disconnect();
    say(`dropped ${run}_* tables and topics`);
  };
  const topic = async (name: string, n: number): Promise<void> => {
    const ka = kafka.admin();
    await ka.connect();
    try {
      await ka.createTopics({ topics: [{ topic: name, numPartitions: n }], waitForLeaders: true });
      if (!topics.includes(name)) topics.push(name);
    } finally {
      await ka.disconnect();
    }
  };
  try {
    const applied = await applyTables(cfg, admin, rest);
    for (const a of applied) if (!a.splitsVerified) throw new Error(`table ${a.result.table}: region splits not as planned`);
    await topic(names.topic, partitions);
    await topic(names.dlq, 1);
  } catch (err) {
    await drop();
    throw err;
  }
  say(`tables ${names.data}, ${names.index}, ${names.rollup}, ${names.meta} (${buckets} salt buckets), topic ${names.topic} (${partitions} partitions)`);
  return { names, sets, cfg, rest, kafka, admin, topic, drop };
}

export interface OurService {
  readonly url: string;
  readonly child: ServiceChild;
  readonly pid: number;
  /** tsingest_events_total{outcome=written} + dlq */
  processed(): Promise<number>;
  counter(name: string): Promise<number>;
  stop(): Promise<void>;
}

export async function startOurService(
  stack: OurStack,
  group: string,
  say: (m: string) => void,
  child: {
    readonly extra?: readonly string[];
    readonly cpuProfDir?: string | undefined;
    readonly env?: NodeJS.ProcessEnv;
    readonly nodeFlags?: readonly string[] | undefined;
  } = {},
): Promise<OurService> {
  const { extra = [], cpuProfDir, nodeFlags } = child;
  const port = await freePort();
  const proc = await startServiceChild({
    env: { ...(child.env ?? process.env) },
    sets: [...stack.sets, `kafka.groupId=${group}`, ...extra],
    port,
    say,
    ...(cpuProfDir === undefined ? {} : { cpuProfDir }),
    ...(nodeFlags === undefined ? {} : { nodeFlags }),
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    child: proc,
    pid: proc.pid,
    processed: async () => {
      const s = await proc.scrape(['tsingest_events_total']);
      return sumOf(s, 'tsingest_events_total', { outcome: 'written' }) + sumOf(s, 'tsingest_events_total', { outcome: 'dlq' });
    },
    counter: async (name) => sumOf(await proc.scrape([name]), name),
    stop: async () => {
      await proc.stop();
    },
  };
}

/** waitFor, and how long it took in seconds. */
export async function waitUntil(
  what: string,
  timeoutMs: number,
  check: () => Promise<boolean>,
  poll: { readonly everyMs?: number; readonly errors?: 'throw' } = {},
): Promise<number> {
  const { everyMs = 1000, errors } = poll;
  const t0 = Date.now();
  await waitFor(what, check, { timeoutMs, everyMs, ...(errors === undefined ? {} : { errors }) });
  return (Date.now() - t0) / 1000;
}

export interface Timed {
  readonly ms: number;
  readonly status: number;
  readonly plan: string | null;
  /** the Server-Timing header (ours: where the request's time went, src/series-query/phase-clock.ts) */
  readonly timing: string | null;
  readonly body: unknown;
}

/** One request, timed around fetch + the whole body read and parsed. */
export async function timedFetch(url: string, init: { method?: string; body?: unknown } = {}, timeoutMs = 180_000): Promise<Timed> {
  const t0 = performance.now();
  const res = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    ...(init.body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(init.body) }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  const ms = performance.now() - t0;
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { ms, status: res.status, plan: res.headers.get('x-tsingest-plan'), timing: res.headers.get('server-timing'), body };
}

/** The plan header of a query's answer; a 5xx throws (a failing read is not a slow rollup job: a wait on it ends at once). */
export async function planOf(url: string, query: unknown): Promise<string> {
  const r = await timedFetch(`${url}/api/query`, { body: query });
  if (r.status >= 500) throw new Error(`POST ${url}/api/query answered ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
  return r.plan ?? '';
}

/** Until `query` (a POST /api/query body) is answered wholly from the hourly rollups. */
export function waitRollups(url: string, query: unknown, timeoutMs: number): Promise<number> {
  return waitUntil('the rollup job to summarise every hour', timeoutMs, async () => /^rollup:3600s;raw-buckets=0(;|$)/.test(await planOf(url, query)), {
    everyMs: 2000,
    errors: 'throw',
  });
}

/**
 * Until a whole rollup run has started and ended after this call with no closed window of any size
 * left marked: the coarser sizes (the day rows, their packs and point blocks) are written too, not
 * only the hours an hourly plan shows.
 */
export async function waitAllSizes(svc: OurService, timeoutMs: number): Promise<number> {
  const runs = async (): Promise<number> => svc.counter('tsingest_rollup_runs_total');
  const from = await runs();
  return waitUntil(
    'a rollup run with no closed window left marked',
    timeoutMs,
    async () => (await runs()) >= from + 2 && (await svc.counter('tsingest_rollup_pending_markers')) === 0,
    { everyMs: 1000 },
  );
}

/** Samples a process's VmRSS every `everyMs` until stopped; returns the highest seen (bytes). */
export function rssSampler(pid: number, everyMs = 20): { stop(): number } {
  let peak = 0;
  const tick = (): void => {
    try {
      peak = Math.max(peak, memory(pid).rss);
    } catch {
      // exited
    }
  };
  tick();
  const t = setInterval(tick, everyMs);
  return {
    stop: () => {
      clearInterval(t);
      tick();
      return peak;
    },
  };
}
