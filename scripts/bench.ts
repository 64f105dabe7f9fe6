// npm run bench -- [--events N] [--ids 10000] [--buckets 16] [--keep]
// Fresh tables and topics, N generated events produced to Kafka first, then the real service
// (in-process) drains them; a paced steady phase for latency; the same rows straight through REST
// (ceiling) and into an unsalted id-prefix-split table (skew comparison). Results go to
// bench-results/ and BENCHMARKS.md. Endpoints as in scripts/start.ts: TSI_* env, else the local stack.
import { parseArgs } from 'node:util';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { stackUp } from './lib/local-stack.ts';
import { loadConfig } from '../src/runtime/config.ts';
import { createLogger } from '../src/runtime/logger.ts';
import { JavaTableAdmin } from '../src/admin/java-admin.ts';
import { HBaseRestClient } from '../src/hbase/index.ts';
import { benchNames, cleanUp, createTables, createTopics } from './lib/bench-setup.ts';
import { produceAll, runService } from './lib/bench-service.ts';
import { writeRaw, type GenParams } from './lib/bench-rows.ts';
import { machineInfo, updateBenchmarksMd, writeResults, type Figures } from './lib/bench-report.ts';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    ids: { type: 'string', default: '10000' },
    buckets: { type: 'string', default: '16' },
    'steady-events': { type: 'string', default: '50000' },
    keep: { type: 'boolean', default: false },
  },
});
const say = (m: string): void => { process.stdout.write(`[bench] ${m}\n`); };
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PARTITIONS = 8;

async function endpoints(): Promise<{ restUrl: string; brokers: string; adminCommand: string }> {
  const env = process.env;
  const rest = env['TSI_HBASE_REST_URL'];
  const brokers = env['TSI_KAFKA_BROKERS'];
  const admin = env['TSI_ADMIN_COMMAND'];
  if (rest !== undefined && rest !== '' && brokers !== undefined && brokers !== '' && admin !== undefined && admin !== '') return { restUrl: rest, brokers, adminCommand: admin };
  say('TSI_HBASE_REST_URL / TSI_KAFKA_BROKERS / TSI_ADMIN_COMMAND not all set: starting the embedded local stack');
  const ep = await stackUp(say);
  return { restUrl: ep.restUrl, brokers: ep.kafkaBrokers, adminCommand: JSON.stringify(ep.adminCommand) };
}

function intArg(name: string, raw: string | undefined): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got ${String(raw)}`);
  return n;
}

async function main(): Promise<number> {
  const events = intArg('events', values.events);
  const ids = intArg('ids', values.ids);
  const buckets = intArg('buckets', values.buckets);
  const steadyEvents = intArg('steady-events', values['steady-events']);
  const ep = await endpoints();
  const n = benchNames();
  const cfg = loadConfig({
    env: { TSI_KAFKA_BROKERS: ep.brokers, TSI_HBASE_REST_URL: ep.restUrl, TSI_ADMIN_COMMAND: ep.adminCommand },
    sets: [
      `tables.data.name=${n.data}`, `tables.index.name=${n.index}`, `tables.rollup.name=${n.rollup}`,
      `kafka.topic=${n.topic}`, `kafka.dlqTopic=${n.dlq}`, `kafka.groupId=${n.group}`, `kafka.clientId=${n.run}`,
      `keys.saltBuckets=${buckets}`, 'index.tags=[]', 'http.port=0', 'log.level=warn',
    ],
  });
  say(`run ${n.run}: ${events} events, ${ids} ids, B=${buckets}; data rows only on both sides (index.tags = [])`);
  const admin = new JavaTableAdmin({ command: cfg.hbase.adminCommand });
  const rest = new HBaseRestClient({ baseUrl: cfg.hbase.restUrl, defaultDeadlineMs: cfg.hbase.requestDeadlineMs, connections: cfg.hbase.connections });
  const kafka = new Kafka({ clientId: n.run, brokers: cfg.kafka.brokers, logLevel: logLevel.NOTHING });
  try {
    say('creating tables (service data/index/rollup, ceiling, unsalted) and topics');
    const idList = Array.from({ length: ids }, (_v, i) => `sensor-${String(i).padStart(5, '0')}`);
    const tables = await createTables(cfg, n, admin, rest, idList, buckets);
    await createTopics(kafka, n, PARTITIONS);
    say(`tables ready (compression ${tables.compression}; unsalted table ${tables.unsaltedSplits + 1} regions)`);

    const gen: GenParams = { count: events, ids, startTs: Date.now() - events, stepMs: 1, seed: 42 };
    const produced = await produceAll(kafka, n.topic, gen);
    say(`produced ${events} events in ${produced.seconds.toFixed(1)} s (${Math.round(produced.eventsPerSec)} events/s)`);

    const svc = await runService({ cfg, log: createLogger({ level: cfg.log.level }), kafka, events, steadyEvents, steadyFraction: 0.5, ids, dataRegions: buckets, say });
    say(`steady p50 ${(svc.steady.p50 * 1000).toFixed(0)} ms, p99 ${(svc.steady.p99 * 1000).toFixed(0)} ms; peak RSS ${(svc.peakRssBytes / 2 ** 20).toFixed(0)} MiB`);

    const raw = { family: cfg.tables.data.family, gen, maxRows: cfg.batch.maxRows, maxBytes: cfg.batch.maxBytes, concurrency: cfg.hbase.concurrency, client: rest };
    const ceiling = await writeRaw({ ...raw, table: n.ceiling, buckets });
    say(`raw REST ceiling: ${Math.round(ceiling.eventsPerSec)} events/s, skew ${ceiling.skew.toFixed(2)}`);
    const unsalted = await writeRaw({ ...raw, table: n.unsalted, buckets: 1 });
    say(`unsalted B=1: ${Math.round(unsalted.eventsPerSec)} events/s, skew ${unsalted.skew.toFixed(2)} over ${unsalted.regions} regions`);

    const date = new Date().toISOString();
    const figures: Figures = {
      date,
      command: `npm run bench -- --events ${events} --ids ${ids} --buckets ${buckets}`,
      machine: machineInfo(root),
      events, ids, buckets, partitions: PARTITIONS,
      produceEventsPerSec: produced.eventsPerSec,
      serviceEventsPerSec: svc.mainEventsPerSec,
      serviceSeconds: svc.mainSeconds,
      ceilingEventsPerSec: ceiling.eventsPerSec,
      ratio: svc.mainEventsPerSec / ceiling.eventsPerSec,
      unsaltedEventsPerSec: unsalted.eventsPerSec,
      steady: svc.steady,
      peakRssMiB: svc.peakRssBytes / 2 ** 20,
      rssBeforeServiceMiB: svc.rssBeforeServiceBytes / 2 ** 20,
      skew: { serviceRun: svc.runSkew, serviceWindow: svc.windowSkew, saltedRaw: ceiling.skew, unsaltedRaw: unsalted.skew, saltedRegions: ceiling.regions, unsaltedRegions: unsalted.regions },
      compression: tables.compression,
    };
    const out = writeResults(root, figures);
    updateBenchmarksMd(root, figures, out.json.slice(root.length + 1));
    say(`results: ${out.json} and ${out.md}; BENCHMARKS.md updated`);
    return 0;
  } finally {
    if (values.keep) say(`--keep: leaving tables ${n.run}_* and topics ${n.topic}, ${n.dlq}`);
    else {
      say('cleaning up tables and topics');
      await cleanUp(kafka, n, rest, say);
    }
    await rest.close();
  }
}

main().then(
  (code) => { process.exitCode = code; process.exit(code); },
  (err: unknown) => {
    process.stderr.write(`[bench] error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
