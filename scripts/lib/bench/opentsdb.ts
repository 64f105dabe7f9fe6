// The `opentsdb` phase of `npm run bench`: OpenTSDB 2.4.1's TSD on the same local HBase, fed the
// same generated points through /api/put (sync=true, batches, several in flight): a cold pass (every
// tag value new: UIDs assigned) and a warm pass (the same series a day earlier). Points/s and CPU
// per 1,000 points of the TSD and of the HBase process (/proc). Then reads, the TSD's /api/query
// against our HTTP read API on the same points (our tables loaded with the ingest's row builder,
// index on `site`): one id's day for one metric, and every point of one site over that day.
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyTables, type TableAdminPort } from '../../../src/admin/index.ts';
import { generateEvents, prng } from '../../../src/demo/index.ts';
import type { HBaseRestClient } from '../../../src/hbase/index.ts';
import { createReadApi } from '../../../src/reads-v1/index.ts';
import { createLogger, type Config } from '../../../src/runtime/index.ts';
import { keyspaceOf, tablesOf } from '../../../src/service/index.ts';
import { cpuMs } from './child.ts';
import { loadEvents, percentile, timeRuns } from './load.ts';
import type { GenParams } from './rows.ts';
import { putPoints, queryPoints, readAllPages } from '../opentsdb/io.ts';
import { cpuMsPer1000, queryPath, toOpenTsdbPoint, tsdTables } from '../opentsdb/plan.ts';
import { createTsdTables, dropTsdTables, startTsd } from '../opentsdb/tsd.ts';
import { projectRoot } from '../stack/config.ts';

const DAY = 86_400_000;
const METRICS = ['temp', 'hum', 'load'];
const IDLE_MS = 5000;

export interface PassFigures {
  readonly points: number;
  readonly seconds: number;
  readonly pointsPerSec: number;
  readonly tsdCpuMsPer1000: number;
  readonly hbaseCpuMsPer1000: number;
}
export interface ReadLatency {
  readonly p50: number;
  readonly p99: number;
  readonly n: number;
  readonly meanItems: number;
  /** CPU ms per read of the processes involved (warm-up reads included): tsd, hbase, rest, bench (this process: our read API and both HTTP clients) */
  readonly cpuMsPerRead: Readonly<Record<string, number>>;
}
export interface ReadPair {
  readonly tsd: ReadLatency;
  readonly ours: ReadLatency;
}
export interface OpenTsdbFigures {
  readonly version: string;
  readonly points: number;
  readonly batch: number;
  readonly inFlight: number;
  readonly buckets: number;
  readonly cold: PassFigures;
  readonly warm: PassFigures;
  /** the HBase process's CPU ms per second over 5 s before the cold pass, nothing of this run writing (other users of the stack) */
  readonly hbaseIdleCpuMsPerSec: number;
  readonly load: { readonly events: number; readonly dataRows: number; readonly indexRows: number; readonly seconds: number };
  /** one id (Zipf ranks 20–99), one metric (temp), one day */
  readonly idDay: ReadPair;
  /** every point of site-k (k cycling 0..6) over the same day, all metrics */
  readonly bySite: ReadPair;
}

export interface OpenTsdbContext {
  readonly rest: HBaseRestClient;
  readonly admin: TableAdminPort;
  readonly run: string;
  /** our configuration for the read comparison (tables named for this run, index.tags ["site"]) */
  readonly ourConfig: Config;
  readonly zkQuorum: string;
  readonly cacheDir: string;
  readonly hbasePid: number;
  /** the REST gateway's pid ({ rest: pid }), when known: its CPU per read on our side */
  readonly restPid: { readonly rest?: number };
  readonly port: number;
  readonly gen: GenParams;
  readonly buckets: number;
  readonly batch: number;
  readonly inFlight: number;
  readonly queries: number;
  readonly keep: boolean;
  readonly say: (m: string) => void;
}

function pomVersion(): string {
  const pom = readFileSync(join(projectRoot, 'deploy/local/opentsdb/pom.xml'), 'utf8');
  return /<opentsdb\.version>([^<]+)</.exec(pom)?.[1] ?? '?';
}

async function pass(ctx: OpenTsdbContext, url: string, tsdPid: number, shiftMs: number): Promise<PassFigures> {
  const c0 = { tsd: cpuMs(tsdPid), hbase: cpuMs(ctx.hbasePid) };
  const points = (function* () {
    for (const e of generateEvents(ctx.gen)) yield toOpenTsdbPoint(e, shiftMs);
  })();
  const r = await putPoints(url, points, ctx.batch, ctx.inFlight);
  const c1 = { tsd: cpuMs(tsdPid), hbase: cpuMs(ctx.hbasePid) };
  return { ...r, tsdCpuMsPer1000: cpuMsPer1000(c0.tsd, c1.tsd, r.points), hbaseCpuMsPer1000: cpuMsPer1000(c0.hbase, c1.hbase, r.points) };
}

const WARMUP = 3;

function cpuNow(pids: Readonly<Record<string, number>>): Record<string, number> {
  const u = process.cpuUsage();
  const out: Record<string, number> = { bench: (u.user + u.system) / 1000 };
  for (const [name, pid] of Object.entries(pids)) {
    try {
      out[name] = cpuMs(pid);
    } catch {
      out[name] = Number.NaN;
    }
  }
  return out;
}

async function timed(n: number, pids: Readonly<Record<string, number>>, fn: (i: number) => Promise<number>): Promise<ReadLatency> {
  const items: number[] = [];
  const c0 = cpuNow(pids);
  const sorted = await timeRuns(n, WARMUP, async (i) => {
    items.push(await fn(i));
  });
  const c1 = cpuNow(pids);
  const cpuMsPerRead = Object.fromEntries(Object.keys(c0).map((k) => [k, ((c1[k] ?? Number.NaN) - (c0[k] ?? Number.NaN)) / (n + WARMUP)]));
  const timedItems = items.slice(WARMUP);
  return {
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    n: sorted.length,
    meanItems: timedItems.reduce((a, b) => a + b, 0) / Math.max(1, timedItems.length),
    cpuMsPerRead,
  };
}

interface ReadPlan {
  readonly from: number;
  readonly to: number;
  readonly ids: readonly string[];
}

function readPlan(gen: GenParams, n: number): ReadPlan {
  // the day around the cold pass's points (the warm pass, a day earlier, lies outside it)
  const from = gen.startTs - DAY / 2;
  const random = prng(7);
  const ids = Array.from({ length: n + 3 }, () => `sensor-${String(20 + Math.floor(random() * 80)).padStart(5, '0')}`);
  return { from, to: from + DAY, ids };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const a = server.address();
  if (a === null || typeof a === 'string') throw new Error('read API server has no port');
  return `http://127.0.0.1:${a.port}`;
}

/**
 * Before either side's reads: its tables flushed and major-compacted, and no compaction running or
 * queued (the admin tool waits), so neither side reads while HBase digests the other's writes.
 */
async function settle(ctx: OpenTsdbContext, tables: readonly string[]): Promise<void> {
  const t0 = performance.now();
  for (const t of tables) await ctx.admin.compact(t);
  ctx.say(`[opentsdb] ${tables.join(', ')} flushed and major-compacted in ${((performance.now() - t0) / 1000).toFixed(1)} s before the reads`);
}

/** Our side of the reads: the same points loaded (data + site index rows), read through our HTTP read API. */
async function ourReads(
  ctx: OpenTsdbContext,
  plan: ReadPlan,
  siteRuns: number,
): Promise<{ load: OpenTsdbFigures['load']; idDay: ReadLatency; bySite: ReadLatency }> {
  const cfg = ctx.ourConfig;
  const applied = await applyTables(cfg, ctx.admin, ctx.rest);
  if (!applied.every((a) => a.splitsVerified)) throw new Error('our tables: pre-split regions not as planned');
  const load = await loadEvents(ctx.rest, cfg, ctx.gen, { markers: false });
  ctx.say(`[opentsdb] ours: loaded ${load.dataRows} data rows + ${load.indexRows} index rows in ${load.seconds.toFixed(1)} s (for the reads)`);
  await settle(ctx, [cfg.tables.data.name, cfg.tables.index.name]);
  const api = createReadApi({ cfg, hbase: ctx.rest, keyspace: keyspaceOf(cfg), tables: tablesOf(cfg), log: createLogger({ level: 'warn' }) });
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    void api(req, res, url).then((answered) => {
      if (!answered) {
        res.writeHead(404);
        res.end();
      }
    });
  });
  const base = await listen(server);
  try {
    const win = `from=${plan.from}&to=${plan.to}&limit=${cfg.query.maxLimit}`;
    const idDay = await timed(ctx.queries, { hbase: ctx.hbasePid, ...ctx.restPid }, (i) =>
      readAllPages(base, `/api/v1/ids/${plan.ids[i] ?? ''}/events?metric=temp&${win}`),
    );
    const bySite = await timed(siteRuns, { hbase: ctx.hbasePid, ...ctx.restPid }, (i) => readAllPages(base, `/api/v1/index/site/site-${i % 7}/events?${win}`));
    return { load: { events: load.events, dataRows: load.dataRows, indexRows: load.indexRows, seconds: load.seconds }, idDay, bySite };
  } finally {
    await new Promise<void>((res) => {
      server.close(() => {
        res();
      });
      server.closeAllConnections();
    });
  }
}

export async function openTsdbPhase(ctx: OpenTsdbContext): Promise<OpenTsdbFigures> {
  const tables = tsdTables(ctx.run);
  const work = mkdtempSync(join(tmpdir(), 'tsi-opentsdb-'));
  const plan = readPlan(ctx.gen, ctx.queries);
  const siteRuns = Math.max(7, Math.floor(ctx.queries / 2));
  try {
    ctx.say(`[opentsdb] tables ${tables.data} (pre-split on ${ctx.buckets} salt buckets), ${tables.uid} (id, name), ${tables.tree}, ${tables.meta}`);
    await createTsdTables(ctx.admin, tables, ctx.buckets);
    const tsd = await startTsd({
      cacheDir: ctx.cacheDir,
      workDir: work,
      zkQuorum: ctx.zkQuorum,
      port: ctx.port,
      tables,
      buckets: ctx.buckets,
      heap: '1g',
      say: ctx.say,
    });
    let tsdSide: { cold: PassFigures; warm: PassFigures; idDay: ReadLatency; bySite: ReadLatency; version: string; hbaseIdleCpuMsPerSec: number };
    try {
      // the jar's /api/version says "BuildData" for its version; the pom names it, the TSD its revision
      const revision = await fetch(`${tsd.url}/api/version`).then(async (r) => ((await r.json()) as { short_revision?: string }).short_revision ?? '?');
      const version = `${pomVersion()} (revision ${revision})`;
      ctx.say(`[opentsdb] TSD up (pid ${tsd.pid}); cold pass: ${ctx.gen.count} points, ${ctx.batch} per /api/put, ${ctx.inFlight} in flight`);
      const idle0 = cpuMs(ctx.hbasePid);
      await new Promise((r) => setTimeout(r, IDLE_MS));
      const hbaseIdleCpuMsPerSec = ((cpuMs(ctx.hbasePid) - idle0) / IDLE_MS) * 1000;
      ctx.say(`[opentsdb] HBase process with nothing of this run writing: ${hbaseIdleCpuMsPerSec.toFixed(0)} CPU ms/s`);
      const cold = await pass(ctx, tsd.url, tsd.pid, 0);
      ctx.say(
        `[opentsdb] cold: ${Math.round(cold.pointsPerSec)} points/s; CPU per 1,000 points: TSD ${cold.tsdCpuMsPer1000.toFixed(1)} ms, HBase ${cold.hbaseCpuMsPer1000.toFixed(1)} ms`,
      );
      const warm = await pass(ctx, tsd.url, tsd.pid, -DAY);
      ctx.say(
        `[opentsdb] warm: ${Math.round(warm.pointsPerSec)} points/s; CPU per 1,000 points: TSD ${warm.tsdCpuMsPer1000.toFixed(1)} ms, HBase ${warm.hbaseCpuMsPer1000.toFixed(1)} ms`,
      );
      await settle(ctx, [tables.data]);
      const idDay = await timed(ctx.queries, { hbase: ctx.hbasePid, tsd: tsd.pid }, (i) =>
        queryPoints(tsd.url, queryPath({ aggregator: 'sum', metrics: ['temp'], filter: { id: plan.ids[i] ?? '' }, start: plan.from, end: plan.to - 1 })),
      );
      const bySite = await timed(siteRuns, { hbase: ctx.hbasePid, tsd: tsd.pid }, (i) =>
        queryPoints(tsd.url, queryPath({ aggregator: 'none', metrics: METRICS, filter: { site: `site-${i % 7}` }, start: plan.from, end: plan.to - 1 })),
      );
      ctx.say(
        `[opentsdb] TSD reads p50/p99: id day ${idDay.p50.toFixed(1)}/${idDay.p99.toFixed(1)} ms (${idDay.meanItems.toFixed(0)} points), by site ${bySite.p50.toFixed(1)}/${bySite.p99.toFixed(1)} ms (${bySite.meanItems.toFixed(0)} points)`,
      );
      tsdSide = { cold, warm, idDay, bySite, version, hbaseIdleCpuMsPerSec };
    } finally {
      await tsd.stop();
    }
    const ours = await ourReads(ctx, plan, siteRuns);
    ctx.say(
      `[opentsdb] our reads p50/p99: id day ${ours.idDay.p50.toFixed(1)}/${ours.idDay.p99.toFixed(1)} ms (${ours.idDay.meanItems.toFixed(0)} events), by site ${ours.bySite.p50.toFixed(1)}/${ours.bySite.p99.toFixed(1)} ms (${ours.bySite.meanItems.toFixed(0)} events)`,
    );
    return {
      version: tsdSide.version,
      points: ctx.gen.count,
      batch: ctx.batch,
      inFlight: ctx.inFlight,
      buckets: ctx.buckets,
      cold: tsdSide.cold,
      warm: tsdSide.warm,
      hbaseIdleCpuMsPerSec: tsdSide.hbaseIdleCpuMsPerSec,
      load: ours.load,
      idDay: { tsd: tsdSide.idDay, ours: ours.idDay },
      bySite: { tsd: tsdSide.bySite, ours: ours.bySite },
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
    if (ctx.keep) ctx.say(`--keep: leaving ${tables.data}, ${tables.uid}, ${tables.tree}, ${tables.meta} and our ${ctx.ourConfig.tables.data.name} tables`);
    else {
      await dropTsdTables(ctx.rest, tables, ctx.say);
      const t = ctx.ourConfig.tables;
      for (const name of [t.data.name, t.index.name, t.rollup.name, t.meta.name])
        await ctx.rest.deleteTable(name, { ignoreMissing: true, deadlineMs: 120_000 }).catch(() => undefined);
    }
  }
}
