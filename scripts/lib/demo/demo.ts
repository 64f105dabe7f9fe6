// The embedded demo behind `npm start`: topics, generated events over the past two days (and a few
// bad ones), the real service, the ids it spread, a live phase that writes into their spread buckets,
// one rollup job run, then a printed account of what landed where (region write skew of the history
// and of the live phase), read back with the same `tsingest query` commands the README shows.
import type { Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import { installSignalHandlers, type Config } from '../../../src/runtime/index.ts';
import { createHBaseClient, openKeyspace, startService, tablesOf } from '../../../src/service/index.ts';
import { generateEvents } from '../../../src/demo/index.ts';
import { produceLive, regionWrites, skewBetween } from './live.ts';

export interface DemoOptions {
  readonly cfg: Config;
  readonly kafka: Kafka;
  readonly events: number;
  /** events of the live phase (ts = now), after the history */
  readonly live: number;
  readonly serve: boolean;
  readonly say: (m: string) => void;
  readonly log: Logger;
  /** where `log` writes (printed, so the reader knows where the service's own lines are) */
  readonly logFile: string;
  /** runs a `tsingest` command against the demo's configuration */
  readonly cli: (argv: readonly string[]) => Promise<number>;
}

/** Demo events are spread evenly over this span ending now, so hourly and daily windows close. */
export const DEMO_SPAN_MS = 48 * 3_600_000;
const HOTTEST = 'sensor-00000'; // rank 0 of the Zipf distribution

const BAD = [
  '{"id":"dev-1","ts":1,',
  '{"ts":1700000000000,"metric":"temp","value":1}',
  '{"id":"a\\u0000b","ts":1700000000000,"metric":"temp","value":1}',
  '{"id":"dev-1","ts":1700000000000,"metric":"temp","value":"12"}',
];

async function ensureTopics(kafka: Kafka, topics: readonly string[]): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const have = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !have.has(t));
    if (missing.length > 0) await admin.createTopics({ topics: missing.map((topic) => ({ topic, numPartitions: 4 })), waitForLeaders: true });
  } finally {
    await admin.disconnect();
  }
}

async function counterSum(text: string, name: string): Promise<number> {
  let sum = 0;
  for (const line of text.split('\n')) if (line.startsWith(name)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  return Promise.resolve(sum);
}

export async function runDemo(o: DemoOptions): Promise<number> {
  const { cfg, kafka, say } = o;
  await ensureTopics(kafka, [cfg.kafka.topic, cfg.kafka.dlqTopic]);
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const stepMs = Math.max(1, Math.floor(DEMO_SPAN_MS / o.events));
  const startTs = Date.now() - o.events * stepMs; // evenly spread, ending about now
  const batch: { key: string; value: string }[] = [];
  let produced = 0;
  for (const e of generateEvents({ count: o.events, ids: 1000, startTs, stepMs, seed: 42 })) {
    batch.push({ key: e.id, value: JSON.stringify(e) });
    if (batch.length === 5000) {
      await producer.send({ topic: cfg.kafka.topic, acks: -1, messages: batch.splice(0) });
    }
    produced++;
  }
  await producer.send({ topic: cfg.kafka.topic, acks: -1, messages: [...batch, ...BAD.map((value) => ({ key: 'bad', value }))] });
  await producer.disconnect();
  say(`produced ${produced} events (${new Date(startTs).toISOString()} … now) and ${BAD.length} bad records to ${cfg.kafka.topic}`);

  const service = await startService(cfg, o.log);
  say(`service running; metrics on http://${cfg.http.host}:${service.httpPort}/metrics`);
  if (o.serve) {
    installSignalHandlers({
      onDrain: () => service.stop('signal'),
      drainTimeoutMs: cfg.shutdown.drainTimeoutMs,
      log: o.log,
      exit: (code) => process.exit(code),
    });
    await service.finished;
    return 0;
  }
  const settled = async (total: number): Promise<string> => {
    const deadline = Date.now() + 600_000;
    for (;;) {
      const text = await service.metrics.registry.metrics();
      const written = await counterSum(text, 'tsingest_events_total{outcome="written"}');
      const dlq = await counterSum(text, 'tsingest_events_total{outcome="dlq"}');
      if (written + dlq >= total) return text;
      if (Date.now() > deadline) throw new Error(`timed out: ${written} written, ${dlq} dead-lettered of ${total}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  };
  let total = produced + BAD.length;
  const history = await settled(total);
  say(`history drained: region write skew (max/mean rows per region, 1.0 = even) ${skews(cfg, '', history)}`);
  // Spreading is decided on live writes and changes events from an epoch ahead on: the two-day-old
  // history keeps its plain keys. Live events now, until the hot ids are promoted and their epochs run.
  say('live events (ts = now, 1,000/s) until the instances promote the hot ids; their epochs start keys.spread.leadMs later');
  const hbase = createHBaseClient(cfg, 'tool');
  let epochsFrom = Number.POSITIVE_INFINITY;
  total += await produceLive(kafka, cfg.kafka.topic, { rate: 1000 }, async (sent) => {
    if (sent > 120_000) throw new Error('no id was promoted after 120,000 live events');
    const { registry } = await openKeyspace(cfg, tablesOf(cfg), hbase);
    const starts = registry.spreadIds().map((id) => registry.entryOf(id)?.epochs.at(-1)?.since ?? 0);
    if (starts.length === 0) return false;
    epochsFrom = Math.max(...starts);
    return Date.now() > epochsFrom + 2 * cfg.keys.spread.refreshMs;
  });
  await hbase.close();
  await o.cli(['spread', 'list']);
  const before = await settled(total);
  total += await produceLive(kafka, cfg.kafka.topic, { rate: 1000, seed: 777 }, (sent) => sent >= o.live);
  const text = await settled(total);
  say(`${o.live} live events after the epochs started: region write skew ${skews(cfg, before, text)} (the history: see above)`);
  await service.stop('demo finished');
  await report(o, text);
  return 0;
}

/** "data X, index Y": skew of the rows written between two /metrics readings ('' = since start). */
function skews(cfg: Config, before: string, after: string): string {
  return [cfg.tables.data.name, ...(cfg.index.tags.length > 0 ? [cfg.tables.index.name] : [])]
    .map((t) => {
      const regions = Number(new RegExp(`tsingest_region_count\\{table="${t}"\\} (\\S+)`).exec(after)?.[1] ?? '0');
      return `${t} ${skewBetween(regionWrites(before, t), regionWrites(after, t), regions).toFixed(2)}`;
    })
    .join(', ');
}

async function report(o: DemoOptions, metricsText: string): Promise<void> {
  const { cfg, say } = o;
  say(
    `written: ${await counterSum(metricsText, 'tsingest_events_total{outcome="written"}')} events; dead-lettered: ${await counterSum(metricsText, 'tsingest_events_total{outcome="dlq"}')}`,
  );
  for (const line of metricsText.split('\n').filter((l) => l.startsWith('tsingest_dlq_records_total{') && !l.endsWith(' 0'))) say(`  DLQ ${line}`);
  const regions = metricsText.split('\n').filter((l) => l.startsWith(`tsingest_region_writes_total{table="${cfg.tables.data.name}"`));
  say(`${cfg.tables.data.name}: ${regions.length} regions received writes`);
  say('rollups: one job run over the closed windows (the service also runs it every rollup.intervalMs)');
  // The service has stopped, so no ingest is skipping re-marks: the markers need not settle first.
  // Nobody to share the buckets with either: one run over all of them, without a Kafka ownership group.
  await o.cli(['rollup', 'run', '--set', 'rollup.markerSettleMs=0', '--set', 'rollup.owners.mode=all']);
  const examples: readonly (readonly string[])[] = [
    ['query', 'latest', '--id', HOTTEST, '--limit', '3'], // its newest events are in its spread buckets, merged
    ['keys', 'encode', '--id', HOTTEST, '--ts', String(Date.now() - 60_000)],
    ['query', 'by-tag', '--tag', 'site', '--value', 'site-3', '--limit', '3'],
    ['query', 'rollups', '--id', HOTTEST, '--window', '1h', '--limit', '3'],
    ['query', 'rollups', '--id', HOTTEST, '--window', '1d', '--limit', '2'],
  ];
  for (const argv of examples) {
    say(`$ npm run cli -- ${argv.join(' ')} --config config/local.json`);
    await o.cli(argv);
  }
  say(`the service's log of this run: ${o.logFile}`);
}
