// npm run bench:ingest -- [--history 1000000] [--ids 10000] [--rate 500] [--minutes 3] [--settle-seconds 150]
//   [--heap shipped|default] [--node-options="FLAGS"] [--profile] [--results-dir bench-results]
// The ingest role alone, as the live phase of bench:series runs it (its rollup settings, a day of
// history, a live feed with ts = now) but with no query process and no TSD beside it: once the history
// is written and the lag is 0, `settle-seconds` pass (the history's rollup runs), then the process is
// watched for `minutes` (scripts/lib/bench/live-watch.ts: event-loop delay, lag, group joins, RSS).
// `--heap shipped` runs it with the heap flags the images and k8s ship (SERVICE_NODE_OPTIONS);
// `default`, with V8's defaults; `--node-options` runs it with these flags instead (a candidate for the
// shipped ones). `--profile`: a CPU profile of the process.
// Writes bench-results/ingest-<date>.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SERVICE_NODE_OPTIONS } from '../src/runtime/index.ts';
import { startFeed } from './lib/bench/live-feed.ts';
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
  heap: values.heap,
  nodeOptions,
};
const say = (m: string): void => {
  process.stdout.write(`[bench:ingest] ${m}\n`);
};
const DAY = 86_400_000;
const SHIPPED_ROLLUPS = ['rollup.graceMs=300000', 'rollup.markerSettleMs=120000', 'rollup.intervalMs=60000', 'series.catalogRefreshMs=30000'];
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const run = `bi${Date.now().toString(36)}`;
const stack = await createOurStack(readEndpoints(), run, { buckets: 16, partitions: 8 }, say);
try {
  const env = { ...process.env, NODE_OPTIONS: o.nodeOptions };
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
  await new Promise((r) => setTimeout(r, o.minutes * 60_000));
  const figures = await watch.stop();
  await feed.stop();
  // A watch that saw nothing measured nothing: no figure of it is reported as met.
  if (figures.samples === 0 || figures.endToEnd.events === 0)
    throw new Error(`the watch saw ${figures.samples} samples and ${figures.endToEnd.events} events written: nothing was measured`);
  await ingest.stop();
  const result = {
    at: new Date().toISOString(),
    command: `npm run bench:ingest -- ${process.argv.slice(2).join(' ')}`.trim(),
    options: o,
    caughtUpSeconds,
    lateTicks: feed.lateTicks,
    figures,
    loadAverageAtEnd: loadavg(),
  };
  mkdirSync(values['results-dir'], { recursive: true });
  const file = join(values['results-dir'], `ingest-${stamp}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  say(
    `event-loop delay p99 of the per-second p99s ${figures.eventLoopDelayMs.p99OfP99.toFixed(1)} ms, max ${figures.eventLoopDelayMs.max.toFixed(0)} ms; lag max ${figures.lag.max}, above 0 for at most ${figures.lag.longestAboveZeroSeconds} s; ${file}`,
  );
} finally {
  await stack.drop();
}
