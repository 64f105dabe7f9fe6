// Integration harness for the ingest service: per-test tables (through the real table admin), topics,
// a config, producers, an in-process or child-process service, and read-back helpers (cell counts,
// index rows, committed offsets, DLQ records). Everything created is registered for LIFO cleanup.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Kafka, logLevel, type Admin, type IHeaders } from 'kafkajs';
import { HBaseRestClient, isRetriable } from '../../src/hbase/index.ts';
import { applyTables, JavaTableAdmin } from '../../src/admin/index.ts';
import { createLogger, loadConfig, type Config } from '../../src/runtime/index.ts';
import { startService, type Service } from '../../src/service/index.ts';
import { projectRoot } from '../../scripts/lib/stack/config.ts';
import { waitFor as pollUntil } from '../../scripts/lib/stack/proc.ts';
import { endpointSets, runSets } from '../../scripts/lib/stack/run-sets.ts';
import { deferrer, testEnv, uniqueName, type TestEnv } from './env.ts';

export const REPO_ROOT = projectRoot;
export const NODE_BIN = join(REPO_ROOT, 'node_modules', '.bin', 'node');

type Defer = (fn: () => unknown) => void;

export interface TestEvent {
  readonly id: string;
  readonly ts: number;
  readonly metric: string;
  readonly value: number;
  readonly tags?: Readonly<Record<string, string>>;
}

export interface Harness {
  readonly env: TestEnv;
  readonly defer: Defer;
  readonly kafka: Kafka;
  readonly admin: Admin;
  /** the table admin tool, one session (one JVM) for the harness's life: `tables apply`, compact, … */
  readonly tableAdmin: JavaTableAdmin;
  readonly rest: HBaseRestClient;
  readonly names: {
    readonly data: string;
    readonly index: string;
    readonly rollup: string;
    readonly meta: string;
    readonly topic: string;
    readonly dlq: string;
  };
  /** `--set` pairs of the base config (no groupId / http.port) */
  readonly baseSets: readonly string[];
  /** a config for this harness's tables and topics; `extra` pairs win */
  config(extra?: readonly string[]): Config;
}

export interface HarnessOptions {
  readonly prefix: string;
  readonly partitions?: number;
  /** extra `--set` pairs applied to every config (e.g. events.maxCellBytes=2048) */
  readonly sets?: readonly string[];
  /** another broker for the topics, the test's producer and admin (e.g. a secured broker's plaintext listener) */
  readonly brokers?: string;
}

/** Creates tables (data/index/rollup/meta, 4 salt buckets, index on tag "site") and topics; cleanup registered. */
export async function createHarness(t: { after(fn: () => Promise<void>): void }, opts: HarnessOptions): Promise<Harness> {
  const env = testEnv();
  if (env.adminCommand.length === 0) throw new Error('service integration tests need TSI_ADMIN_COMMAND (a JSON argv running the table admin tool)');
  const defer = deferrer(t);
  const p = opts.prefix;
  const brokers = opts.brokers ?? env.kafkaBrokers;
  const names = {
    data: uniqueName(`it_${p}_d`),
    index: uniqueName(`it_${p}_i`),
    rollup: uniqueName(`it_${p}_r`),
    meta: uniqueName(`it_${p}_m`),
    topic: uniqueName(`it-${p}`),
    dlq: uniqueName(`it-${p}-dlq`),
  };
  const baseSets = [
    ...endpointSets({ ...env, kafkaBrokers: brokers }),
    ...runSets(names),
    `kafka.clientId=${uniqueName(`it-${p}`)}`,
    'kafka.sessionTimeoutMs=6000',
    'kafka.heartbeatIntervalMs=1000',
    'kafka.maxWaitTimeMs=100',
    'hbase.outageDeadlineMs=2000',
    'hbase.retryBaseMs=50',
    'hbase.retryMaxMs=500',
    'hbase.requestDeadlineMs=5000',
    'keys.saltBuckets=4',
    'index.tags=["site"]',
    'batch.maxRows=500',
    'batch.maxBytes=262144',
    'metrics.regionRefreshMs=5000',
    'log.level=warn',
    'shutdown.drainTimeoutMs=10000',
    ...(opts.sets ?? []),
  ];
  const config = (extra: readonly string[] = []): Config => loadConfig({ env: {}, sets: [...baseSets, ...extra] });

  const rest = new HBaseRestClient({ baseUrl: env.restUrl, defaultDeadlineMs: 30_000 });
  defer(() => rest.close());
  const kafka = new Kafka({ clientId: uniqueName(`it-${p}-h`), brokers: brokers.split(','), logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  defer(() => admin.disconnect());

  const cfg = config(['kafka.groupId=unused']);
  const tableAdmin = new JavaTableAdmin({ command: env.adminCommand, session: true });
  defer(() => tableAdmin.close());
  // Register the drops first, so a half-failed apply still cleans up what it created; the four at once.
  const tables = [names.data, names.index, names.rollup, names.meta];
  defer(() => Promise.all(tables.map((table) => retryingRest(`drop ${table}`, () => rest.deleteTable(table, { ignoreMissing: true })))));
  const applied = await retryingRest('apply tables', () => applyTables(cfg, tableAdmin, rest));
  for (const a of applied) if (!a.splitsVerified) throw new Error(`table ${a.result.table}: region splits not as planned (${a.restRegionStarts.join(',')})`);

  defer(() => admin.deleteTopics({ topics: [names.topic, names.dlq] }).catch(() => undefined));
  // the rollup ownership topic the services create (rollup.owners), if they did
  defer(() => admin.deleteTopics({ topics: [`${names.topic}.rollup-owners`] }).catch(() => undefined));
  await createTopicsSettled(admin, [
    { topic: names.topic, numPartitions: opts.partitions ?? 3 },
    { topic: names.dlq, numPartitions: 1 },
  ]);
  return { env, defer, kafka, admin, tableAdmin, rest, names, baseSets, config };
}

/**
 * Creates topics and waits for every partition's leader. kafkajs's own wait retries only
 * LEADER_NOT_AVAILABLE; a broker loaded by concurrent test files can answer the metadata of a topic it
 * has just created with UNKNOWN_TOPIC_OR_PARTITION (seen once in crash-restart.test.ts), so that
 * answer is waited out here too.
 */
async function createTopicsSettled(admin: Admin, topics: readonly { topic: string; numPartitions: number }[]): Promise<void> {
  try {
    await admin.createTopics({ topics: [...topics], waitForLeaders: true });
    return;
  } catch (err) {
    if ((err as { type?: unknown }).type !== 'UNKNOWN_TOPIC_OR_PARTITION') throw err;
  }
  await waitFor(`the leaders of ${topics.map((t) => t.topic).join(', ')}`, 60_000, async () => {
    const meta = await admin.fetchTopicMetadata({ topics: topics.map((t) => t.topic) }).catch(() => undefined);
    return (
      meta !== undefined &&
      topics.every((t) => {
        const parts = meta.topics.find((m) => m.name === t.topic)?.partitions ?? [];
        return parts.length === t.numPartitions && parts.every((p) => p.leader >= 0);
      })
    );
  });
}

export interface RawMessage {
  readonly key?: string | Buffer | null;
  readonly value: string | Buffer | null;
}

/** Sends with acks=all in chunks; resolves when the broker acknowledged everything. */
export async function produceRaw(h: Harness, messages: readonly RawMessage[], chunk = 1000): Promise<void> {
  const producer = h.kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  try {
    for (let i = 0; i < messages.length; i += chunk) {
      await producer.send({ topic: h.names.topic, acks: -1, messages: messages.slice(i, i + chunk).map((m) => ({ key: m.key ?? null, value: m.value })) });
    }
  } finally {
    await producer.disconnect();
  }
}

export function produceEvents(h: Harness, events: readonly TestEvent[]): Promise<void> {
  return produceRaw(
    h,
    events.map((e) => ({ key: e.id, value: JSON.stringify(e) })),
  );
}

/** n events with distinct (id, ts); every other one carries the indexed tag "site". */
export function makeEvents(n: number, opts: { idPrefix?: string; base?: number } = {}): TestEvent[] {
  const base = opts.base ?? 1_732_262_400_000;
  const prefix = opts.idPrefix ?? 'dev';
  return Array.from({ length: n }, (_, i) => {
    const e = { id: `${prefix}-${i % 37}`, ts: base + i * 1000, metric: i % 3 === 0 ? 'temp' : 'hum', value: i / 8 };
    return i % 2 === 0 ? { ...e, tags: { site: `s${i % 5}`, rack: `r${i % 4}` } } : e;
  });
}

export function countIndexed(events: readonly TestEvent[]): number {
  return events.filter((e) => e.tags?.['site'] !== undefined).length;
}

export async function startInProcess(h: Harness, extra: readonly string[]): Promise<Service> {
  const cfg = h.config(extra);
  const svc = await retryingRest('start service', () => startService(cfg, createLogger({ level: 'warn' })));
  let stopped = false;
  svc.finished.then(
    () => {
      stopped = true;
    },
    () => {
      stopped = true;
    },
  );
  h.defer(async () => {
    if (!stopped) await svc.stop('test cleanup');
  });
  return svc;
}

export async function eventsProcessed(svc: Service): Promise<{ written: number; dlq: number }> {
  const m = await svc.metrics.events.get();
  const by = (o: string): number => m.values.filter((v) => v.labels['outcome'] === o).reduce((s, v) => s + v.value, 0);
  return { written: by('written'), dlq: by('dlq') };
}

/** The stack toolkit's wait loop (scripts/lib/stack/proc.ts) as the tests call it: a probe that throws fails the wait. */
export async function waitFor(what: string, timeoutMs: number, check: () => Promise<boolean> | boolean, everyMs = 250): Promise<void> {
  await pollUntil(what, check, { timeoutMs, everyMs, errors: 'throw' });
}

export async function waitForEvents(svc: Service, total: number, timeoutMs = 120_000): Promise<void> {
  await waitFor(`tsingest_events_total to reach ${total}`, timeoutMs, async () => {
    const c = await eventsProcessed(svc);
    return c.written + c.dlq >= total;
  });
}

/**
 * Retries an idempotent read/apply while the REST gateway is unreachable (rest-outage.test.ts stops it,
 * and test files run concurrently), for at most 90 s.
 */
export async function retryingRest<T>(what: string, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (!isRetriable(err) || Date.now() > deadline) throw err;
      process.stderr.write(`${what}: REST unavailable (${String(err)}), retrying\n`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

/** Metric cells of the data table (the tags cell, qualifier starting 0x00, excluded). */
export function countDataCells(h: Harness): Promise<number> {
  return retryingRest(`scan ${h.names.data}`, async () => {
    let n = 0;
    for await (const row of h.rest.scan(h.names.data, { batch: 5000 })) for (const c of row.cells) if (c.qualifier[0] !== 0x00) n++;
    return n;
  });
}

export function countRows(h: Harness, table: string): Promise<number> {
  return retryingRest(`scan ${table}`, async () => {
    let n = 0;
    for await (const row of h.rest.scan(table, { batch: 5000 })) if (row.cells.length > 0) n++;
    return n;
  });
}

export interface OffsetState {
  readonly end: Readonly<Record<number, bigint>>;
  readonly committed: Readonly<Record<number, bigint>>;
}

/** The topic's end offsets and the group's committed ones; a retriable broker answer (a coordinator moving, NOT_COORDINATOR) is asked again. */
export async function offsets(h: Harness, groupId: string): Promise<OffsetState> {
  for (let attempt = 1; ; attempt++) {
    try {
      const end: Record<number, bigint> = {};
      for (const p of await h.admin.fetchTopicOffsets(h.names.topic)) end[p.partition] = BigInt(p.high);
      const committed: Record<number, bigint> = {};
      const [topic] = await h.admin.fetchOffsets({ groupId, topics: [h.names.topic] });
      for (const p of topic?.partitions ?? []) committed[p.partition] = BigInt(p.offset);
      return { end, committed };
    } catch (err) {
      const retriable = typeof err === 'object' && err !== null && (err as { retriable?: unknown }).retriable === true;
      if (!retriable || attempt >= 10) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

export function committedAtEnd(o: OffsetState): boolean {
  return Object.entries(o.end).every(([p, high]) => o.committed[Number(p)] === high);
}

export async function waitForCommittedAtEnd(h: Harness, groupId: string, timeoutMs = 120_000): Promise<void> {
  await waitFor(`group ${groupId} to commit to the end of ${h.names.topic}`, timeoutMs, async () => committedAtEnd(await offsets(h, groupId)), 500);
}

export interface DlqMessage {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: Readonly<Record<string, string>>;
}

export interface TopicRecord extends DlqMessage {
  readonly partition: number;
  readonly offset: string;
}

/** Reads `count` records of `topic` (default: the DLQ) with a fresh consumer group (fails on timeout). */
export async function readRecords(h: Harness, count: number, topic: string = h.names.dlq, timeoutMs = 60_000): Promise<TopicRecord[]> {
  const consumer = h.kafka.consumer({ groupId: uniqueName('it-reader'), maxWaitTimeInMs: 100 });
  await consumer.connect();
  const got: TopicRecord[] = [];
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        got.push({ partition, offset: message.offset, key: message.key, value: message.value, headers: flattenHeaders(message.headers ?? {}) });
        await Promise.resolve();
      },
    });
    await waitFor(`${count} records of ${topic} (have ${got.length})`, timeoutMs, () => got.length >= count);
    return got;
  } finally {
    await consumer.disconnect();
  }
}

/** Reads `count` records from the DLQ topic with a fresh consumer group (fails on timeout). */
export function readDlq(h: Harness, count: number, timeoutMs = 60_000): Promise<DlqMessage[]> {
  return readRecords(h, count, h.names.dlq, timeoutMs);
}

function flattenHeaders(headers: IHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    const first = Array.isArray(v) ? v[0] : v;
    if (first !== undefined) out[k] = first.toString();
  }
  return out;
}

export { freePort } from '../../scripts/lib/stack/probes.ts';

export interface ChildService {
  readonly child: ChildProcess;
  readonly port: number;
  /** resolves with the exit code / signal */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
}

/** `node src/cli.ts run [flags] --set …` as a child process; killed (SIGKILL) on cleanup if still alive. */
export function startChild(h: Harness, extra: readonly string[], port: number, flags: readonly string[] = []): ChildService {
  // Log at info so a drain's outcome (and its failure) is in output().
  const sets = [...h.baseSets, 'log.level=info', ...extra, `http.port=${port}`];
  const args = ['src/cli.ts', 'run', ...flags, ...sets.flatMap((s) => ['--set', s])];
  const child = spawn(NODE_BIN, args, { cwd: REPO_ROOT, env: { ...process.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (b: Buffer): void => {
    out = (out + b.toString()).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => {
    child.once('exit', (code, signal) => {
      res({ code, signal });
    });
  });
  h.defer(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  return { child, port, exited, output: () => out };
}

/** Sum of tsingest_events_total over outcomes from a /metrics endpoint; null when it does not answer. */
export async function scrapeEvents(port: number): Promise<number | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(2000) });
    const text = await res.text();
    let n = 0;
    for (const line of text.split('\n')) {
      const m = /^tsingest_events_total\{[^}]*\}\s+(\S+)/.exec(line);
      if (m?.[1] !== undefined) n += Number(m[1]);
    }
    return n;
  } catch {
    return null;
  }
}

export async function readyzStatus(port: number): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2000) });
  await res.arrayBuffer();
  return res.status;
}

/** The value of an unlabelled gauge (e.g. tsingest_queue_depth) from a /metrics endpoint; null when it does not answer. */
export async function scrapeGauge(port: number, name: string): Promise<number | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(2000) });
    const text = await res.text();
    const m = new RegExp(`^${name}(?:\\{[^}]*\\})?\\s+(\\S+)`, 'm').exec(text);
    return m?.[1] === undefined ? null : Number(m[1]);
  } catch {
    return null;
  }
}
