// `npm run bench:series`, phase `site`: every point of one site over a day, raw (`none`, all ids of
// the site, three metrics) and at `1h-avg` (ours from the rollups), against OpenTSDB 2.4.1 on the
// same HBase and the same generated points (the bench's generator, generate.ts: Zipf ids, tag site =
// rank mod 7; spread over one whole UTC day). Ours drains the events from Kafka (catalog, rollup
// markers) and the rollup job summarises every hour; the TSD gets the same points through /api/put.
// Both sides' tables are flushed and major-compacted before the reads. Reads alternate between the
// sides (which goes first alternates too); CPU per read from /proc of the TSD, HBase, the REST
// gateway and our service; our service's VmRSS sampled every 20 ms while it answers the raw reads.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateEvents } from '../../../src/demo/index.ts';
import { cpuMs } from './child.ts';
import { percentile } from './load.ts';
import { produceAll } from './service.ts';
import { compareAnswers } from '../compat/compare.ts';
import type { StackEndpoints } from '../stack/config.ts';
import { putPoints } from '../opentsdb/io.ts';
import { countPoints, toOpenTsdbPoint, tsdTables } from '../opentsdb/plan.ts';
import { dropTsdTables, tsdBeside } from '../opentsdb/tsd.ts';
import { createOurStack, rssSampler, startOurService, timedFetch, waitAllSizes, waitRollups, waitUntil, type OurService } from './series-service.ts';
import { profileSummary, type ProfileSummary } from './series-profile.ts';
import { stackLayout } from '../stack/config.ts';

const DAY = 86_400_000;
const METRICS = ['temp', 'hum', 'load'] as const;

export interface SideStats {
  readonly p50: number;
  readonly p99: number;
  readonly n: number;
  readonly points: number;
  readonly cpuMsPerRead: Readonly<Record<string, number>>;
}
/**
 * How our service answered a read, from its X-Tsingest-Plan: `memo` every sub-query's answer given
 * again by the answer memo, `cached` windows from the window cache (computed), `read` from HBase.
 */
export type AnswerClass = 'memo' | 'cached' | 'read';

export function answerClass(plan: string | null): AnswerClass {
  const parts = (plan ?? '').split(', ');
  if (parts.every((p) => p.endsWith(';answer=memo'))) return 'memo';
  if (parts.some((p) => /;cached=[1-9]/.test(p))) return 'cached';
  return 'read';
}

export interface SitePair {
  readonly query: string;
  readonly tsd: SideStats;
  readonly ours: SideStats;
  /** our timed reads by how they were answered: count, p50, p99 */
  readonly oursByAnswer: Readonly<Partial<Record<AnswerClass, { n: number; p50: number; p99: number }>>>;
  readonly oursPlans: readonly string[];
  readonly differences: number;
}
export interface SiteFigures {
  readonly events: number;
  readonly ids: number;
  readonly day: string;
  readonly buckets: number;
  readonly oursDrainSeconds: number;
  readonly oursRollupWaitSeconds: number;
  readonly tsdPutSeconds: number;
  readonly compactSeconds: number;
  readonly raw: SitePair;
  readonly hourly: SitePair;
  /** 1h-max of the sites whose 1h-avg was just read: the same windows, another computation */
  readonly hourlyMax: SitePair;
  /** settings our reading service ran with beyond the shipped ones (--set) */
  readonly sets: readonly string[];
  /** our service's VmRSS before the raw reads and the highest sampled while it answered them (bytes) */
  readonly rss: { readonly before: number; readonly peakDuringRaw: number; readonly peakDuringHourly: number };
  readonly profile?: ProfileSummary;
}

export interface SiteOptions {
  readonly ep: StackEndpoints;
  readonly run: string;
  readonly events: number;
  readonly ids: number;
  readonly reps: number;
  readonly buckets: number;
  readonly hbasePid: number | undefined;
  readonly restPid: number | undefined;
  /** write a CPU profile of the service answering the reads here */
  readonly profileDir: string | undefined;
  /** settings of our service while it answers the reads */
  readonly sets: readonly string[];
  readonly say: (m: string) => void;
}

function path(agg: string, site: string, from: number, to: number): string {
  const ms = METRICS.map((m) => `m=${encodeURIComponent(`${agg}:${m}{site=${site}}`)}`).join('&');
  return `/api/query?start=${from}&end=${to}&ms=true&${ms}`;
}

const stats = (xs: number[]): { p50: number; p99: number } => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p99: percentile(s, 99) };
};

function cpuOf(pids: Readonly<Record<string, number | undefined>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, pid] of Object.entries(pids)) {
    if (pid === undefined) continue;
    try {
      out[k] = cpuMs(pid);
    } catch {
      out[k] = Number.NaN;
    }
  }
  return out;
}

/** `reps` reads per side after 2 warm-ups each, alternating sides (and which goes first). */
async function compareReads(o: {
  name: string;
  tsdUrl: string;
  ours: OurService;
  reps: number;
  pathOf: (i: number) => string;
  tsdPids: Record<string, number | undefined>;
  ourPids: Record<string, number | undefined>;
  say: (m: string) => void;
}): Promise<SitePair> {
  const t = { ms: [] as number[], points: 0, cpu: {} as Record<string, number> };
  const u = { ms: [] as number[], points: 0, cpu: {} as Record<string, number> };
  const plans = new Set<string>();
  const byAnswer: Partial<Record<AnswerClass, number[]>> = {};
  let differences = 0;
  const one = async (side: 'tsd' | 'ours', i: number, timed: boolean): Promise<{ status: number; body: unknown }> => {
    const pids = side === 'tsd' ? o.tsdPids : o.ourPids;
    const acc = side === 'tsd' ? t : u;
    const c0 = cpuOf(pids);
    const r = await timedFetch(`${side === 'tsd' ? o.tsdUrl : o.ours.url}${o.pathOf(i)}`);
    const c1 = cpuOf(pids);
    if (r.status !== 200) throw new Error(`${o.name}: ${side} answered ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
    if (side === 'ours' && r.plan !== null) plans.add(r.plan);
    if (timed) {
      acc.ms.push(r.ms);
      if (side === 'ours') (byAnswer[answerClass(r.plan)] ??= []).push(r.ms);
      acc.points += countPoints(r.body);
      for (const k of Object.keys(c0)) acc.cpu[k] = (acc.cpu[k] ?? 0) + ((c1[k] ?? 0) - (c0[k] ?? 0));
    }
    return { status: r.status, body: r.body };
  };
  for (let w = 0; w < 2; w++) {
    const a = await one('tsd', w, false);
    const b = await one('ours', w, false);
    if (w === 0) {
      differences = compareAnswers(o.name, a, b).length;
      o.say(
        `[site] ${o.name}: ${countPoints(a.body)} points from the TSD, ${countPoints(b.body)} from ours; ${differences} difference(s) by the compat comparison`,
      );
    }
  }
  for (let i = 0; i < o.reps; i++) {
    const order: ('tsd' | 'ours')[] = i % 2 === 0 ? ['tsd', 'ours'] : ['ours', 'tsd'];
    for (const side of order) await one(side, i, true);
  }
  const side = (acc: typeof t): SideStats => ({
    ...stats(acc.ms),
    n: acc.ms.length,
    points: acc.points / Math.max(1, acc.ms.length),
    cpuMsPerRead: Object.fromEntries(Object.entries(acc.cpu).map(([k, v]) => [k, v / Math.max(1, acc.ms.length)])),
  });
  // A figure measured on nothing is no figure: both sides must have answered points.
  if (u.ms.length === 0 || t.points === 0 || u.points === 0)
    throw new Error(`${o.name}: no points read (TSD ${t.points}, ours ${u.points} over ${u.ms.length} reads): nothing was measured`);
  const oursByAnswer = Object.fromEntries(Object.entries(byAnswer).map(([k, ms]) => [k, { n: ms.length, ...stats(ms) }]));
  const pair = { query: o.pathOf(0), tsd: side(t), ours: side(u), oursByAnswer, oursPlans: [...plans], differences };
  o.say(
    `[site] ${o.name}: TSD p50/p99 ${pair.tsd.p50.toFixed(1)} / ${pair.tsd.p99.toFixed(1)} ms, ours ${pair.ours.p50.toFixed(1)} / ${pair.ours.p99.toFixed(1)} ms (${pair.ours.points.toFixed(0)} points; plans ${pair.oursPlans.join(' | ')})`,
  );
  o.say(
    `[site] ${o.name}: ours by answer: ${Object.entries(oursByAnswer)
      .map(([k, v]) => `${k} ${v.n}× p50 ${v.p50.toFixed(1)} / p99 ${v.p99.toFixed(1)} ms`)
      .join(', ')}`,
  );
  o.say(`[site] ${o.name}: CPU ms per read: TSD side ${JSON.stringify(pair.tsd.cpuMsPerRead)}, ours ${JSON.stringify(pair.ours.cpuMsPerRead)}`);
  return pair;
}

export async function sitePhase(o: SiteOptions): Promise<SiteFigures> {
  const { say } = o;
  const dayStart = Math.floor((Date.now() - 2 * DAY) / DAY) * DAY;
  const stepMs = Math.floor(DAY / o.events);
  const gen = { count: o.events, ids: o.ids, startTs: dayStart, stepMs, seed: 42 };
  const from = dayStart;
  const to = dayStart + DAY - 1;
  say(`[site] ${o.events} events, ${o.ids} ids (Zipf 1.1), one every ${stepMs} ms over ${new Date(dayStart).toISOString().slice(0, 10)}`);
  const stack = await createOurStack(o.ep, o.run, { buckets: o.buckets, partitions: 8 }, say);
  const tables = tsdTables(o.run);
  const work = mkdtempSync(join(tmpdir(), 'tsi-bench-series-'));
  let svc: OurService | undefined;
  let stopTsd: (() => Promise<void>) | undefined;
  try {
    // ours: produce, drain, wait for the rollups
    const produced = await produceAll(stack.kafka, stack.names.topic, gen);
    say(`[site] produced ${o.events} events in ${produced.seconds.toFixed(1)} s`);
    const t0 = performance.now();
    svc = await startOurService(stack, `${o.run}-g1`, say);
    const s1 = svc;
    await waitUntil(`${o.events} events written`, 3_600_000, async () => (await s1.processed()) >= o.events, { everyMs: 250 });
    const oursDrainSeconds = (performance.now() - t0) / 1000;
    say(`[site] ours drained ${o.events} events in ${oursDrainSeconds.toFixed(1)} s (spawn → last written)`);
    let oursRollupWaitSeconds = 0;
    for (const metric of METRICS) {
      oursRollupWaitSeconds += await waitRollups(s1.url, { start: from, end: to, queries: [{ aggregator: 'avg', metric, downsample: '1h-avg' }] }, 3_600_000);
    }
    oursRollupWaitSeconds += await waitAllSizes(s1, 3_600_000);
    say(`[site] rollups summarised every hour and day ${oursRollupWaitSeconds.toFixed(0)} s after the drain`);
    await s1.stop();
    svc = undefined;
    // the TSD: same points
    const tsd = await tsdBeside({
      admin: stack.admin,
      cacheDir: stackLayout().cacheDir,
      workDir: work,
      zkQuorum: o.ep.zkQuorum,
      tables,
      buckets: o.buckets,
      say,
    });
    stopTsd = () => tsd.stop();
    const put = await putPoints(
      tsd.url,
      (function* () {
        for (const e of generateEvents(gen)) yield toOpenTsdbPoint(e);
      })(),
      500,
      8,
    );
    say(`[site] TSD: put ${put.points} points in ${put.seconds.toFixed(1)} s`);
    const c0 = performance.now();
    for (const t of [tables.data, stack.names.data, stack.names.rollup]) await stack.admin.compact(t);
    const compactSeconds = (performance.now() - c0) / 1000;
    say(`[site] ${tables.data}, ${stack.names.data}, ${stack.names.rollup} flushed and major-compacted in ${compactSeconds.toFixed(1)} s`);
    // ours again, fresh (only reads from here: its profile and RSS are the reads')
    let profDir: string | undefined;
    if (o.profileDir !== undefined) {
      profDir = join(o.profileDir, `site-${o.run}`);
      mkdirSync(profDir, { recursive: true });
    }
    // the shipped catalog reread interval (30 s) for the reads: every 2 s (the drain's setting, so
    // the catalog follows the drain) rereads all ~30,000 series rows while the reads run. The
    // deadline raised from the shipped 30 s: on a loaded machine a raw site-day read took longer
    // (408, run of 16:30 UTC); the benchmark measures it rather than stopping there
    svc = await startOurService(stack, `${o.run}-g1`, say, {
      extra: ['series.catalogRefreshMs=30000', 'series.deadlineMs=600000', ...o.sets],
      cpuProfDir: profDir,
    });
    const s2 = svc;
    await waitUntil('the catalog read', 60_000, async () => {
      const b = (await timedFetch(`${s2.url}/api/suggest?type=metrics&q=&max=10`)).body;
      return Array.isArray(b) && b.length === METRICS.length;
    });
    const tsdPids = { tsd: tsd.pid, hbase: o.hbasePid };
    const ourPids = { service: s2.pid, rest: o.restPid, hbase: o.hbasePid };
    const rssBefore = rssSampler(s2.pid).stop();
    const rawRss = rssSampler(s2.pid);
    const raw = await compareReads({
      name: 'site-day-raw',
      tsdUrl: tsd.url,
      ours: s2,
      reps: o.reps,
      pathOf: (i) => path('none', `site-${i % 7}`, from, to),
      tsdPids,
      ourPids,
      say,
    });
    const peakDuringRaw = rawRss.stop();
    const hourlyRss = rssSampler(s2.pid);
    const hourly = await compareReads({
      name: 'site-day-1h-avg',
      tsdUrl: tsd.url,
      ours: s2,
      reps: o.reps,
      pathOf: (i) => path('avg:1h-avg', `site-${i % 7}`, from, to),
      tsdPids,
      ourPids,
      say,
    });
    // the same sites' windows again, another aggregation: not a kept answer (the window cache's case)
    const hourlyMax = await compareReads({
      name: 'site-day-1h-max',
      tsdUrl: tsd.url,
      ours: s2,
      reps: 7,
      pathOf: (i) => path('max:1h-max', `site-${(i + 2) % 7}`, from, to),
      tsdPids,
      ourPids,
      say,
    });
    const peakDuringHourly = hourlyRss.stop();
    say(
      `[site] our service's VmRSS: ${(rssBefore / 2 ** 20).toFixed(0)} MiB before the reads, peak ${(peakDuringRaw / 2 ** 20).toFixed(0)} MiB during the raw reads, ${(peakDuringHourly / 2 ** 20).toFixed(0)} MiB during the 1h-avg reads`,
    );
    await s2.stop();
    svc = undefined;
    const profile = profDir === undefined ? undefined : profileSummary(profDir);
    return {
      events: o.events,
      ids: o.ids,
      day: new Date(dayStart).toISOString().slice(0, 10),
      buckets: o.buckets,
      oursDrainSeconds,
      oursRollupWaitSeconds,
      tsdPutSeconds: put.seconds,
      compactSeconds,
      raw,
      hourly,
      hourlyMax,
      sets: o.sets,
      rss: { before: rssBefore, peakDuringRaw, peakDuringHourly },
      ...(profile === undefined ? {} : { profile }),
    };
  } finally {
    if (svc !== undefined) await svc.stop().catch(() => undefined);
    if (stopTsd !== undefined) await stopTsd();
    await dropTsdTables(stack.rest, tables, say);
    await stack.drop();
    rmSync(work, { recursive: true, force: true });
  }
}
