// The hot-ids phase of `npm run bench` (--phases skew): the skew workload (N events, Zipf ids, B
// buckets, index on two tags) streamed live (ts = produce time) into the real service as its own
// process, with spreading on (the registry starts empty: promotions are the service's own) and off;
// the region write skew of the data and index tables over the whole stream from a cold start and over
// its second half; then a backlog whose event times lie inside the epochs the promoter added, drained
// by a fresh process (throughput on vs off); latest-100 of a spread id against a plain one; and the
// same rows unsalted (B = 1, split on id / tag-value prefixes) through REST.
//
// Why live: a promotion's epoch starts keys.spread.leadMs ahead of now (docs/KEYS.md), so a backlog
// stamped before the promotion keeps its buckets whatever is decided while it drains.
import type { Kafka } from 'kafkajs';
import { CompressionTypes } from 'kafkajs';
import type { HBaseRestClient } from '../../../src/hbase/index.ts';
import { Keyspace, kAt, planIdPrefixSplits } from '../../../src/keys/index.ts';
import { computeSkew } from '../../../src/load/index.ts';
import { collectPage, createQueries } from '../../../src/reads-v1/index.ts';
import type { Config } from '../../../src/runtime/index.ts';
import { openKeyspace, tablesOf } from '../../../src/service/index.ts';
import { generateEvents, type GeneratedEvent } from '../../../src/demo/index.ts';
import { startServiceChild, sumOf, type Sample, type ServiceChild } from './child.ts';
import { percentile, timeRuns } from './load.ts';
import { writeRaw, type GenParams } from './rows.ts';
import { produceAll } from './service.ts';

export interface SkewPair {
  readonly whole: number;
  readonly secondHalf: number;
}

export interface SpreadModeFigures {
  readonly mode: 'on' | 'off';
  readonly live: { readonly events: number; readonly seconds: number; readonly rate: number };
  readonly data: SkewPair;
  readonly index: SkewPair;
  /** what the promoter decided during the live stream (all zero with spreading off) */
  readonly promoted: {
    readonly ids: number;
    readonly byK: Readonly<Record<string, number>>;
    readonly firstEpochS: number | null;
    readonly lastEpochS: number | null;
    readonly halfAtS: number;
  };
  readonly drain: { readonly events: number; readonly seconds: number; readonly eventsPerSec: number; readonly cpuMsPer1000: number };
}

export interface LatestFigures {
  readonly spreadId: string;
  readonly spreadK: number;
  readonly plainId: string;
  readonly queries: number;
  readonly spread: { readonly p50: number; readonly p99: number };
  readonly plain: { readonly p50: number; readonly p99: number };
}

export interface SpreadFigures {
  readonly events: number;
  readonly rate: number;
  readonly drainEvents: number;
  readonly on: SpreadModeFigures;
  readonly off: SpreadModeFigures;
  readonly unsalted: { readonly data: number; readonly index: number; readonly dataRegions: number; readonly indexRegions: number };
  readonly latest: LatestFigures;
}

export interface SpreadContext {
  readonly kafka: Kafka;
  readonly rest: HBaseRestClient;
  readonly events: number;
  readonly ids: number;
  readonly rate: number;
  readonly drainEvents: number;
  readonly port: number;
  readonly say: (m: string) => void;
}

/** A fresh table set and topic per mode: its config, the env of the service process, and cleanup. */
export interface ModeSetup {
  readonly cfg: Config;
  readonly env: NodeJS.ProcessEnv;
  readonly sets: readonly string[];
  readonly dataTable: string;
  readonly indexTable: string;
  readonly topic: string;
}

const TWO_TAGS = { racks: 40 } as const;

function regionCounts(samples: readonly Sample[], table: string, regions: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of samples)
    if (s.name === 'tsingest_region_writes_total' && s.labels['table'] === table && s.labels['region'] !== 'unknown')
      out.set(s.labels['region'] ?? '', s.value);
  while (out.size < regions) out.set(`(idle ${out.size})`, 0);
  return out;
}

/** Skew of the rows written between two readings; no rows at all is an error, never a skew of 0. */
function skewOf(what: string, after: ReadonlyMap<string, number>, before: ReadonlyMap<string, number> = new Map()): number {
  const counts = [...after].map(([r, n]) => n - (before.get(r) ?? 0));
  if (!(counts.reduce((a, b) => a + b, 0) > 0)) throw new Error(`[skew] ${what}: no rows counted per region (tsingest_region_writes_total)`);
  return computeSkew(counts);
}

/** Streams `count` events at `rate` per second with ts = now (one event per ms at most per id stream). */
async function produceLive(
  kafka: Kafka,
  topic: string,
  load: { readonly count: number; readonly ids: number; readonly rate: number },
): Promise<{ seconds: number; t0: number; tEnd: number }> {
  const { count, ids, rate } = load;
  const producer = kafka.producer();
  await producer.connect();
  try {
    const gen = generateEvents({ count, ids, startTs: 0, stepMs: 0, seed: 42, ...TWO_TAGS });
    const t0 = Date.now();
    const p0 = performance.now();
    let sent = 0;
    const inFlight = new Set<Promise<unknown>>();
    while (sent < count) {
      const due = Math.min(count, Math.floor(((performance.now() - p0) / 1000) * rate));
      const messages: { key: string; value: string }[] = [];
      const ts = Date.now();
      while (sent + messages.length < due) {
        const next = gen.next();
        if (next.done === true) break;
        messages.push({ key: next.value.id, value: JSON.stringify({ ...next.value, ts }) });
      }
      if (messages.length > 0) {
        const p = producer.send({ topic, acks: -1, compression: CompressionTypes.None, messages });
        inFlight.add(p);
        void p.finally(() => inFlight.delete(p)).catch(() => undefined);
        if (inFlight.size >= 8) await Promise.race(inFlight);
      }
      sent += messages.length;
      await new Promise((r) => setTimeout(r, 20));
    }
    await Promise.all(inFlight);
    return { seconds: (performance.now() - p0) / 1000, t0, tEnd: Date.now() };
  } finally {
    await producer.disconnect();
  }
}

async function waitWritten(child: ServiceChild, target: number, timeoutMs: number): Promise<Sample[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const samples = await child.scrape();
    if (sumOf(samples, 'tsingest_events_total', { outcome: 'written' }) >= target) return samples;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${target} written events`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The backlog: `count` events of the same ids with ts spread evenly over [from, to) (all in the past). */
function* backlog(count: number, ids: number, from: number, to: number): Generator<GeneratedEvent> {
  let i = 0;
  for (const e of generateEvents({ count, ids, startTs: 0, stepMs: 0, seed: 43, ...TWO_TAGS })) {
    yield { ...e, ts: from + Math.floor((i++ * (to - from)) / count) };
  }
}

export interface ModeRun {
  readonly figures: SpreadModeFigures;
  /** the backlog's ts range relative to the live stream's start (the off run reuses the on run's) */
  readonly backlogFrom: number;
  readonly backlogTo: number;
}

/** One mode: the live stream, the promotions, then the backlog drained by a fresh process. */
export async function runMode(ctx: SpreadContext, setup: ModeSetup, mode: 'on' | 'off', backlogOffsets?: { from: number; to: number }): Promise<ModeRun> {
  const { say } = ctx;
  const regions = setup.cfg.keys.saltBuckets;
  const live = await startServiceChild({ env: setup.env, sets: setup.sets, port: ctx.port, say });
  let half: Sample[] = [];
  let halfAt = 0;
  let end: Sample[] = [];
  let stream: Awaited<ReturnType<typeof produceLive>>;
  try {
    say(`[skew ${mode}] streaming ${ctx.events} live events at ${ctx.rate}/s (ts = produce time)`);
    const producing = produceLive(ctx.kafka, setup.topic, { count: ctx.events, ids: ctx.ids, rate: ctx.rate });
    half = await waitWritten(live, ctx.events / 2, 1_800_000);
    halfAt = Date.now();
    stream = await producing;
    end = await waitWritten(live, ctx.events, 600_000);
  } finally {
    await live.stop();
  }
  const pair = (table: string): SkewPair => {
    const e = regionCounts(end, table, regions);
    return { whole: skewOf(`${table} whole`, e), secondHalf: skewOf(`${table} second half`, e, regionCounts(half, table, regions)) };
  };
  const { registry } = await openKeyspace(setup.cfg, tablesOf(setup.cfg), ctx.rest);
  const epochs = registry.spreadIds().flatMap((id) => registry.entryOf(id)?.epochs ?? []);
  const byK: Record<string, number> = {};
  for (const id of registry.spreadIds()) {
    const k = String(kAt(registry.entryOf(id), Number.MAX_SAFE_INTEGER));
    byK[k] = (byK[k] ?? 0) + 1;
  }
  const rel = (t: number): number => (t - stream.t0) / 1000;
  const firstEpochS = epochs.length === 0 ? null : rel(Math.min(...epochs.map((e) => e.since)));
  const lastEpochS = epochs.length === 0 ? null : rel(Math.max(...epochs.map((e) => e.since)));
  say(
    `[skew ${mode}] skew data ${pair(setup.dataTable).whole.toFixed(2)} whole, ${pair(setup.dataTable).secondHalf.toFixed(2)} second half; index ${pair(setup.indexTable).whole.toFixed(2)} / ${pair(setup.indexTable).secondHalf.toFixed(2)}; ${registry.spreadIds().length} ids spread ${JSON.stringify(byK)}, epochs from ${firstEpochS?.toFixed(0) ?? '-'} s to ${lastEpochS?.toFixed(0) ?? '-'} s; half written at ${rel(halfAt).toFixed(0)} s`,
  );

  // The backlog: after the hottest id's (last) epoch began, before the stream ended (so in the past:
  // no fences). Ids near the threshold may still be promoted later; the hot ones are in their epochs.
  const hottest = registry.entryOf('sensor-00000')?.epochs.at(-1)?.since;
  const from = backlogOffsets === undefined ? Math.max(stream.t0 + 1000, (hottest ?? Number.POSITIVE_INFINITY) + 1000) : stream.t0 + backlogOffsets.from;
  const to = backlogOffsets === undefined ? stream.tEnd : stream.t0 + backlogOffsets.to;
  if (!(to - from >= 10_000))
    throw new Error(`[skew ${mode}] only ${to - from} ms of the stream lie after the hottest id's epoch began: stream longer (--events / --skew-rate)`);
  await produceAll(ctx.kafka, setup.topic, backlog(ctx.drainEvents, ctx.ids, from, to));
  say(`[skew ${mode}] backlog of ${ctx.drainEvents} events over ${((to - from) / 1000).toFixed(0)} s of event time produced; draining with a fresh process`);
  const t0 = performance.now();
  const drain = await startServiceChild({ env: setup.env, sets: setup.sets, port: ctx.port, say });
  let seconds = 0;
  let cpu = 0;
  try {
    const cpu0 = drain.cpuMs();
    await waitWritten(drain, ctx.drainEvents, 1_800_000);
    seconds = (performance.now() - t0) / 1000;
    cpu = drain.cpuMs() - cpu0;
  } finally {
    await drain.stop();
  }
  say(`[skew ${mode}] drained ${ctx.drainEvents} in ${seconds.toFixed(1)} s = ${Math.round(ctx.drainEvents / seconds)} events/s`);
  return {
    figures: {
      mode,
      live: { events: ctx.events, seconds: stream.seconds, rate: ctx.events / stream.seconds },
      data: pair(setup.dataTable),
      index: pair(setup.indexTable),
      promoted: { ids: registry.spreadIds().length, byK, firstEpochS, lastEpochS, halfAtS: rel(halfAt) },
      drain: { events: ctx.drainEvents, seconds, eventsPerSec: ctx.drainEvents / seconds, cpuMsPer1000: (cpu / ctx.drainEvents) * 1000 },
    },
    backlogFrom: from - stream.t0,
    backlogTo: to - stream.t0,
  };
}

/** latest-100 of the hottest spread id and of a plain id with ≥ 100 events, alternating, through the query layer. */
export async function latestFigures(ctx: SpreadContext, cfg: Config, queries = 200): Promise<LatestFigures> {
  const tables = tablesOf(cfg);
  const { keyspace, registry } = await openKeyspace(cfg, tables, ctx.rest);
  const q = createQueries({ cfg, hbase: ctx.rest, keyspace, tables, entryFor: (id) => registry.fetch(id) });
  const spreadId = 'sensor-00000';
  if (registry.entryOf(spreadId) === undefined) throw new Error(`latest: ${spreadId} is not spread`);
  const read = async (id: string): Promise<number> => (await collectPage(q.run(q.parse('latest', { id, limit: '100' })))).items.length;
  // The plain id: the hottest one from rank 50 on that is not spread and has ≥ 100 events.
  let plainId = '';
  for (let rank = 50; rank < 10_000 && plainId === ''; rank++) {
    const id = `sensor-${String(rank).padStart(5, '0')}`;
    if (registry.entryOf(id) === undefined && (await read(id)) >= 100) plainId = id;
  }
  if (plainId === '') throw new Error('latest: no plain id with 100 events');
  const spreadMs: number[] = [];
  const plainMs: number[] = [];
  await timeRuns(queries * 2, 20, async (i) => {
    const t0 = performance.now();
    const n = await read(i % 2 === 0 ? spreadId : plainId);
    if (n !== 100) throw new Error(`latest-100 returned ${n} items`);
    (i % 2 === 0 ? spreadMs : plainMs).push(performance.now() - t0);
  });
  const sorted = (a: number[]): number[] => a.slice(-queries).sort((x, y) => x - y);
  const s = sorted(spreadMs);
  const p = sorted(plainMs);
  return {
    spreadId,
    spreadK: kAt(registry.entryOf(spreadId), Date.now()),
    plainId,
    queries,
    spread: { p50: percentile(s, 50), p99: percentile(s, 99) },
    plain: { p50: percentile(p, 50), p99: percentile(p, 99) },
  };
}

/** The same events' data and index rows into unsalted tables (B = 1) through REST: their region skew. */
export async function unsaltedSkew(
  ctx: SpreadContext,
  cfg: Config,
  tables: { data: string; index: string },
  write: { maxRows: number; maxBytes: number; concurrency: number },
): Promise<SpreadFigures['unsalted']> {
  const gen: GenParams = { count: ctx.events, ids: ctx.ids, startTs: Date.now() - ctx.events, stepMs: 1, seed: 42, ...TWO_TAGS };
  const base = { client: ctx.rest, family: cfg.tables.data.family, gen, ...write };
  const data = await writeRaw({ ...base, table: tables.data, buckets: 1 });
  const plain = new Keyspace({ buckets: 1, format: 'binary', indexSaltMode: 'entry' });
  const index = await writeRaw({
    ...base,
    table: tables.index,
    buckets: 1,
    rowsOf: (e) =>
      Object.entries(e.tags).map(([indexName, value]) => ({
        key: plain.indexKey({ indexName, value, ts: e.ts, id: e.id }),
        cells: [{ family: cfg.tables.index.family, qualifier: Buffer.from(e.metric), value: Buffer.alloc(0), timestamp: e.ts }],
      })),
  });
  if (!(data.rows > 0 && index.rows > 0)) throw new Error(`[skew unsalted] no rows written (data ${data.rows}, index ${index.rows})`);
  ctx.say(`[skew unsalted] data ${data.skew.toFixed(2)} over ${data.regions} regions, index ${index.skew.toFixed(2)} over ${index.regions} regions`);
  return { data: data.skew, index: index.skew, dataRegions: data.regions, indexRegions: index.regions };
}

/** Split points of an unsalted index table: quantiles of its distinct (tag, value) prefixes behind the salt byte 0. */
export function unsaltedIndexSplits(ids: number, regions: number): Buffer[] {
  const prefixes = new Set<string>();
  for (let r = 0; r < ids; r++) {
    prefixes.add(`site\u0000site-${r % 7}\u0000`);
    prefixes.add(`rack\u0000rack-${r % TWO_TAGS.racks}\u0000`);
  }
  return planIdPrefixSplits([...prefixes], regions).map((s) => Buffer.concat([Buffer.from([0x00]), s]));
}
