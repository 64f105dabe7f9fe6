// `npm run bench:series -- --phases live`: the dashboard users open, against OpenTSDB 2.4.1 on the same
// HBase, while both sides ingest. Both hold a day of history (the generator's Zipf ids, site = rank
// mod 7) and are fed `rate` events a second with ts = now for the whole phase (live-feed.ts); the
// TSD runs as in production (SNAPPY + FAST_DIFF families, its row compaction on, the history's hours
// compacted before the reads), our service with the shipped rollup settings (grace, settle, interval).
// A Grafana-shaped dashboard (live-panels.ts), every range ending now, is refreshed every `refreshMs`
// on each side in turn (which side goes first alternates; a refresh sends its panels six at a time,
// as a browser does) for `minutes`; p50 / p99 per panel and side. Every `checkEveryMs` each panel is
// asked of both sides over the same closed range (ending a second before the check, once both have
// acknowledged every event sent) and the answers compared (scripts/lib/compat/compare.ts). Ours runs
// as compose and k8s run it: an ingest process and a query process (`service.role`), each with the heap
// flags they ship with unless `--live-heap default`; the ingest
// process is watched throughout (live-watch.ts). Then, separately, the heaviest query the limits
// allow is sent to the query process for `heavySeconds` while the ingest process is watched.
import { addPhases, newAcc, phasesP50, push, sideFigures, type SideAcc, type SideFigures } from './live-acc.ts';

export type { SideFigures } from './live-acc.ts';
import { QUERY_NODE_OPTIONS, SERVICE_NODE_OPTIONS } from '../../../src/runtime/index.ts';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateEvents } from '../../../src/demo/index.ts';
import { compareAnswers } from '../compat/compare.ts';
import { putPoints } from '../opentsdb/io.ts';
import { countPoints, toOpenTsdbPoint, tsdTables } from '../opentsdb/plan.ts';
import { dropTsdTables, productionTsd } from '../opentsdb/tsd.ts';
import type { StackEndpoints } from '../stack/config.ts';
import { livePanels, panelBody, type Panel } from './live-panels.ts';
import { startFeed, type LiveFeed } from './live-feed.ts';
import { watchIngest, type WatchFigures } from './live-watch.ts';
import { produceAll } from './service.ts';
import { createOurStack, planOf, rssSampler, startOurService, timedFetch, waitUntil, type OurService } from './series-service.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const METRICS = ['temp', 'hum', 'load'] as const;

/** Our service's settings in the live phase beyond the bench's: the shipped rollup timing and catalog reread. */
export const SHIPPED = ['rollup.graceMs=300000', 'rollup.markerSettleMs=120000', 'rollup.intervalMs=60000', 'series.catalogRefreshMs=30000'];

export interface LiveOptions {
  readonly ep: StackEndpoints;
  readonly run: string;
  readonly historyEvents: number;
  readonly ids: number;
  readonly rate: number;
  readonly minutes: number;
  readonly refreshMs: number;
  readonly checkEveryMs: number;
  readonly heavySeconds: number;
  readonly buckets: number;
  /** settings of our query-serving process beyond the shipped ones */
  readonly sets: readonly string[];
  /** `shipped`: each role with the heap flags compose and k8s give it (src/runtime/node-options.ts); `default`: V8's */
  readonly heap: 'shipped' | 'default';
  /**
   * A development aid, not a measurement: after the warm-up, keep both sides fed and running while
   * this file exists (it is created), restart our query process whenever `<hold>.restart` appears and
   * our ingest process whenever `<hold>.ingest` does (each is removed; either may name a CPU profile
   * directory, or hold node / V8 flags, `--…`, to run that process with instead of its shipped heap flags), then
   * clean up without measuring.
   */
  readonly hold?: string | undefined;
  readonly say: (m: string) => void;
}

export interface PanelFigures {
  readonly panel: string;
  /** p50 / p99 over every request (one not answered 200 at the time it took), points per answer, answers other than 200 by status */
  readonly tsd: SideFigures;
  readonly ours: SideFigures;
  readonly oursPlans: readonly string[];
  /** ours: the median ms of each phase its Server-Timing names (catalog, lookup, recall, read, compute), and of the rest (`other`: before the handler, the render, the transfer) */
  readonly oursPhasesP50: Readonly<Record<string, number>>;
  /** answer checks over the same closed range: how many, and those whose answers differed (with the first difference) */
  readonly checks: number;
  readonly differing: readonly string[];
}

export interface LiveFigures {
  readonly historyEvents: number;
  readonly ids: number;
  readonly rate: number;
  readonly minutes: number;
  readonly refreshMs: number;
  readonly buckets: number;
  readonly liveEventsSent: number;
  readonly feedLateTicks: number;
  readonly refreshes: number;
  readonly panels: readonly PanelFigures[];
  readonly ingestDuringDashboards: WatchFigures;
  /** our query process's highest VmRSS while it served the dashboards (bytes) */
  readonly queryPeakRssBytes: number;
  /** our query process's catalog rereads during the dashboards (tsingest_series_catalog_rereads_total): scans, and those its generation spared */
  readonly oursCatalogRereads: { readonly scanned: number; readonly journal: number; readonly unchanged: number };
  readonly heavy: { readonly query: string; readonly sent: number; readonly statuses: Readonly<Record<string, number>>; readonly ingest: WatchFigures };
  readonly sets: readonly string[];
}

/** Runs `fns` at most `n` at a time. */
async function limited<T>(n: number, fns: readonly (() => Promise<T>)[]): Promise<T[]> {
  const out: T[] = new Array<T>(fns.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, fns.length) }, async () => {
      while (next < fns.length) {
        const i = next++;
        out[i] = await (fns[i] as () => Promise<T>)();
      }
    }),
  );
  return out;
}

/**
 * One refresh of the dashboard on one side: every panel, six at a time, ending now. A panel that is
 * not answered 200 counts at the time it took (a 408 at the deadline) and is tallied by status.
 */
async function refresh(
  to: { readonly side: string; readonly url: string; readonly acc: SideAcc | undefined },
  panels: readonly Panel[],
  say: (m: string) => void,
): Promise<void> {
  const { side, url, acc } = to;
  await limited(
    6,
    panels.map((p) => async () => {
      const r = await timedFetch(`${url}/api/query`, { body: panelBody(p, Date.now()) });
      if (acc === undefined) return;
      push(acc.ms, p.name, r.ms);
      if (r.status !== 200) {
        say(`[live] ${side} ${p.name}: ${r.status} after ${r.ms.toFixed(0)} ms: ${JSON.stringify(r.body).slice(0, 200)}`);
        const byStatus = acc.failed.get(p.name) ?? acc.failed.set(p.name, new Map()).get(p.name);
        byStatus?.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
        return;
      }
      acc.points.set(p.name, (acc.points.get(p.name) ?? 0) + countPoints(r.body));
      if (r.plan !== null) (acc.plans.get(p.name) ?? acc.plans.set(p.name, new Set()).get(p.name))?.add(r.plan);
      addPhases(acc, p.name, r);
    }),
  );
}

/**
 * Asks every panel of both sides over the same range with the feed paused: a range's last bucket
 * takes in points after its end (up to the next bucket boundary, as OpenTSDB scans), so two answers
 * compare only over the same points. The feed pauses, both sides acknowledge every event sent, then
 * each panel is asked of both, ending at the same instant; returns the first difference per panel.
 */
async function checkAnswers(o: {
  tsdUrl: string;
  oursUrl: string;
  ingest: OurService;
  feed: LiveFeed;
  history: number;
  panels: readonly Panel[];
}): Promise<Map<string, string | null>> {
  o.feed.pause();
  try {
    await o.feed.settled();
    const target = o.history + o.feed.sent;
    await waitUntil('our ingest to write every event sent', 120_000, async () => (await o.ingest.processed()) >= target, { everyMs: 200 });
    const end = Date.now();
    const out = new Map<string, string | null>();
    for (const p of o.panels) {
      const body = panelBody(p, end);
      const [a, b] = [await timedFetch(`${o.tsdUrl}/api/query`, { body }), await timedFetch(`${o.oursUrl}/api/query`, { body })];
      if (countPoints(a.body) === 0) throw new Error(`answer check ${p.name}: the TSD answered no points: nothing compared`);
      const d = compareAnswers(p.name, { status: a.status, body: a.body }, { status: b.status, body: b.body });
      out.set(p.name, d.length === 0 ? null : `${d[0]?.kind}: ${d[0]?.detail ?? ''}`.slice(0, 300));
    }
    return out;
  } finally {
    o.feed.resume();
  }
}

export async function livePhase(o: LiveOptions): Promise<LiveFigures> {
  const { say } = o;
  const stack = await createOurStack(o.ep, o.run, { buckets: o.buckets, partitions: 8 }, say);
  const tables = tsdTables(o.run);
  const work = mkdtempSync(join(tmpdir(), 'tsi-bench-live-'));
  const stops: (() => Promise<unknown>)[] = [];
  try {
    // the TSD as a production create_table.sh and opentsdb.conf make it: SNAPPY + FAST_DIFF, row compaction on
    const tsd = await productionTsd({ admin: stack.admin, workDir: work, zkQuorum: o.ep.zkQuorum, tables, buckets: o.buckets, say });
    stops.push(() => tsd.stop());
    // two processes, as compose and k8s run them: ingest (consume, write, rollups) and query (the reads)
    const heapOf = (flags: string): NodeJS.ProcessEnv => ({ ...process.env, NODE_OPTIONS: o.heap === 'shipped' ? flags : '' });
    // a held restart's file: a CPU profile directory, or V8 flags to run with
    const restartAs = (file: string): { profDir?: string; flags?: string } => {
      const said = readFileSync(file, 'utf8').trim();
      rmSync(file);
      return said === '' ? {} : said.startsWith('--') ? { flags: said } : { profDir: said };
    };
    const startIngest = (r: { profDir?: string; flags?: string } = {}): Promise<OurService> =>
      startOurService(stack, `${o.run}-g`, say, {
        extra: [...SHIPPED, 'service.role=ingest'],
        cpuProfDir: r.profDir,
        env: r.flags === undefined ? heapOf(SERVICE_NODE_OPTIONS) : { ...process.env, NODE_OPTIONS: '' },
        nodeFlags: r.flags?.split(/\s+/),
      });
    let ingest = await startIngest();
    stops.push(() => ingest.stop());
    const startQuery = (r: { profDir?: string; flags?: string } = {}): Promise<OurService> =>
      startOurService(stack, `${o.run}-g`, say, {
        extra: [...SHIPPED, 'service.role=query', ...o.sets],
        cpuProfDir: r.profDir,
        env: r.flags === undefined ? heapOf(QUERY_NODE_OPTIONS) : { ...process.env, NODE_OPTIONS: '' },
        nodeFlags: r.flags?.split(/\s+/),
      });
    let ours = await startQuery();
    stops.push(() => ours.stop());
    // live traffic from now on; the history is the day before
    const t0 = Date.now();
    const feed = await startFeed({ kafka: stack.kafka, topic: stack.names.topic, tsdUrl: tsd.url, rate: o.rate, ids: o.ids, seed: 7 });
    stops.push(() => feed.stop());
    const gen = { count: o.historyEvents, ids: o.ids, startTs: t0 - DAY, stepMs: Math.floor(DAY / o.historyEvents), seed: 42 };
    say(
      `[live] ${o.historyEvents} events of history over the day before ${new Date(t0).toISOString()}, ${o.ids} ids; live feed ${o.rate} events/s to both sides`,
    );
    const [produced, put] = await Promise.all([
      produceAll(stack.kafka, stack.names.topic, gen),
      putPoints(
        tsd.url,
        (function* () {
          for (const e of generateEvents(gen)) yield toOpenTsdbPoint(e);
        })(),
        500,
        4,
      ),
    ]);
    say(`[live] history produced to Kafka in ${produced.seconds.toFixed(0)} s, put to the TSD in ${put.seconds.toFixed(0)} s`);
    await waitUntil('our ingest to write the history', 1_800_000, async () => (await ingest.processed()) >= o.historyEvents, { everyMs: 1000 });
    // the history's closed hours summarised (ours); its hours compacted (the TSD: a full-range read per metric compacts what it reads)
    const lastClosed = Math.floor((Date.now() - 300_000) / HOUR) * HOUR - HOUR;
    for (const metric of METRICS) {
      const q = { start: t0 - DAY, end: lastClosed - 1, queries: [{ aggregator: 'avg', metric, downsample: '1h-avg' }] };
      const s = await waitUntil(`our rollups of ${metric}'s closed hours`, 1_800_000, async () => /;raw-buckets=0(;|$)/.test(await planOf(ours.url, q)), {
        everyMs: 5000,
        errors: 'throw',
      });
      say(`[live] ${metric}: every closed hour summarised (${s.toFixed(0)} s)`);
      for (let i = 0; i < 2; i++) await timedFetch(`${tsd.url}/api/query?start=${t0 - DAY}&end=${lastClosed}&m=sum:${metric}`, {}, 600_000);
    }
    const panels = livePanels({
      metric: 'temp',
      site: 'site-1',
      busiest: ['sensor-00000', 'sensor-00001', 'sensor-00002', 'sensor-00003', 'sensor-00004'],
      oneId: 'sensor-00042',
    });
    for (let w = 0; w < 2; w++) {
      await refresh({ side: 'tsd', url: tsd.url, acc: undefined }, panels, say);
      await refresh({ side: 'ours', url: ours.url, acc: undefined }, panels, say);
    }
    if (o.hold !== undefined) {
      writeFileSync(o.hold, `TSD ${tsd.url}\nours ${ours.url}\n`);
      say(
        `[live] holding while ${o.hold} exists (touch ${o.hold}.restart to restart our query process, ${o.hold}.ingest our ingest process, ${o.hold}.pause to pause the feed): TSD ${tsd.url}, ours ${ours.url}`,
      );
      while (existsSync(o.hold)) {
        await new Promise((r) => setTimeout(r, 1000));
        // a failed write stops the feed (its points would differ between the sides): say so, do not hold on without it
        if (feed.failure !== undefined) throw feed.failure instanceof Error ? feed.failure : new Error('the live feed failed');
        if (existsSync(`${o.hold}.pause`)) feed.pause();
        else feed.resume();
        if (existsSync(`${o.hold}.ingest`)) {
          // the same for our ingest process
          const as = restartAs(`${o.hold}.ingest`);
          await ingest.stop();
          ingest = await startIngest(as);
          say(`[live] ingest restarted: ${ingest.url}`);
        }
        if (!existsSync(`${o.hold}.restart`)) continue;
        // the file may name a directory (the restarted service writes a CPU profile there when it stops) or V8 flags
        const as = restartAs(`${o.hold}.restart`);
        await ours.stop();
        ours = await startQuery(as);
        writeFileSync(o.hold, `TSD ${tsd.url}\nours ${ours.url}\n`);
        say(`[live] ours restarted: ${ours.url}`);
      }
      throw new Error('held, not measured');
    }
    say(`[live] dashboards warmed up; refreshing every ${o.refreshMs / 1000} s for ${o.minutes} min`);
    const tsdAcc = newAcc();
    const ourAcc = newAcc();
    const checks = new Map<string, { n: number; differing: string[] }>(panels.map((p) => [p.name, { n: 0, differing: [] }]));
    const watch = watchIngest(ingest.url, ingest.pid, o.rate);
    const queryRss = rssSampler(ours.pid, 200);
    const rereadsAt0 = await catalogRereads(ours);
    const start = performance.now();
    let refreshes = 0;
    let nextCheck = start + o.checkEveryMs / 2;
    while (performance.now() - start < o.minutes * 60_000) {
      const due = start + refreshes * o.refreshMs;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const sides: [string, string, SideAcc][] = [
        ['tsd', tsd.url, tsdAcc],
        ['ours', ours.url, ourAcc],
      ];
      if (refreshes % 2 === 1) sides.reverse();
      for (const [side, url, acc] of sides) await refresh({ side, url, acc }, panels, say);
      refreshes++;
      if (feed.failure !== undefined) throw feed.failure instanceof Error ? feed.failure : new Error('the live feed failed');
      if (performance.now() >= nextCheck) {
        const found = await checkAnswers({ tsdUrl: tsd.url, oursUrl: ours.url, ingest, feed, history: o.historyEvents, panels });
        for (const [name, diff] of found) {
          const c = checks.get(name) as { n: number; differing: string[] };
          c.n++;
          if (diff !== null) c.differing.push(diff);
        }
        say(`[live] answer check ${[...found.values()].filter((d) => d === null).length} of ${found.size} panels equal`);
        nextCheck = performance.now() + o.checkEveryMs;
      }
    }
    const ingestDuringDashboards = await watch.stop();
    const queryPeakRssBytes = queryRss.stop();
    const rereadsAt1 = await catalogRereads(ours);
    const oursCatalogRereads = {
      scanned: rereadsAt1.scanned - rereadsAt0.scanned,
      journal: rereadsAt1.journal - rereadsAt0.journal,
      unchanged: rereadsAt1.unchanged - rereadsAt0.unchanged,
    };
    const figures = panels.map((p): PanelFigures => {
      const c = checks.get(p.name) as { n: number; differing: string[] };
      return {
        panel: p.name,
        tsd: sideFigures(tsdAcc, p.name),
        ours: sideFigures(ourAcc, p.name),
        oursPlans: [...(ourAcc.plans.get(p.name) ?? [])].slice(0, 8),
        oursPhasesP50: phasesP50(ourAcc, p.name),
        checks: c.n,
        differing: c.differing,
      };
    });
    for (const f of figures) {
      if (f.ours.n === 0 || f.tsd.points === 0 || f.ours.points === 0)
        throw new Error(`${f.panel}: no points read (TSD ${f.tsd.points}, ours ${f.ours.points}): nothing was measured`);
      say(
        `[live] ${f.panel}: TSD p50/p99 ${f.tsd.p50.toFixed(0)} / ${f.tsd.p99.toFixed(0)} ms, ours ${f.ours.p50.toFixed(0)} / ${f.ours.p99.toFixed(0)} ms (${(f.ours.p50 / f.tsd.p50).toFixed(2)}×); not 200: TSD ${JSON.stringify(f.tsd.failed)}, ours ${JSON.stringify(f.ours.failed)}; answers equal in ${f.checks - f.differing.length} of ${f.checks} checks; ours by phase (p50 ms) ${JSON.stringify(f.oursPhasesP50)}; plans ${f.oursPlans.slice(0, 2).join(' | ')}`,
      );
    }
    say(
      `[live] our ingest during the dashboards: ${JSON.stringify(ingestDuringDashboards)}; our query process's peak RSS ${(queryPeakRssBytes / 2 ** 20).toFixed(0)} MiB; its catalog rereads ${JSON.stringify(oursCatalogRereads)}`,
    );
    // separately: the heaviest query the limits allow, at our query process, while ingest runs
    const heavy = await heavyPhase({ queryUrl: ours.url, ingest, seconds: o.heavySeconds, rate: o.rate, say });
    const liveEventsSent = feed.sent;
    await feed.stop();
    return {
      historyEvents: o.historyEvents,
      ids: o.ids,
      rate: o.rate,
      minutes: o.minutes,
      refreshMs: o.refreshMs,
      buckets: o.buckets,
      liveEventsSent,
      feedLateTicks: feed.lateTicks,
      refreshes,
      panels: figures,
      ingestDuringDashboards,
      queryPeakRssBytes,
      oursCatalogRereads,
      heavy,
      sets: o.sets,
    };
  } finally {
    for (const s of stops.reverse()) await s().catch(() => undefined);
    await dropTsdTables(stack.rest, tables, say);
    await stack.drop();
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The heaviest query the limits allow, two at a time, for `seconds`, while the ingest process is
 * watched: every point of every metric of every id (`sum`, no downsampling) over the longest range
 * ending now that series.maxPoints lets through (a day, else halved until it answers 200).
 */
async function catalogRereads(svc: OurService): Promise<{ scanned: number; journal: number; unchanged: number }> {
  const name = 'tsingest_series_catalog_rereads_total';
  const samples = await svc.child.scrape([name]);
  const of = (outcome: string): number => samples.find((x) => x.name === name && x.labels['outcome'] === outcome)?.value ?? 0;
  return { scanned: of('scanned'), journal: of('journal'), unchanged: of('unchanged') };
}

async function heavyPhase(o: { queryUrl: string; ingest: OurService; seconds: number; rate: number; say: (m: string) => void }): Promise<LiveFigures['heavy']> {
  let hours = 24;
  let query = '';
  for (; hours >= 1; hours /= 2) {
    query = `/api/query?start=${hours}h-ago&m=sum:temp&m=sum:hum&m=sum:load`;
    const r = await timedFetch(`${o.queryUrl}${query}`, {}, 600_000);
    if (r.status === 200) break;
    o.say(`[live] heavy query over ${hours} h: ${r.status} (over the limits); halving`);
  }
  const statuses: Record<string, number> = {};
  const watch = watchIngest(o.ingest.url, o.ingest.pid, o.rate);
  const until = performance.now() + o.seconds * 1000;
  let sent = 0;
  await Promise.all(
    [0, 1].map(async () => {
      while (performance.now() < until) {
        sent++;
        const r = await timedFetch(`${o.queryUrl}${query}`, {}, 600_000).catch(() => ({ status: 0 }));
        statuses[String(r.status)] = (statuses[String(r.status)] ?? 0) + 1;
      }
    }),
  );
  const ingest = await watch.stop();
  o.say(`[live] heavy query ${query} ×${sent} (${JSON.stringify(statuses)}); our ingest meanwhile: ${JSON.stringify(ingest)}`);
  return { query, sent, statuses, ingest };
}
