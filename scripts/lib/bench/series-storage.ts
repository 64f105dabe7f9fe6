// `npm run bench:series -- --phases storage` (issue 38): bytes on disk per point, ours against OpenTSDB
// 2.4.1 on the same HBase, for each data set of storage-plan.ts (`sparse`: the bench's Zipf set;
// `dense`: N series at one point a minute over a day), each pass on fresh tables on both sides. Both
// get exactly the same points: ours through Kafka (the service with the shipped rollup settings, as
// the live phase runs it, on tables with the codec they ship with, SNAPPY here, not the bench's NONE;
// every event acknowledged, the rollup job run over every closed hour and day), the TSD through
// /api/put (tables as create_table.sh makes them with SNAPPY + FAST_DIFF, its row compaction on and
// run to completion: full-range reads, which compact the rows they read, until every
// row of `tsdb` holds one cell, counted through the REST gateway). Then both stop, every table is
// flushed and major-compacted (the admin tool's `compact`), and once every store holds one file (the
// compacted files discharged) the store files under HBase's root directory are summed per table and
// family (store-bytes.ts), with each family's settings (the admin tool's `describe`). Then ours once
// more after raw retention (storage-retention.ts): the data and index rows expired, the point blocks
// kept, the series API's answers checked against those it gave before, our tables compacted and measured.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JavaTableAdmin } from '../../../src/admin/index.ts';
import type { HBaseRestClient } from '../../../src/hbase/index.ts';
import { putPoints } from '../opentsdb/io.ts';
import { toOpenTsdbPoint, tsdTables, type OpenTsdbPoint } from '../opentsdb/plan.ts';
import { dropTsdTables, productionTsd } from '../opentsdb/tsd.ts';
import { stackLayout, type StackEndpoints } from '../stack/config.ts';
import { hbaseConfDir } from '../stack/services.ts';
import { sumOf } from './child.ts';
import { produceAll } from './service.ts';
import { SHIPPED } from './series-live.ts';
import { createOurStack, startOurService, timedFetch, waitAllSizes, waitRollups, waitUntil } from './series-service.ts';
import { compactAll, countCells, measure, type TableRoles } from './storage-measure.ts';
import { countPlan, densePlan, RAW_RETENTION_SETS, sideFigures, sparsePlan, storageTable } from './storage-plan.ts';
import type { DatasetFigures, DatasetPlan, StorageDataset, TsdCompaction } from './storage-plan.ts';
import { afterRawRetention, referenceAnswers } from './storage-retention.ts';
import { hbaseRootDir } from './store-bytes.ts';

export interface StorageOptions {
  readonly ep: StackEndpoints;
  readonly run: string;
  readonly datasets: readonly StorageDataset[];
  readonly sparseEvents: number;
  readonly sparseIds: number;
  readonly denseSeries: number;
  readonly buckets: number;
  /** called with each data set's figures as soon as they are measured (the caller saves them) */
  readonly onDataset?: (d: DatasetFigures) => void;
  readonly say: (m: string) => void;
}

export interface StorageFigures {
  readonly hbaseRootDir: string;
  readonly buckets: number;
  readonly sets: readonly string[];
  /** the settings the "after raw retention" stage applies and restarts ours with */
  readonly rawRetentionSets: readonly string[];
  readonly datasets: readonly DatasetFigures[];
}

/**
 * Our tables with the codec they ship with (`compression: auto`: the first of SNAPPY, LZ4, ZSTD, GZ the
 * cluster takes), not the NONE the bench and test tables are made with (run-sets.ts).
 */
export const SHIPPED_CODECS = (['data', 'index', 'rollup', 'meta'] as const).map((role) => `tables.${role}.compression=auto`);

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The TSD's tsd.compaction.* statistics (/api/stats), keyed by metric and tags (host left out). */
async function compactionStats(url: string): Promise<Record<string, number>> {
  const r = await timedFetch(`${url}/api/stats`);
  if (r.status !== 200 || !Array.isArray(r.body)) throw new Error(`the TSD's /api/stats answered ${r.status}`);
  const out: Record<string, number> = {};
  for (const s of r.body as { metric?: unknown; value?: unknown; tags?: Record<string, string> }[]) {
    if (typeof s.metric !== 'string' || !s.metric.startsWith('tsd.compaction')) continue;
    const tags = Object.entries(s.tags ?? {})
      .filter(([k]) => k !== 'host')
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    out[tags === '' ? s.metric : `${s.metric}{${tags}}`] = Number(s.value);
  }
  return out;
}

/**
 * The TSD's row compaction run to completion: every metric read over the whole day (a read compacts
 * the rows it scans, its writes land asynchronously), repeated until every row of `tsdb` holds one cell.
 */
async function compactTsd(o: {
  url: string;
  rest: HBaseRestClient;
  table: string;
  plan: DatasetPlan;
  say: (m: string) => void;
}): Promise<Omit<TsdCompaction, 'after'>> {
  const before = await countCells(o.rest, o.table);
  o.say(`[storage] ${o.table}: ${before.rows} rows, ${before.cells} cells once every point was stored`);
  const t0 = performance.now();
  let reads = 0;
  let after = before;
  for (let round = 1; round <= 6 && (round === 1 || after.cells > after.rows); round++) {
    for (const metric of o.plan.metrics) {
      const r = await timedFetch(`${o.url}/api/query?start=${o.plan.startTs}&end=${o.plan.endTs - 1}&m=sum:${metric}`, {}, 900_000);
      if (r.status !== 200) throw new Error(`the TSD's full-range read of ${metric} answered ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
      reads++;
    }
    await sleep(5000 * round);
    after = await countCells(o.rest, o.table);
    o.say(`[storage] ${o.table} after ${reads} full-range reads: ${after.rows} rows, ${after.cells} cells`);
  }
  const stats = await compactionStats(o.url);
  if (after.cells > after.rows) o.say(`[storage] ${o.table}: still ${after.cells - after.rows} cells more than rows after ${reads} reads`);
  return { before, afterReads: after, reads, seconds: (performance.now() - t0) / 1000, stats };
}

function tsdPoints(plan: DatasetPlan): Iterable<OpenTsdbPoint> {
  return (function* () {
    for (const e of plan.events()) {
      const p = toOpenTsdbPoint(e);
      yield plan.tsdSeconds ? { ...p, timestamp: p.timestamp / 1000 } : p;
    }
  })();
}

async function onePass(o: StorageOptions, plan: DatasetPlan, root: string): Promise<DatasetFigures> {
  const { say } = o;
  const run = `${o.run}${plan.name.slice(0, 1)}`;
  const counts = countPlan(plan);
  say(`[storage] ${plan.name}: ${counts.points} points, ${counts.series} series, ${counts.seriesHours} series-hours (${plan.describe})`);
  const admin = new JavaTableAdmin({ command: o.ep.adminCommand, session: true, timeoutMs: 3_600_000 });
  const stack = await createOurStack(o.ep, run, { buckets: o.buckets, partitions: 8, extra: SHIPPED_CODECS }, say);
  const tables = tsdTables(run);
  const work = mkdtempSync(join(tmpdir(), 'tsi-bench-storage-'));
  const stops: (() => Promise<unknown>)[] = [];
  try {
    const tsd = await productionTsd({ admin, workDir: work, zkQuorum: o.ep.zkQuorum, tables, buckets: o.buckets, say });
    stops.push(() => tsd.stop());
    const svc = await startOurService(stack, `${run}-g`, say, { extra: SHIPPED });
    stops.push(() => svc.stop());
    const t0 = performance.now();
    const [, put] = await Promise.all([produceAll(stack.kafka, stack.names.topic, plan.events()), putPoints(tsd.url, tsdPoints(plan), 500, 4)]);
    say(`[storage] the TSD stored ${put.points} points in ${put.seconds.toFixed(0)} s`);
    await waitUntil('our service to write every event', 3_600_000, async () => (await svc.processed()) >= counts.points, { everyMs: 1000 });
    const oursDrainSeconds = (performance.now() - t0) / 1000;
    const byOutcome = await svc.child.scrape(['tsingest_events_total']);
    const dlq = sumOf(byOutcome, 'tsingest_events_total', { outcome: 'dlq' });
    if (dlq > 0) throw new Error(`ours sent ${dlq} of ${counts.points} events to the DLQ: not the same points`);
    say(`[storage] ours wrote every event ${oursDrainSeconds.toFixed(0)} s after the start of producing`);
    const tsdCompaction = await compactTsd({ url: tsd.url, rest: stack.rest, table: tables.data, plan, say });
    let oursRollupWaitSeconds = 0;
    for (const metric of plan.metrics) {
      const q = { start: plan.startTs, end: plan.endTs - 1, queries: [{ aggregator: 'avg', metric, downsample: '1h-avg' }] };
      oursRollupWaitSeconds += await waitRollups(svc.url, q, 3_600_000);
    }
    oursRollupWaitSeconds += await waitAllSizes(svc, 3_600_000);
    say(`[storage] ours: every closed hour and day summarised (${oursRollupWaitSeconds.toFixed(0)} s after the drain and the TSD's compaction)`);
    const references = await referenceAnswers(svc.url, { plan, series: counts.series, say });
    await svc.stop();
    await tsd.stop();
    // the TSD flushes its compaction queue as it stops: the table as measured
    const final = await countCells(stack.rest, tables.data);
    say(`[storage] ${tables.data} with the TSD stopped: ${final.rows} rows, ${final.cells} cells`);
    const ours: TableRoles = [
      [stack.names.data, 'data'],
      [stack.names.index, 'index'],
      [stack.names.rollup, 'rollup'],
      [stack.names.meta, 'meta'],
    ];
    const theirs: TableRoles = [
      [tables.data, 'tsdb'],
      [tables.uid, 'tsdb-uid'],
      [tables.tree, 'tsdb-tree'],
      [tables.meta, 'tsdb-meta'],
    ];
    const { compactSeconds, settleSeconds } = await compactAll(admin, { root, tables: [...theirs, ...ours], say });
    const tsdSide = sideFigures(await measure(admin, { root, tables: theirs }), counts.points);
    const ourSide = sideFigures(await measure(admin, { root, tables: ours }), counts.points);
    // a side with no bytes on disk measured nothing (a wrong root dir, a table not flushed): no ratio of it
    if (counts.points === 0 || tsdSide.bytes === 0 || ourSide.bytes === 0)
      throw new Error(`nothing measured: ${counts.points} points, TSD ${tsdSide.bytes} bytes, ours ${ourSide.bytes} bytes on disk`);
    say(
      `[storage] ours ${ourSide.bytesPerPoint.toFixed(1)} bytes per point with every tier, the TSD ${tsdSide.bytesPerPoint.toFixed(1)}; now ours after raw retention`,
    );
    const retention = await afterRawRetention({ stack, admin, root, group: `${run}-g`, ours, references, points: counts.points, tsdBytes: tsdSide.bytes, say });
    return {
      dataset: plan.name,
      describe: plan.describe,
      from: new Date(plan.startTs).toISOString(),
      to: new Date(plan.endTs).toISOString(),
      ...counts,
      tsdTimestamps: plan.tsdSeconds ? 's' : 'ms',
      oursDrainSeconds,
      oursRollupWaitSeconds,
      tsdPutSeconds: put.seconds,
      tsdCompaction: { ...tsdCompaction, after: final },
      compactSeconds,
      settleSeconds,
      tsd: tsdSide,
      ours: ourSide,
      ratio: ourSide.bytes / tsdSide.bytes,
      afterRawRetention: retention,
    };
  } finally {
    for (const s of stops.reverse()) await s().catch(() => undefined);
    await admin.close().catch(() => undefined);
    await dropTsdTables(stack.rest, tables, say);
    await stack.drop();
    rmSync(work, { recursive: true, force: true });
  }
}

export async function storagePhase(o: StorageOptions): Promise<StorageFigures> {
  const root = hbaseRootDir(readFileSync(join(hbaseConfDir(stackLayout()), 'hbase-site.xml'), 'utf8'));
  const datasets: DatasetFigures[] = [];
  for (const name of o.datasets) {
    const now = Date.now();
    const plan = name === 'sparse' ? sparsePlan({ events: o.sparseEvents, ids: o.sparseIds, now }) : densePlan({ series: o.denseSeries, now });
    const d = await onePass(o, plan, root);
    datasets.push(d);
    o.onDataset?.(d);
    o.say(`[storage] bytes on disk per point:\n${storageTable(d)}`);
  }
  return { hbaseRootDir: root, buckets: o.buckets, sets: [...SHIPPED_CODECS, ...SHIPPED], rawRetentionSets: [...RAW_RETENTION_SETS], datasets };
}
