// The phases of `npm run bench:read`: query latency on a loaded table, rollup job cost on a table 1×
// and 10× larger, and ingest throughput with and without index tags. Each phase creates its own
// uniquely named tables (and topics) and registers them for removal.
import { Kafka, logLevel } from 'kafkajs';
import { applyTables, type TableAdminPort } from '../../../src/admin/index.ts';
import { generateEvents, prng } from '../../../src/demo/index.ts';
import type { HBaseRestClient } from '../../../src/hbase/index.ts';
import { createReadMetrics } from '../../../src/metrics/index.ts';
import { collectPage, createQueries, type QueryKind, type RawParams } from '../../../src/reads-v1/index.ts';
import { RollupJob, rollupSettings } from '../../../src/rollup/index.ts';
import { keyspaceOf, startService, tablesOf } from '../../../src/service/index.ts';
import { createLogger, loadConfig, type Config } from '../../../src/runtime/index.ts';
import { Registry } from 'prom-client';
import { loadEvents, percentile, timeRuns, type LoadResult } from './load.ts';
import type { GenParams } from './rows.ts';
import { produceAll } from './service.ts';

export interface Endpoints {
  readonly restUrl: string;
  readonly brokers: string;
  readonly adminCommand: string;
}
export interface Ctx {
  readonly ep: Endpoints;
  readonly run: string;
  readonly buckets: number;
  readonly ids: number;
  readonly rest: HBaseRestClient;
  readonly admin: TableAdminPort;
  readonly say: (m: string) => void;
  /** tables and topics to drop at the end */
  readonly created: { tables: string[]; topics: string[] };
  /** extra `--set` pairs for every phase's configuration (experiments) */
  readonly sets: readonly string[];
}
export interface Latency {
  readonly p50: number;
  readonly p99: number;
  readonly n: number;
  readonly meanItems: number;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function config(ctx: Ctx, prefix: string, sets: readonly string[]): Config {
  const t = `${ctx.run}_${prefix}`;
  ctx.created.tables.push(`${t}_d`, `${t}_i`, `${t}_r`, `${t}_m`);
  return loadConfig({
    env: { TSI_KAFKA_BROKERS: ctx.ep.brokers, TSI_HBASE_REST_URL: ctx.ep.restUrl, TSI_ADMIN_COMMAND: ctx.ep.adminCommand },
    sets: [
      `tables.data.name=${t}_d`,
      `tables.index.name=${t}_i`,
      `tables.rollup.name=${t}_r`,
      `tables.meta.name=${t}_m`,
      `keys.saltBuckets=${ctx.buckets}`,
      'http.port=0',
      'log.level=warn',
      ...sets,
      ...ctx.sets,
    ],
  });
}

async function tables(ctx: Ctx, cfg: Config): Promise<void> {
  const applied = await applyTables(cfg, ctx.admin, ctx.rest);
  if (!applied.every((a) => a.splitsVerified)) throw new Error('pre-split regions not as planned');
}

function latencyOf(sorted: readonly number[], items: readonly number[]): Latency {
  return {
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    n: sorted.length,
    meanItems: items.reduce((a, b) => a + b, 0) / Math.max(1, items.length),
  };
}

export interface QueryFigures {
  readonly load: LoadResult;
  readonly latest100: Latency;
  readonly idDay: Latency;
  readonly byTag: Latency;
  readonly byTagRack: Latency;
}

/** Loads `events` over the last 2 days (tags site + rack indexed) and times the reads. */
export async function queryPhase(ctx: Ctx, events: number, queries: number): Promise<QueryFigures> {
  const cfg = config(ctx, 'q', ['index.tags=["site","rack"]', 'query.maxLimit=100000']);
  await tables(ctx, cfg);
  const now = Date.now();
  const gen = { count: events, ids: ctx.ids, startTs: now - 2 * DAY, stepMs: Math.max(1, Math.floor((2 * DAY) / events)), seed: 42, racks: 13 };
  ctx.say(`query phase: loading ${events} events (data + 2 index tags) over the last 2 days`);
  const load = await loadEvents(ctx.rest, cfg, gen, { markers: false });
  ctx.say(`loaded ${load.dataRows} data rows and ${load.indexRows} index rows in ${load.seconds.toFixed(1)} s`);
  const q = createQueries({ cfg, hbase: ctx.rest, keyspace: keyspaceOf(cfg), tables: tablesOf(cfg) });
  const random = prng(7);
  const pick = (lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo));
  const id = (rank: number): string => `sensor-${String(rank).padStart(5, '0')}`;
  const items: Record<string, number[]> = { latest: [], day: [], tag: [], rack: [] };
  const run = async (bucket: string, kind: QueryKind, raw: RawParams): Promise<void> => {
    const page = await collectPage(q.run(q.parse(kind, raw)));
    items[bucket]?.push(page.items.length);
  };
  const yesterday = Math.floor(now / DAY) * DAY - DAY;
  // latest 100 of ids that have at least 100 events (Zipf ranks 0–199 with these defaults)
  const latest = await timeRuns(queries, 10, () => run('latest', 'latest', { id: id(pick(0, 200)), limit: '100' }));
  // one id's whole UTC day (ranks 20–99: a few hundred events a day each)
  const day = await timeRuns(Math.max(20, Math.floor(queries / 4)), 3, () =>
    run('day', 'range', { id: id(pick(20, 100)), from: String(yesterday), to: String(yesterday + DAY), limit: '100000' }),
  );
  const tag = await timeRuns(queries, 10, () => run('tag', 'by_tag', { tag: 'site', value: `site-${pick(0, 7)}`, limit: '100' }));
  const rack = await timeRuns(Math.max(20, Math.floor(queries / 4)), 3, () =>
    run('rack', 'by_tag', { tag: 'rack', value: `rack-${pick(0, 13)}`, limit: '100' }),
  );
  const figures = {
    load,
    latest100: latencyOf(latest, items['latest'] ?? []),
    idDay: latencyOf(day, items['day'] ?? []),
    byTag: latencyOf(tag, items['tag'] ?? []),
    byTagRack: latencyOf(rack, items['rack'] ?? []),
  };
  // A phase that read nothing measured nothing: fail rather than report a latency.
  if (load.dataRows !== events) throw new Error(`query phase: loaded ${load.dataRows} of ${events} events`);
  for (const [name, l] of Object.entries(figures))
    if ('meanItems' in l && !(l.meanItems > 0)) throw new Error(`query phase: ${name} queries returned no items`);
  return figures;
}

export interface RollupCost {
  readonly historyRows: number;
  readonly newEvents: number;
  readonly markers: number;
  readonly marks: number;
  readonly windows: number;
  readonly seconds: number;
  readonly rounds: readonly number[];
}
export interface RollupFigures {
  readonly small: RollupCost;
  readonly large: RollupCost;
  readonly ratio: number;
  /** flush + major compaction of both data tables before the rounds */ readonly settleSeconds: number;
}

interface RollupTable {
  readonly cfg: Config;
  readonly history: number;
  readonly fresh: LoadResult;
}

const ROUNDS = 3;

/** The new events of the rollup phase: `fresh` events over the one closed hour from `hourStart`. */
function freshGen(ctx: Ctx, fresh: number, hourStart: number): GenParams {
  return { count: fresh, ids: ctx.ids, startTs: hourStart, stepMs: HOUR / fresh, seed: 2 };
}

/** Distinct (id, hour) pairs of the new events: the 1 h windows each timed job run must write. */
export function expectedHourWindows(gen: GenParams): number {
  const seen = new Set<string>();
  for (const e of generateEvents(gen)) seen.add(`${e.id}|${e.ts - (e.ts % HOUR)}`);
  return seen.size;
}

/** The new events of every round: how many, from which hour. */
interface Fresh {
  readonly fresh: number;
  readonly hourStart: number;
}

async function rollupTable(ctx: Ctx, prefix: string, history: number, f: Fresh): Promise<RollupTable> {
  const { fresh, hourStart } = f;
  // markerSettleMs 0: the markers of each round are written just before its run, and the job would
  // leave markers younger than the settle period (120 s by default) alone — as `npm start`'s demo does.
  const cfg = config(ctx, prefix, ['index.tags=[]', 'rollup.graceMs=0', 'rollup.markerSettleMs=0']);
  await tables(ctx, cfg);
  const now = Date.now();
  // history: 2–30 days ago, no markers (already rolled up as far as this run is concerned)
  const h = await loadEvents(
    ctx.rest,
    cfg,
    { count: history, ids: ctx.ids, startTs: now - 30 * DAY, stepMs: Math.max(1, Math.floor((28 * DAY) / history)), seed: 1 },
    { markers: false },
  );
  // the same new data on both tables: one closed hour (its markers are written before each timed run)
  const n = await loadEvents(ctx.rest, cfg, freshGen(ctx, fresh, hourStart), { markers: false });
  if (h.dataRows !== history || n.dataRows !== fresh)
    throw new Error(`rollup phase: loaded ${h.dataRows}/${history} history and ${n.dataRows}/${fresh} new rows`);
  return { cfg, history: h.dataRows, fresh: n };
}

async function timedRun(ctx: Ctx, t: RollupTable, f: Fresh, expected: number): Promise<{ seconds: number; windows: number; markers: number; marks: number }> {
  const { fresh, hourStart } = f;
  const marks = await loadEvents(ctx.rest, t.cfg, freshGen(ctx, fresh, hourStart), { markers: true, dataless: true });
  const job = new RollupJob({
    store: ctx.rest,
    settings: rollupSettings(t.cfg, keyspaceOf(t.cfg), tablesOf(t.cfg)),
    metrics: createReadMetrics(new Registry(), t.cfg.rollup.windows),
    log: createLogger({ level: 'warn' }),
  });
  const t0 = performance.now();
  const report = await job.run(new AbortController().signal);
  const seconds = (performance.now() - t0) / 1000;
  if (!report.ok) throw new Error(`rollup run had errors: ${JSON.stringify(report)}`);
  const fine = report.sizes[0];
  // A run that did not do the work must not report a cost (it once timed 0 windows, all settling).
  if (fine?.written !== expected)
    throw new Error(`rollup run wrote ${fine?.written ?? 0} windows of ${fine?.window ?? '?'}, expected ${expected}: ${JSON.stringify(report.sizes)}`);
  return { seconds, windows: fine.written, markers: marks.markerRows, marks: marks.marks };
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
}

/**
 * The same new hour of data rolled up on a table with `history` rows and on one with 10× that. Both
 * tables are loaded first, then settled: flushed and major-compacted through the admin tool, which
 * waits until no compaction is running or queued, so neither run pays for the loads' compactions.
 * Then ROUNDS rounds re-mark the new hour on both and time one job run on each, alternating which
 * goes first; the figure is the median run. Every run must write one 1 h window per distinct id of
 * the new events, or the phase fails.
 */
export async function rollupPhase(ctx: Ctx, history: number, fresh: number): Promise<RollupFigures> {
  ctx.say(`rollup phase: ${history} and ${history * 10} history rows, the same ${fresh} new events each, ${ROUNDS} alternating rounds`);
  const hourStart = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
  const expected = expectedHourWindows(freshGen(ctx, fresh, hourStart));
  const f: Fresh = { fresh, hourStart };
  const small = await rollupTable(ctx, 'r1', history, f);
  const large = await rollupTable(ctx, 'r10', history * 10, f);
  const t0 = performance.now();
  for (const t of [small, large]) await ctx.admin.compact(t.cfg.tables.data.name);
  const settleSeconds = (performance.now() - t0) / 1000;
  ctx.say(`both data tables flushed and major-compacted in ${settleSeconds.toFixed(1)} s`);
  const runs: { small: number[]; large: number[]; windows: number; markers: number; marks: number } = {
    small: [],
    large: [],
    windows: 0,
    markers: 0,
    marks: 0,
  };
  for (let round = 0; round < ROUNDS; round++) {
    const order: ['small' | 'large', RollupTable][] =
      round % 2 === 0
        ? [
            ['small', small],
            ['large', large],
          ]
        : [
            ['large', large],
            ['small', small],
          ];
    for (const [name, t] of order) {
      const r = await timedRun(ctx, t, f, expected);
      runs[name].push(r.seconds);
      runs.windows = r.windows;
      runs.markers = r.markers;
      runs.marks = r.marks;
      ctx.say(`round ${round + 1}, ${name} table: ${r.windows} windows in ${r.seconds.toFixed(2)} s (${Math.round(r.windows / r.seconds)} windows/s)`);
    }
  }
  const cost = (t: RollupTable, xs: number[]): RollupCost => ({
    historyRows: t.history,
    newEvents: t.fresh.events,
    markers: runs.markers,
    marks: runs.marks,
    windows: runs.windows,
    seconds: median(xs),
    rounds: xs,
  });
  const s = cost(small, runs.small);
  const l = cost(large, runs.large);
  ctx.say(
    `rollup: ${s.windows} windows; median ${s.seconds.toFixed(2)} s (${Math.round(s.windows / s.seconds)} windows/s) vs ${l.seconds.toFixed(2)} s on the 10× table; ratio ${(l.seconds / s.seconds).toFixed(2)}`,
  );
  return { small: s, large: l, ratio: l.seconds / s.seconds, settleSeconds };
}

export interface IngestRun {
  readonly tags: readonly string[];
  readonly eventsPerSec: number;
  readonly seconds: number;
}
export interface IngestFigures {
  readonly none: IngestRun;
  readonly twoTags: IngestRun;
  readonly overhead: number;
}

async function drain(ctx: Ctx, prefix: string, tags: readonly string[], events: number): Promise<IngestRun> {
  const topic = `${ctx.run}-${prefix}`;
  const cfg = config(ctx, prefix, [
    `index.tags=${JSON.stringify(tags)}`,
    `kafka.topic=${topic}`,
    `kafka.dlqTopic=${topic}-dlq`,
    `kafka.groupId=${topic}-g`,
    `kafka.clientId=${topic}`,
  ]);
  await tables(ctx, cfg);
  const kafka = new Kafka({ clientId: topic, brokers: cfg.kafka.brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  ctx.created.topics.push(topic, `${topic}-dlq`);
  await admin.createTopics({
    topics: [
      { topic, numPartitions: 8 },
      { topic: `${topic}-dlq`, numPartitions: 1 },
    ],
    waitForLeaders: true,
  });
  await admin.disconnect();
  await produceAll(kafka, topic, { count: events, ids: ctx.ids, startTs: Date.now() - events, stepMs: 1, seed: 42, racks: 13 });
  const t0 = performance.now();
  const svc = await startService(cfg, createLogger({ level: 'warn' }));
  try {
    for (;;) {
      const m = await svc.metrics.events.get();
      if (m.values.filter((v) => v.labels['outcome'] === 'written').reduce((a, v) => a + v.value, 0) >= events) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await svc.stop('bench');
  }
  const seconds = (performance.now() - t0) / 1000;
  return { tags, eventsPerSec: events / seconds, seconds };
}

/** The real service draining the same backlog with no index tags, then with 2 (site, rack). */
export async function ingestPhase(ctx: Ctx, events: number): Promise<IngestFigures> {
  ctx.say(`ingest phase: ${events} events drained by the service, index tags [] then [site, rack] (rollup markers on in both)`);
  const none = await drain(ctx, 'n', [], events);
  ctx.say(`no index: ${Math.round(none.eventsPerSec)} events/s`);
  const twoTags = await drain(ctx, 't', ['site', 'rack'], events);
  ctx.say(`2 index tags: ${Math.round(twoTags.eventsPerSec)} events/s`);
  return { none, twoTags, overhead: none.eventsPerSec / twoTags.eventsPerSec };
}
