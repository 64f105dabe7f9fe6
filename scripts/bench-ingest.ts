// npm run bench:ingest -- [--history 1000000] [--ids 10000] [--rate 500] [--minutes 3] [--settle-seconds 150]
//   [--heap shipped|default] [--node-options="FLAGS"] [--profile] [--burst 0] [--bursts 1] [--burst-every 45]
//   [--burst-hours-ago 2] [--gc-log]
//   [--results-dir bench-results]
// The ingest role alone, as the live phase of bench:series runs it (its rollup settings, a day of
// history, a live feed with ts = now) but with no query process and no TSD beside it: once the history
// is written and the lag is 0, `settle-seconds` pass (the history's rollup runs), then the process is
// watched for `minutes` (scripts/lib/bench/live-watch.ts: event-loop delay, lag, group joins, RSS).
// `--heap shipped` runs it with the heap flags the images and k8s ship (SERVICE_NODE_OPTIONS);
// `default`, with V8's defaults; `--node-options` runs it with these flags instead (a candidate for the
// shipped ones). `--profile`: a CPU profile of the process. `--burst N`: a minute into the watch, N late
// events (ts spread over the hour `burst-hours-ago` hours back, as a producer that was down and sends its
// backlog) on top of the feed, and `bursts` of them `burst-every` seconds apart (each into the hour
// before the previous one's); the result then gives each burst's worst seconds and how long the lag
// took to come back to 0 (burstFigures). The watch must last past the last burst by a minute.
// `--gc-log`: the process's garbage collections during the watch, by kind (count, total, largest;
// scripts/lib/bench/gc-log.ts, loaded into it with --import).
// Writes bench-results/ingest-<date>.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SERVICE_NODE_OPTIONS } from '../src/runtime/index.ts';
import { startFeed } from './lib/bench/live-feed.ts';
import { burstFigures } from './lib/bench/burst-figures.ts';
import { readGcSummary } from './lib/bench/gc-log.ts';
import { watchIngest } from './lib/bench/live-watch.ts';
import { produceAll } from './lib/bench/service.ts';
import { createOurStack, startOurService, waitUntil } from './lib/bench/series-service.ts';
import { projectRoot, readEndpoints } from './lib/stack/config.ts';

const { values } = parseArgs({
  options: {
    history: { type: 'string', default: '1000000' },
    ids: { type: 'string', default: '10000' },
    rate: { type: 'string', default: '500' },
    minutes: { type: 'string', default: '3' },
    'settle-seconds': { type: 'string', default: '150' },
    heap: { type: 'string', default: 'shipped' },
    'node-options': { type: 'string' },
    profile: { type: 'boolean', default: false },
    'gc-log': { type: 'boolean', default: false },
    burst: { type: 'string', default: '0' },
    'burst-hours-ago': { type: 'string', default: '2' },
    bursts: { type: 'string', default: '1' },
    'burst-every': { type: 'string', default: '45' },
    'results-dir': { type: 'string', default: join(projectRoot, 'bench-results') },
  },
});
const num = (name: keyof typeof values): number => {
  const n = Number(values[name]);
  if (!Number.isFinite(n) || n < 0) throw new Error(`--${name}: expected a number ≥ 0, got ${String(values[name])}`);
  return n;
};
if (values.heap !== 'shipped' && values.heap !== 'default') throw new Error(`--heap: shipped or default, got ${values.heap}`);
const nodeOptions = values['node-options'] ?? (values.heap === 'shipped' ? SERVICE_NODE_OPTIONS : '');
const o = {
  history: num('history'),
  ids: num('ids'),
  rate: num('rate'),
  minutes: num('minutes'),
  settleSeconds: num('settle-seconds'),
  burst: num('burst'),
  burstHoursAgo: num('burst-hours-ago'),
  bursts: num('bursts'),
  burstEverySeconds: num('burst-every'),
  heap: values.heap,
  nodeOptions,
};
const say = (m: string): void => {
  process.stdout.write(`[bench:ingest] ${m}\n`);
};
const DAY = 86_400_000;
const HOUR = 3_600_000;
const SHIPPED_ROLLUPS = ['rollup.graceMs=300000', 'rollup.markerSettleMs=120000', 'rollup.intervalMs=60000', 'series.catalogRefreshMs=30000'];
const firstBurstMs = Math.min(60_000, (o.minutes * 60_000) / 3);
if (o.burst > 0 && firstBurstMs + (o.bursts - 1) * o.burstEverySeconds * 1000 + 60_000 > o.minutes * 60_000)
  throw new Error(`--minutes ${o.minutes}: too short for ${o.bursts} bursts ${o.burstEverySeconds} s apart and a minute after the last`);
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const run = `bi${Date.now().toString(36)}`;
const stack = await createOurStack(readEndpoints(), run, { buckets: 16, partitions: 8 }, say);
try {
  const gcLog = values['gc-log'] ? join(values['results-dir'], `ingest-${stamp}-gc.txt`) : undefined;
  if (gcLog !== undefined) mkdirSync(values['results-dir'], { recursive: true });
  const env = {
    ...process.env,
    NODE_OPTIONS: gcLog === undefined ? o.nodeOptions : `${o.nodeOptions} --import=${join(projectRoot, 'scripts/lib/bench/gc-log.ts')}`.trim(),
    ...(gcLog === undefined ? {} : { TSI_BENCH_GC_LOG: gcLog }),
  };
  const profDir = values.profile ? join(values['results-dir'], `ingest-${stamp}-profiles`) : undefined;
  const ingest = await startOurService(stack, `${run}-g`, say, { extra: [...SHIPPED_ROLLUPS, 'service.role=ingest'], cpuProfDir: profDir, env });
  const t0 = Date.now();
  const feed = await startFeed({ kafka: stack.kafka, topic: stack.names.topic, tsdUrl: undefined, rate: o.rate, ids: o.ids, seed: 7 });
  const produced = await produceAll(stack.kafka, stack.names.topic, {
    count: o.history,
    ids: o.ids,
    startTs: t0 - DAY,
    stepMs: Math.floor(DAY / o.history),
    seed: 42,
  });
  say(`${o.history} events of history produced in ${produced.seconds.toFixed(1)} s; live feed ${o.rate}/s`);
  await waitUntil('the history written', 900_000, async () => (await ingest.processed()) >= o.history);
  await waitUntil('lag 0', 600_000, async () => (await ingest.counter('tsingest_consumer_lag')) === 0);
  const caughtUpSeconds = (Date.now() - t0) / 1000;
  say(`caught up after ${caughtUpSeconds.toFixed(1)} s; ${o.settleSeconds} s for the history's rollup runs, then ${o.minutes} min watched`);
  await new Promise((r) => setTimeout(r, o.settleSeconds * 1000));
  const watch = watchIngest(ingest.url, ingest.pid, o.rate);
  const watchStart = Date.now();
  const bursts = o.burst > 0 ? sendBursts(stack.kafka, stack.names.topic) : undefined;
  await new Promise((r) => setTimeout(r, o.minutes * 60_000));
  const figures = await watch.stop();
  const burstsAt = (await bursts) ?? [];
  await feed.stop();
  // A watch that saw nothing measured nothing: no figure of it is reported as met.
  if (figures.samples === 0 || figures.endToEnd.events === 0)
    throw new Error(`the watch saw ${figures.samples} samples and ${figures.endToEnd.events} events written: nothing was measured`);
  await ingest.stop();
  // Nor is a burst or a log of collections that saw nothing.
  if (burstsAt.length !== (o.burst > 0 ? o.bursts : 0)) throw new Error(`${burstsAt.length} of ${o.bursts} bursts were sent`);
  const result = {
    at: new Date().toISOString(),
    command: `npm run bench:ingest -- ${process.argv.slice(2).join(' ')}`.trim(),
    options: o,
    caughtUpSeconds,
    lateTicks: feed.lateTicks,
    figures,
    gcDuringWatch:
      gcLog === undefined
        ? undefined
        : readGcSummary(gcLog, Date.parse(figures.perSecond.startedAt), Date.parse(figures.perSecond.startedAt) + figures.perSecond.loopMaxMs.length * 1000),
    bursts: burstsAt.map((at) => burstFigures(figures.perSecond, Math.round((at - watchStart) / 1000))),
    loadAverageAtEnd: loadavg(),
  };
  if (result.bursts.some((b) => b.worstMaxMs === null)) throw new Error('a burst fell on seconds the watch did not read: nothing was measured of it');
  if (result.gcDuringWatch !== undefined && Object.keys(result.gcDuringWatch).length === 0)
    throw new Error(`--gc-log: ${gcLog ?? ''} holds no collection of the watch (was gc-log.ts loaded?)`);
  mkdirSync(values['results-dir'], { recursive: true });
  const file = join(values['results-dir'], `ingest-${stamp}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  say(
    `event-loop delay p99 of the per-second p99s ${figures.eventLoopDelayMs.p99OfP99.toFixed(1)} ms, max ${figures.eventLoopDelayMs.max.toFixed(0)} ms; lag max ${figures.lag.max}, above 0 for at most ${figures.lag.longestAboveZeroSeconds} s; ${file}`,
  );
  if (result.gcDuringWatch !== undefined) say(`garbage collections during the watch: ${JSON.stringify(result.gcDuringWatch)}`);
  for (const b of result.bursts) say(`burst at second ${b.startSecond}: ${JSON.stringify(b)}`);
} finally {
  await stack.drop();
}

/** The bursts of late events, on their schedule from the watch's start; resolves with the time each began. */
async function sendBursts(kafka: Parameters<typeof produceAll>[0], topic: string): Promise<number[]> {
  const t0 = Date.now();
  const starts: number[] = [];
  for (let i = 0; i < o.bursts; i++) {
    await new Promise((r) => setTimeout(r, Math.max(0, t0 + firstBurstMs + i * o.burstEverySeconds * 1000 - Date.now())));
    const hour = (Math.floor(Date.now() / HOUR) - o.burstHoursAgo - i) * HOUR;
    starts.push(Date.now());
    const sent = await produceAll(kafka, topic, { count: o.burst, ids: o.ids, startTs: hour + 1, stepMs: Math.floor(HOUR / o.burst), seed: 99 + i });
    say(`burst ${i + 1}: ${o.burst} late events into the hour of ${new Date(hour).toISOString()}, sent in ${sent.seconds.toFixed(1)} s`);
  }
  return starts;
}
