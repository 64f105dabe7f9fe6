// npm run drill -- --instances N [--rate 1000]: scale-out by consumer group, shown to an operator.
// N service instances (child processes, config/local.json, one consumer group, their own tables and
// an 8-partition topic) under a steady produce stream: i1 alone, the others join, the last one is
// killed with kill -9, i2 is stopped with SIGTERM, both restart. After each change it samples until
// the group has settled: owners per kafka-consumer-groups (Apache Kafka's tool), the lag series of
// each live instance per partition, broker-side lag. At the end: produced vs rows written (each
// event is one data row and one index row), rows per (id, ts), committed offsets, lag series.
import { Kafka, logLevel } from 'kafkajs';
import { main as cli } from '../../../src/cli.ts';
import type { HBaseRestClient } from '../../../src/hbase/index.ts';
import { decodeDataKey } from '../../../src/keys/index.ts';
import { startServiceChild, type ServiceChild } from '../bench/child.ts';
import { Observer, formatLag, formatOwners, type DrillInstance, type Snapshot } from './observe.ts';
import { describeGroup } from '../stack/kafka-tools.ts';
import { stackUp } from '../stack/local-stack.ts';
import { stackRestClient } from '../stack/client.ts';
import { deleteRunTopics } from '../stack/topics.ts';

const PARTITIONS = 8;
const IDS = 500;
const BUCKETS = 16; // config/local.json

export interface InstancesDrillOptions {
  readonly instances: number;
  readonly rate: number;
  readonly say: (m: string) => void;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Produces rate/10 events every 100 ms: event i is id dev-(i mod 500) at base + i ms, tag site. */
function startStream(kafka: Kafka, topic: string, rate: number): { produced: () => number; stop: () => Promise<number>; base: number } {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  const base = Date.now() - 2 * 3_600_000;
  const state = { running: true, produced: 0 };
  const loop = (async () => {
    await producer.connect();
    while (state.running) {
      const t0 = Date.now();
      const n = Math.max(1, Math.round(rate / 10));
      const messages = Array.from({ length: n }, (_v, k) => {
        const i = state.produced + k;
        return {
          key: `dev-${i % IDS}`,
          value: JSON.stringify({ id: `dev-${i % IDS}`, ts: base + i, metric: 'temp', value: i % 1000, tags: { site: `s${i % 7}` } }),
        };
      });
      await producer.send({ topic, acks: -1, messages });
      state.produced += n;
      await sleep(Math.max(0, 100 - (Date.now() - t0)));
    }
    await producer.disconnect();
  })();
  loop.catch(() => undefined); // surfaced by stop()
  return {
    produced: () => state.produced,
    base,
    stop: async () => {
      state.running = false;
      await loop;
      return state.produced;
    },
  };
}

/** Data rows: how many, and how many rows each produced (id, ts) has; rows of no produced event counted apart. */
async function countRows(
  rest: HBaseRestClient,
  tables: { readonly data: string; readonly index: string },
  base: number,
  produced: number,
): Promise<{ rows: number; distinct: number; maxPerEvent: number; foreign: number; indexRows: number }> {
  const { data, index } = tables;
  const per = new Map<number, number>();
  let rows = 0;
  let foreign = 0;
  for await (const row of rest.scan(data, { batch: 5000, filter: { type: 'FirstKeyOnlyFilter' } })) {
    rows++;
    const { id, ts } = decodeDataKey(row.row, BUCKETS);
    const i = ts - base;
    if (i < 0 || i >= produced || id !== `dev-${i % IDS}`) foreign++;
    else per.set(i, (per.get(i) ?? 0) + 1);
  }
  let indexRows = 0;
  for await (const row of rest.scan(index, { batch: 5000, filter: { type: 'FirstKeyOnlyFilter' } })) if (row.row.length > 0) indexRows++;
  return { rows, distinct: per.size, maxPerEvent: Math.max(0, ...per.values()), foreign, indexRows };
}

export async function runInstancesDrill(o: InstancesDrillOptions): Promise<number> {
  const { say } = o;
  const ep = await stackUp(say);
  const run = `drill_${Date.now().toString(36)}`;
  const topic = `${run}-events`;
  const group = `${run}-g`;
  const tables = { data: `${run}_d`, index: `${run}_i`, rollup: `${run}_r`, meta: `${run}_m` };
  const sets = [
    `kafka.brokers=${ep.kafkaBrokers}`,
    `hbase.restUrl=${ep.restUrl}`,
    `hbase.adminCommand=${JSON.stringify(ep.adminCommand)}`,
    `tables.data.name=${tables.data}`,
    `tables.index.name=${tables.index}`,
    `tables.rollup.name=${tables.rollup}`,
    `tables.meta.name=${tables.meta}`,
    `kafka.topic=${topic}`,
    `kafka.dlqTopic=${topic}-dlq`,
    `kafka.groupId=${group}`,
    // a killed member is noticed after 10 s instead of the default 30 s
    'kafka.sessionTimeoutMs=10000',
    'kafka.heartbeatIntervalMs=1000',
    'log.level=warn',
  ];
  const configArgs = ['--config', 'config/local.json', ...sets.flatMap((s) => ['--set', s])];
  if ((await cli(['tables', 'apply', ...configArgs])) !== 0) return 1;
  const kafka = new Kafka({ clientId: run, brokers: [ep.kafkaBrokers], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({
    topics: [
      { topic, numPartitions: PARTITIONS },
      { topic: `${topic}-dlq`, numPartitions: 1 },
    ],
    waitForLeaders: true,
  });
  const rest = stackRestClient(ep.restUrl);

  const instances: DrillInstance[] = Array.from({ length: o.instances }, (_v, k) => ({
    name: `i${k + 1}`,
    clientId: `${run}-i${k + 1}`,
    port: 19471 + k,
    live: false,
  }));
  const procs = new Map<string, ServiceChild>();
  let final: Snapshot | undefined;
  const exits: string[] = [];
  const stream = startStream(kafka, topic, o.rate);
  const obs = new Observer({ brokers: ep.kafkaBrokers, group, topic, partitions: PARTITIONS, instances, produced: stream.produced, say });
  const byName = (n: string): DrillInstance => instances.find((i) => i.name === n) as DrillInstance;
  const start = async (names: readonly string[]): Promise<void> => {
    await Promise.all(
      names.map(async (n) => {
        const i = byName(n);
        procs.set(
          n,
          await startServiceChild({
            env: { ...process.env, TSI_CONFIG: 'config/local.json' },
            sets: [...sets, `kafka.clientId=${i.clientId}`],
            port: i.port,
            say,
          }),
        );
        i.live = true;
        say(`${n} started (pid ${procs.get(n)?.pid ?? '?'}, http://127.0.0.1:${i.port}/metrics, Kafka client id ${i.clientId})`);
      }),
    );
  };
  const stop = async (n: string, how: 'SIGTERM' | 'SIGKILL'): Promise<void> => {
    const p = procs.get(n);
    byName(n).live = false;
    procs.delete(n);
    if (how === 'SIGKILL') await p?.kill();
    else exits.push(`${n}${final === undefined ? ' (mid-stream)' : ''} ${String(await p?.stop())}`);
    say(`${n} ${how === 'SIGKILL' ? 'killed (kill -9)' : 'stopped (SIGTERM)'}`);
  };

  try {
    const others = instances.slice(1).map((i) => i.name);
    const last = others[others.length - 1];
    const second = others.length >= 2 ? others[0] : undefined;
    await start(['i1']);
    await obs.untilSettled('i1 alone');
    await sleep(5000);
    await obs.sample('i1 alone');
    if (others.length > 0) {
      await start(others);
      await obs.untilSettled(`${others.join(', ')} joined`);
      await sleep(5000);
      await obs.sample(`${o.instances} instances`);
    }
    const restart: string[] = [];
    if (last !== undefined) {
      await stop(last, 'SIGKILL');
      await obs.untilSettled(`${last} killed`);
      restart.push(last);
    }
    if (second !== undefined) {
      await stop(second, 'SIGTERM');
      await obs.untilSettled(`${second} stopped`);
      restart.unshift(second);
    }
    if (restart.length > 0) {
      await start(restart);
      await obs.untilSettled(`${restart.join(', ')} restarted`);
    }
    await sleep(5000);
    await obs.sample(`${o.instances} instances`);
    const produced = await stream.stop();
    say(`producer stopped after ${produced} events`);
    final = await obs.untilSettled('stream over');
    for (let tries = 0; final.brokerLag > 0 && tries < 60; tries++) {
      await sleep(3000);
      final = await obs.untilSettled('catching up');
    }
    // The lag poll runs every 5 s: once more, so the series show the final lag of 0.
    await sleep(6000);
    final = await obs.untilSettled('caught up');
    for (const i of instances.filter((x) => x.live)) await stop(i.name, 'SIGTERM');
    const committed = await describeGroup(ep.kafkaBrokers, group, say);
    const c = await countRows(rest, tables, stream.base, produced);
    const sumCommitted = committed.reduce((a, p) => a + (p.committed ?? 0), 0);
    const ok =
      c.rows === produced &&
      c.distinct === produced &&
      c.maxPerEvent === 1 &&
      c.foreign === 0 &&
      c.indexRows === produced &&
      sumCommitted === produced &&
      exits.every((e) => e.endsWith(' 0'));
    process.stdout.write(`\n${obs.rows.join('\n')}\n\n`);
    process.stdout.write(`instances: ${instances.map((i) => `${i.name} (Kafka client id ${i.clientId}, :${i.port})`).join(', ')}\n`);
    process.stdout.write(
      `final owners (kafka-consumer-groups): ${formatOwners(final)}\nfinal lag series (each partition on exactly one live instance, its owner): ${formatLag(final)}\n`,
    );
    process.stdout.write(`exit codes after SIGTERM: ${exits.join(', ')}\n`);
    process.stdout.write(`produced ${produced} events; committed offsets (kafka-consumer-groups) sum ${sumCommitted}\n`);
    process.stdout.write(
      `data rows ${c.rows}: ${c.distinct} distinct produced (id, ts), rows per (id, ts) max ${c.maxPerEvent}, duplicates ${c.rows - c.distinct - c.foreign}, missing ${produced - c.distinct}, rows of no produced event ${c.foreign}; index rows ${c.indexRows}\n`,
    );
    process.stdout.write(ok ? 'every produced event written exactly once, committed = produced\n' : 'MISMATCH: see the figures above\n');
    return ok ? 0 : 1;
  } finally {
    await stream.stop().catch(() => undefined);
    for (const p of procs.values()) await p.kill().catch(() => undefined);
    for (const t of Object.values(tables)) await rest.deleteTable(t, { ignoreMissing: true, deadlineMs: 120_000 }).catch(() => undefined);
    await rest.close();
    await deleteRunTopics(admin, [topic, `${topic}-dlq`]);
    await admin.disconnect();
  }
}
