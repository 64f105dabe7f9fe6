// npm run drill -- [--rate 3000] [--stall-s 60]
// npm run drill -- --instances 3 [--rate 1000]: the scale-out drill instead (scripts/lib/drill/instances.ts).
// An operator drill on the local stack, checked with Apache Kafka's own tools: the real service (a
// child process, config/local.json with its own tables and topic) under a steady produce load; the
// REST gateway frozen (SIGSTOP) for --stall-s seconds; every 5 s the service's tsingest_consumer_lag
// and /readyz next to the broker-side lag from kafka-consumer-groups; then SIGTERM mid-stream and the
// committed offsets compared with the rows in HBase (each event is one row: committed = written).
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import { main as cli } from '../src/cli.ts';
import { stackUp } from './lib/stack/local-stack.ts';
import { requireStackPid } from './lib/stack/config.ts';
import { describeGroup } from './lib/stack/kafka-tools.ts';
import { stackRestClient } from './lib/stack/client.ts';
import { deleteRunTopics } from './lib/stack/topics.ts';

const { values } = parseArgs({ options: { rate: { type: 'string' }, 'stall-s': { type: 'string', default: '60' }, instances: { type: 'string' } } });
const say = (m: string): void => {
  process.stdout.write(`[drill] ${m}\n`);
};
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const rate = Number(values.rate ?? '3000');
const stallMs = Number(values['stall-s']) * 1000;

async function main(): Promise<number> {
  const ep = await stackUp(say);
  const run = `drill_${Date.now().toString(36)}`;
  const topic = `${run}-events`;
  const group = `${run}-g`;
  const port = 19464;
  const sets = [
    `kafka.brokers=${ep.kafkaBrokers}`,
    `hbase.restUrl=${ep.restUrl}`,
    `hbase.adminCommand=${JSON.stringify(ep.adminCommand)}`,
    `tables.data.name=${run}_d`,
    `tables.index.name=${run}_i`,
    `tables.rollup.name=${run}_r`,
    `tables.meta.name=${run}_m`,
    `kafka.topic=${topic}`,
    `kafka.dlqTopic=${topic}-dlq`,
    `kafka.groupId=${group}`,
    `http.port=${port}`,
    'hbase.outageDeadlineMs=10000',
    'log.level=info',
  ];
  const args = ['--config', 'config/local.json', ...sets.flatMap((s) => ['--set', s])];
  if ((await cli(['tables', 'apply', ...args])) !== 0) return 1;
  const kafka = new Kafka({ clientId: run, brokers: [ep.kafkaBrokers], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({
    topics: [
      { topic, numPartitions: 4 },
      { topic: `${topic}-dlq`, numPartitions: 1 },
    ],
    waitForLeaders: true,
  });
  const child = spawn(process.execPath, ['--disable-warning=TimeoutNegativeWarning', 'src/cli.ts', 'run', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (b: Buffer) => {
    log += b.toString();
  });
  child.stderr.on('data', (b: Buffer) => {
    log += b.toString();
  });
  const exited = new Promise<number | null>((res) =>
    child.once('exit', (c) => {
      res(c);
    }),
  );
  const producer = kafka.producer();
  await producer.connect();
  let produced = 0;
  const state = { producing: true };
  const base = Date.now() - 3_600_000;
  const produceLoop = (async () => {
    while (state.producing) {
      const t0 = Date.now();
      const n = Math.round(rate / 10);
      // unique (id, ts) per event, so each event is exactly one data row
      const messages = Array.from({ length: n }, (_v, i) => ({
        value: JSON.stringify({ id: `dev-${(produced + i) % 500}`, ts: base + produced + i, metric: 'temp', value: i }),
      }));
      await producer.send({ topic, messages });
      produced += n;
      await sleep(Math.max(0, 100 - (Date.now() - t0)));
    }
  })();
  const metric = async (name: string): Promise<string> => {
    try {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      const sum = text
        .split('\n')
        .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
        .reduce((a, l) => a + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
      return String(sum);
    } catch {
      return 'n/a';
    }
  };
  const readyz = async (): Promise<string> => {
    try {
      return String((await fetch(`http://127.0.0.1:${port}/readyz`)).status);
    } catch {
      return 'n/a';
    }
  };
  const t0 = Date.now();
  const rows: string[] = [
    '| t (s) | phase | produced | tsingest_consumer_lag (service) | broker-side lag (kafka-consumer-groups) | /readyz |',
    '|---|---|---|---|---|---|',
  ];
  const sample = async (phase: string): Promise<void> => {
    const broker = await describeGroup(ep.kafkaBrokers, group, say).catch(() => []);
    const brokerLag = broker.reduce((a, p) => a + (p.lag ?? p.logEnd), 0);
    rows.push(
      `| ${Math.round((Date.now() - t0) / 1000)} | ${phase} | ${produced} | ${await metric('tsingest_consumer_lag')} | ${broker.length === 0 ? 'n/a' : brokerLag} | ${await readyz()} |`,
    );
    say(rows[rows.length - 1] ?? '');
  };
  const restPid = requireStackPid('rest');
  try {
    for (let i = 0; i < 4; i++) {
      await sleep(5000);
      await sample('normal');
    }
    process.kill(restPid, 'SIGSTOP');
    say(`REST gateway (pid ${restPid}) frozen for ${stallMs / 1000} s`);
    const stallEnd = Date.now() + stallMs;
    while (Date.now() < stallEnd) {
      await sleep(5000);
      await sample('gateway frozen');
    }
  } finally {
    process.kill(restPid, 'SIGCONT');
  }
  say('REST gateway resumed');
  for (let i = 0; i < 8; i++) {
    await sleep(5000);
    await sample('recovering');
  }
  say('SIGTERM to the service while producing');
  child.kill('SIGTERM');
  const code = await exited;
  state.producing = false;
  await produceLoop;
  await producer.disconnect();
  const committed = await describeGroup(ep.kafkaBrokers, group, say);
  const rest = stackRestClient(ep.restUrl);
  let dataRows = 0;
  for await (const row of rest.scan(`${run}_d`, { batch: 5000, filter: { type: 'FirstKeyOnlyFilter' } })) if (row.row.length > 0) dataRows++;
  const sumCommitted = committed.reduce((a, p) => a + (p.committed ?? 0), 0);
  process.stdout.write(`\n${rows.join('\n')}\n\nservice exit code after SIGTERM: ${String(code)}\n`);
  process.stdout.write(
    `${log
      .split('\n')
      .filter((l) => /drain|signal|uncommitted|pausing|resuming|HBase/.test(l))
      .slice(-8)
      .join('\n')}\n\n`,
  );
  process.stdout.write('| partition | committed (kafka-consumer-groups) | log end |\n|---|---|---|\n');
  for (const p of committed) process.stdout.write(`| ${p.partition} | ${String(p.committed)} | ${p.logEnd} |\n`);
  process.stdout.write(`\nsum of committed offsets ${sumCommitted}; data rows in HBase ${dataRows}; produced ${produced}\n`);
  process.stdout.write(
    sumCommitted === dataRows
      ? 'committed = written: every written unit is committed and nothing uncommitted was written\n'
      : `MISMATCH: ${dataRows - sumCommitted} rows written beyond the committed offsets\n`,
  );
  for (const t of [`${run}_d`, `${run}_i`, `${run}_r`, `${run}_m`])
    await rest.deleteTable(t, { ignoreMissing: true, deadlineMs: 120_000 }).catch(() => undefined);
  await rest.close();
  await deleteRunTopics(admin, [topic, `${topic}-dlq`]);
  await admin.disconnect();
  return code === 0 && sumCommitted === dataRows ? 0 : 1;
}

async function instancesDrill(n: number): Promise<number> {
  if (!Number.isInteger(n) || n < 1 || n > 8) throw new Error('--instances: a whole number from 1 to 8 (the topic has 8 partitions)');
  const { runInstancesDrill } = await import('./lib/drill/instances.ts');
  return runInstancesDrill({ instances: n, rate: Number(values.rate ?? '1000'), say });
}

(values.instances === undefined ? main() : instancesDrill(Number(values.instances))).then(
  (code) => {
    process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(`[drill] error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
