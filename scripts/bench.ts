// npm run bench -- [--events N] [--ids 10000] [--buckets 16] [--index none|2tags|both]
//                  [--phases drain,latency,ceiling,native,skew,stall] [--stall-seconds 60] [--stall-rate 10000]
//                  [--encoding protobuf|json] [--node-options='…' (default: the service's, src/runtime/node-options.ts)] [--keep]
//                  [--results-dir bench-results] [--benchmarks-md BENCHMARKS.md|none] [--set key=value ...]
//                  [--backlog-age-hours 24] [--tsd-port 14242] [--opentsdb-batch 500] [--opentsdb-in-flight 8]
//                  [--opentsdb-queries 30]
// Phases: drain (service drains the backlog: events/s, CPU, RSS, profile), latency (paced 50 % of the
// drain rate; needs drain), ceiling (raw REST), native (Java client), skew (hot ids: the workload
// streamed live with spreading on and off, then unsalted; scripts/lib/bench/spread.ts), stall (REST
// gateway frozen), opentsdb (OpenTSDB 2.4.1's TSD on the same HBase, the same points through its
// /api/put, cold and warm, then reads against ours; scripts/lib/bench/opentsdb.ts). A phase not run is
// rendered "not run".
// Per index scenario (none: data rows only; 2tags: index on `site` and `rack`, 3 rows per event):
// fresh tables and topics, N generated events produced to Kafka, then the real service as its own
// process drains them (events/s, CPU per 1,000 events from /proc, RSS sampled every 200 ms, a CPU
// profile for `none`), a paced phase at 50 % of that rate (e2e latency), the same rows straight
// through REST (ceiling, same client and encoding) and through HBase's Java client (native anchor).
// Then the stall phase: REST gateway SIGSTOPped for 60 s under a steady produce rate, RSS sampled,
// every event counted back by a scan. Results: bench-results/ and BENCHMARKS.md. Local stack only
// for the native and stall phases (they need ZooKeeper and the gateway's pid).
import { parseArgs } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { stackUp } from './lib/stack/local-stack.ts';
import { loadConfig, SERVICE_NODE_OPTIONS, type Config } from '../src/runtime/index.ts';
import { keyspaceOf, planSettings, tablesOf } from '../src/service/index.ts';
import { JavaTableAdmin, planTables } from '../src/admin/index.ts';
import type { HBaseRestClient } from '../src/hbase/index.ts';
import { benchNames, cleanUp, createTables, createTopics, type BenchNames } from './lib/bench/setup.ts';
import { NO_STEADY, produceAll, runService, type ServiceRunResult } from './lib/bench/service.ts';
import { plannedRows, writeRows, type GenParams } from './lib/bench/rows.ts';
import { skewPhase } from './lib/bench/skew.ts';
import { dumpRows, writeNative } from './lib/bench/native.ts';
import { runStall } from './lib/bench/stall.ts';
import { openTsdbPhase } from './lib/bench/opentsdb.ts';
import { projectRoot, stackLayout, stackPids } from './lib/stack/config.ts';
import { profilePer1000 } from './lib/bench/profile.ts';
import { machineInfo, updateBenchmarksMd, writeResults, type Figures, type ScenarioFigures } from './lib/bench/report.ts';
import { stackRestClient } from './lib/stack/client.ts';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    ids: { type: 'string', default: '10000' },
    buckets: { type: 'string', default: '16' },
    'steady-events': { type: 'string', default: '50000' },
    index: { type: 'string', default: 'both' },
    phases: { type: 'string', default: 'drain,latency,ceiling,native,skew,stall,opentsdb' },
    'stall-seconds': { type: 'string', default: '60' },
    'stall-rate': { type: 'string', default: '10000' },
    'native-threads': { type: 'string', default: '4' },
    port: { type: 'string', default: '19464' },
    encoding: { type: 'string', default: 'protobuf' },
    'node-options': { type: 'string', default: SERVICE_NODE_OPTIONS },
    keep: { type: 'boolean', default: false },
    'results-dir': { type: 'string', default: 'bench-results' },
    'benchmarks-md': { type: 'string', default: 'BENCHMARKS.md' },
    set: { type: 'string', multiple: true, default: [] },
    'backlog-age-hours': { type: 'string', default: '24' },
    'skew-rate': { type: 'string', default: '5000' },
    'skew-drain-events': { type: 'string', default: '500000' },
    'tsd-port': { type: 'string', default: '14242' },
    'opentsdb-batch': { type: 'string', default: '500' },
    'opentsdb-in-flight': { type: 'string', default: '8' },
    'opentsdb-queries': { type: 'string', default: '30' },
  },
});
const say = (m: string): void => {
  process.stdout.write(`[bench] ${m}\n`);
};
const root = projectRoot;
const PARTITIONS = 8;
const TWO_TAGS = ['site', 'rack'];

function intArg(name: string, raw: string | undefined): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got ${String(raw)}`);
  return n;
}

const events = intArg('events', values.events);
const ids = intArg('ids', values.ids);
const buckets = intArg('buckets', values.buckets);
const steadyEvents = intArg('steady-events', values['steady-events']);
const port = intArg('port', values.port);
const nativeThreads = intArg('native-threads', values['native-threads']);
const backlogAgeMs = values['backlog-age-hours'] === '0' ? 0 : intArg('backlog-age-hours', values['backlog-age-hours']) * 3_600_000;
const PHASES = ['drain', 'latency', 'ceiling', 'native', 'skew', 'stall', 'opentsdb'];
const phases = new Set(
  values.phases
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== ''),
);
for (const p of phases) if (!PHASES.includes(p)) throw new Error(`--phases: unknown phase ${p} (known: ${PHASES.join(', ')})`);
if (phases.has('latency') && !phases.has('drain')) throw new Error('--phases: latency needs drain (its rate is 50 % of the drain rate)');
const scenarioPhases = ['drain', 'ceiling', 'native'].filter((p) => phases.has(p));
const modes = values.index === 'both' ? ['none', '2tags'] : [values.index];
for (const m of modes) if (m !== 'none' && m !== '2tags') throw new Error(`--index must be none, 2tags or both, got ${m}`);

interface Env {
  restUrl: string;
  brokers: string;
  adminCommand: string;
}

function setsFor(n: BenchNames, tags: readonly string[]): string[] {
  return [
    `tables.data.name=${n.data}`,
    `tables.index.name=${n.index}`,
    `tables.rollup.name=${n.rollup}`,
    `tables.meta.name=${n.meta}`,
    `kafka.topic=${n.topic}`,
    `kafka.dlqTopic=${n.dlq}`,
    `kafka.groupId=${n.group}`,
    `kafka.clientId=${n.run}`,
    `keys.saltBuckets=${buckets}`,
    `index.tags=${JSON.stringify(tags)}`,
    'log.level=warn',
    'rollup.intervalMs=3600000',
    `hbase.putEncoding=${values.encoding}`,
    ...values.set, // --set key=value: service settings under test (e.g. kafka.partitionsConsumedConcurrently=8)
  ];
}

function configFor(ep: Env, sets: readonly string[]): { cfg: Config; env: NodeJS.ProcessEnv } {
  const env = {
    ...process.env,
    TSI_KAFKA_BROKERS: ep.brokers,
    TSI_HBASE_REST_URL: ep.restUrl,
    TSI_ADMIN_COMMAND: ep.adminCommand,
    NODE_OPTIONS: values['node-options'],
  };
  return { cfg: loadConfig({ env, sets: [...sets, 'http.port=0'] }), env };
}

async function scenario(
  ep: Env,
  mode: string,
  clients: { readonly kafka: Kafka; readonly rest: HBaseRestClient },
  report: { compression: string; produce: number },
): Promise<ScenarioFigures> {
  const { kafka, rest } = clients;
  const tags = mode === 'none' ? [] : TWO_TAGS;
  const n = benchNames();
  const sets = setsFor(n, tags);
  const { cfg, env } = configFor(ep, sets);
  const admin = new JavaTableAdmin({ command: cfg.hbase.adminCommand });
  const nativeTable = `${n.run}_native`;
  const work = mkdtempSync(join(tmpdir(), 'tsi-bench-'));
  try {
    say(`[${mode}] run ${n.run}: tables and topics`);
    const idList = Array.from({ length: ids }, (_v, i) => `sensor-${String(i).padStart(5, '0')}`);
    const tables = await createTables(cfg, n, { admin, rest }, { ids: idList, regions: buckets });
    const plannedData = planTables(cfg).find((p) => p.role === 'data');
    if (plannedData === undefined) throw new Error('no data table planned');
    await admin.ensureTable({
      ...plannedData.request,
      table: nativeTable,
      familyAttrs: { ...plannedData.request.familyAttrs, COMPRESSION: tables.compression },
    });
    report.compression = tables.compression;
    // The backlog is stamped from --backlog-age-hours ago at 1 ms steps (default a day: every rollup window
    // closed, i.e. catching up after an outage, the costly case for rollup markers), so the result
    // does not depend on the time of day; 0 = ending now.
    const gen: GenParams = {
      count: events,
      ids,
      startTs: Date.now() - Math.max(events, backlogAgeMs),
      stepMs: 1,
      seed: 42,
      ...(tags.length > 0 ? { racks: 40 } : {}),
    };
    let svc: ServiceRunResult | undefined;
    let profile: ReturnType<typeof profilePer1000> | undefined;
    if (phases.has('drain')) {
      await createTopics(kafka, n, PARTITIONS);
      const produced = await produceAll(kafka, n.topic, gen);
      report.produce = produced.eventsPerSec;
      say(`[${mode}] produced ${events} events in ${produced.seconds.toFixed(1)} s`);
      const profDir = mode === 'none' ? join(work, 'prof') : undefined;
      const steady = phases.has('latency') ? steadyEvents : 0;
      svc = await runService({
        env,
        sets,
        port,
        topic: n.topic,
        dataTable: n.data,
        kafka,
        events,
        steadyEvents: steady,
        steadyFraction: 0.5,
        ids,
        dataRegions: buckets,
        say,
        watchPids: stackPids(),
        ...(profDir === undefined ? {} : { cpuProfDir: profDir }),
      });
      if (steady > 0)
        say(
          `[${mode}] steady p50 ${(svc.steady.p50 * 1000).toFixed(0)} ms, p99 ${(svc.steady.p99 * 1000).toFixed(0)} ms; one REST put p50 ${(svc.steady.putP50 * 1000).toFixed(0)} ms, p99 ${(svc.steady.putP99 * 1000).toFixed(0)} ms; ${svc.steady.units} units of ${svc.steady.eventsPerUnit.toFixed(0)} events`,
        );
      if (profDir !== undefined)
        profile = profilePer1000(profDir, events + steady, (m) => {
          say(`[${mode}] ${m}`);
        }); // the profile covers the whole service process
    }

    const settings = planSettings(cfg, keyspaceOf(cfg), tablesOf(cfg))();
    const rowsPerEvent = 1 + tags.length;
    const w = { client: rest, maxRows: cfg.batch.maxRows, maxBytes: cfg.batch.maxBytes, concurrency: cfg.hbase.concurrency };
    let ceilingEventsPerSec = NaN;
    if (phases.has('ceiling')) {
      const c = await writeRows({ ...w, table: n.ceiling, rows: plannedRows(gen, settings) });
      ceilingEventsPerSec = c.rowsPerSec / rowsPerEvent;
      say(`[${mode}] REST ceiling: ${c.rows} rows in ${c.seconds.toFixed(1)} s = ${Math.round(ceilingEventsPerSec)} events/s`);
    }
    let nativeEventsPerSec = NaN;
    if (phases.has('native')) {
      const file = join(work, 'rows.bin');
      const dumped = await dumpRows(file, plannedRows(gen, settings));
      const nat = await writeNative(nativeTable, file, nativeThreads, say);
      nativeEventsPerSec = nat.rowsPerSec / rowsPerEvent;
      say(`[${mode}] native writer: ${nat.rows} rows (${dumped} dumped) in ${nat.seconds.toFixed(1)} s = ${Math.round(nativeEventsPerSec)} events/s`);
    }
    return {
      label: mode === 'none' ? 'index off' : `2 index tags (${tags.join(', ')})`,
      indexTags: tags,
      rowsPerEvent,
      serviceEventsPerSec: svc?.mainEventsPerSec ?? NaN,
      serviceSeconds: svc?.mainSeconds ?? NaN,
      cpuMsPer1000: svc?.cpuMsPer1000 ?? NaN,
      stackCpuMsPer1000: { hbase: svc?.watchedCpuMsPer1000['hbase'], rest: svc?.watchedCpuMsPer1000['rest'] },
      peakRssMiB: (svc?.peakRssBytes ?? NaN) / 2 ** 20,
      hwmMiB: (svc?.hwmBytes ?? NaN) / 2 ** 20,
      ceilingEventsPerSec,
      nativeEventsPerSec,
      nativeThreads,
      steady: svc?.steady ?? NO_STEADY,
      skew: { serviceRun: svc?.runSkew ?? NaN, serviceWindow: svc?.windowSkew ?? NaN },
      ...(profile === undefined ? {} : { profile: profile.charged, profileSelf: profile.self, profileTop: profile.profileTop }),
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
    if (values.keep) say(`--keep: leaving ${n.run}_*`);
    else {
      await rest.deleteTable(nativeTable, { ignoreMissing: true, deadlineMs: 120_000 }).catch(() => undefined);
      await cleanUp(kafka, n, rest, say);
    }
  }
}

async function stall(ep: Env, kafka: Kafka, rest: HBaseRestClient): Promise<Figures['stall']> {
  const n = benchNames();
  const sets = setsFor(n, []);
  const { cfg, env } = configFor(ep, sets);
  try {
    await createTables(cfg, n, { admin: new JavaTableAdmin({ command: cfg.hbase.adminCommand }), rest }, { ids: ['sensor-00000'], regions: 1 });
    await createTopics(kafka, n, PARTITIONS);
    const r = await runStall({
      env,
      sets,
      port,
      kafka,
      topic: n.topic,
      dataTable: n.data,
      rest,
      rate: intArg('stall-rate', values['stall-rate']),
      stallSeconds: intArg('stall-seconds', values['stall-seconds']),
      leadSeconds: 10,
      ids,
      say,
    });
    return { ...r, peakRssMiB: r.peakRssBytes / 2 ** 20, hwmMiB: r.hwmBytes / 2 ** 20 };
  } finally {
    if (!values.keep) await cleanUp(kafka, n, rest, say);
  }
}

/** OpenTSDB's TSD on the same HBase, fed the points the index-off drain consumed (same generator, seed and step). */
async function openTsdb(ep: Env, zkQuorum: string, rest: HBaseRestClient): Promise<Figures['opentsdb']> {
  const n = benchNames();
  const { cfg } = configFor(ep, [...setsFor(n, ['site']), 'query.maxLimit=100000']);
  const { hbase: hbasePid, rest: restPid } = stackPids();
  if (hbasePid === undefined) throw new Error("opentsdb phase: no HBase pid file in the local stack's run directory");
  return openTsdbPhase({
    rest,
    admin: new JavaTableAdmin({ command: cfg.hbase.adminCommand }),
    run: n.run,
    ourConfig: cfg,
    zkQuorum,
    cacheDir: stackLayout().cacheDir,
    hbasePid,
    restPid: restPid === undefined ? {} : { rest: restPid },
    port: intArg('tsd-port', values['tsd-port']),
    gen: { count: events, ids, startTs: Date.now() - Math.max(events, backlogAgeMs), stepMs: 1, seed: 42 },
    buckets,
    batch: intArg('opentsdb-batch', values['opentsdb-batch']),
    inFlight: intArg('opentsdb-in-flight', values['opentsdb-in-flight']),
    queries: intArg('opentsdb-queries', values['opentsdb-queries']),
    keep: values.keep,
    say,
  });
}

async function main(): Promise<number> {
  say('using the local stack (started if needed)');
  const st = await stackUp(say);
  const ep: Env = { restUrl: st.restUrl, brokers: st.kafkaBrokers, adminCommand: JSON.stringify(st.adminCommand) };
  const { cfg } = configFor(ep, [`hbase.putEncoding=${values.encoding}`]);
  const rest = stackRestClient(ep.restUrl, [`hbase.connections=${cfg.hbase.connections}`, `hbase.putEncoding=${cfg.hbase.putEncoding}`]);
  const kafka = new Kafka({ clientId: 'tsi-bench', brokers: [ep.brokers], logLevel: logLevel.NOTHING });
  const report: { compression: string; produce: number } = { compression: '?', produce: NaN };
  try {
    const scenarios: ScenarioFigures[] = [];
    if (scenarioPhases.length > 0) for (const mode of modes) scenarios.push(await scenario(ep, mode, { kafka, rest }, report));
    const spread = phases.has('skew')
      ? await skewPhase(
          {
            kafka,
            rest,
            events,
            ids,
            rate: intArg('skew-rate', values['skew-rate']),
            drainEvents: intArg('skew-drain-events', values['skew-drain-events']),
            port,
            say,
          },
          (n, tags) => {
            const sets = setsFor(n, tags);
            return { ...configFor(ep, sets), sets };
          },
          buckets,
          values.keep,
        )
      : undefined;
    const stallFigures = phases.has('stall') ? await stall(ep, kafka, rest) : undefined;
    const opentsdb = phases.has('opentsdb') ? await openTsdb(ep, st.zkQuorum, rest) : undefined;
    const figures: Figures = {
      date: new Date().toISOString(),
      command: `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim(),
      machine: machineInfo(root),
      events,
      ids,
      buckets,
      partitions: PARTITIONS,
      putEncoding: cfg.hbase.putEncoding,
      produceEventsPerSec: report.produce,
      scenarios,
      compression: report.compression,
      ...(spread === undefined ? {} : { spread }),
      ...(stallFigures === undefined ? {} : { stall: stallFigures }),
      ...(opentsdb === undefined ? {} : { opentsdb }),
    };
    const out = writeResults(resolve(root, values['results-dir']), figures);
    const md = values['benchmarks-md'];
    if (md !== 'none') updateBenchmarksMd(resolve(root, md), figures, relative(root, out.json));
    say(`results: ${out.json} and ${out.md}; ${md === 'none' ? 'no BENCHMARKS.md update' : `${md} updated`}`);
    return 0;
  } finally {
    await rest.close();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
    process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(`[bench] error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
