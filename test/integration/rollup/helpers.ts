// Shared pieces of the rollup integration tests: per-test tables (createHarness) with small windows,
// events written with the ingest's own row builder, finest-window markers as ingest writes them, and
// read-back of summaries and markers from the real rollup table.
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { pino } from 'pino';
import { buildEventCells } from '../../../src/events/index.ts';
import { keyspaceOf, tablesOf } from '../../../src/service/keyspace.ts';
import { createReadMetrics } from '../../../src/metrics/read-metrics.ts';
import { putRowOf } from '../../../src/rollup/fold.ts';
import { RollupJob } from '../../../src/rollup/job.ts';
import { markerPuts, stampClock } from '../../../src/rollup/marker.ts';
import { parseMarkerRow } from '../../../src/rollup/plan.ts';
import { rollupSettings, type RollupSettings } from '../../../src/rollup/rollup-settings.ts';
import type { RollupStore } from '../../../src/rollup/store.ts';
import type { Row } from '../../../src/hbase/types.ts';
import type { Config } from '../../../src/runtime/config.ts';
import { SeriesIndex } from '../../../src/catalog/series-index.ts';
import { NO_SPREAD } from '../../../src/keys/index.ts';
import { fixedSpread } from '../../../src/series-store/index.ts';
import { rollupTier, seriesStoreOf } from '../../../src/service/series-side.ts';
import { executeQuery } from '../../../src/series-query/execute.ts';
import type { SubQueryPlan } from '../../../src/series-query/plan.ts';
import { parseQueryBody } from '../../../src/series-language/parse-query.ts';
import { createHarness, retryingRest, type Harness } from '../../support/service-harness.ts';
import { summariesOfRows, type Ev, type SummaryMap } from '../../unit/rollup/brute.ts';

// markerSettleMs 0: these tests run the job right after ingest (settle-test.ts covers the settle period).
export const ROLLUP_SETS = ['rollup.windows=["1m","1h","1d"]', 'rollup.graceMs=0', 'rollup.markerSettleMs=0', 'rollup.concurrency=4'] as const;
export const WINDOW_SECS = [60, 3600, 86_400] as const;

export interface RollupHarness {
  readonly h: Harness;
  readonly cfg: Config;
  readonly s: RollupSettings;
}

export async function rollupHarness(t: { after(fn: () => Promise<void>): void }, prefix: string): Promise<RollupHarness> {
  const h = await createHarness(t, { prefix, partitions: 1, sets: [...ROLLUP_SETS] });
  const cfg = h.config(['kafka.groupId=unused']);
  return { h, cfg, s: rollupSettings(cfg, keyspaceOf(cfg), tablesOf(cfg)) };
}

export async function writeEvents(r: RollupHarness, events: readonly Ev[]): Promise<void> {
  const rows = events.map((e) =>
    putRowOf({
      key: r.s.keyspace.dataKey(e.id, e.ts),
      cells: buildEventCells({ id: e.id, ts: e.ts, metric: e.metric, value: e.value, tags: {} }, r.cfg.tables.data.family),
    }),
  );
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500);
    await retryingRest('put events', () => r.h.rest.put(r.s.dataTable, chunk));
  }
}

const stamp = stampClock();

/** One mark per distinct (id, finest window) touched, in marker rows as ingest writes them; returns how many marks. */
export async function markEvents(r: RollupHarness, events: readonly Ev[]): Promise<number> {
  const finest = r.s.windows[0];
  if (finest === undefined) throw new Error('no rollup windows');
  const seen = new Map<string, { id: string; windowSec: number; windowStart: number }>();
  for (const e of events) {
    const windowStart = e.ts - (e.ts % finest.ms);
    seen.set(`${e.id}|${windowStart}`, { id: e.id, windowSec: finest.seconds, windowStart });
  }
  const rows = markerPuts(seen.values(), { keyspace: r.s.keyspace, family: r.s.rollupFamily, stamp: stamp() }).map((p) => putRowOf(p.row));
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500);
    await retryingRest('put markers', () => r.h.rest.put(r.s.rollupTable, chunk));
  }
  return seen.size;
}

export interface RollupTableState {
  readonly summaries: SummaryMap;
  /** marker rows (key byte 1 = 0x00) */
  readonly markers: Buffer[];
  /** the (id, window) pairs they mark, `id|windowSec|windowStart`, sorted */
  readonly marks: string[];
  readonly summaryRows: number;
}

export function readRollupTable(r: RollupHarness): Promise<RollupTableState> {
  return retryingRest('scan rollup table', async () => {
    const rows: Row[] = [];
    for await (const row of r.h.rest.scan(r.s.rollupTable, { batch: 5000 })) rows.push(row);
    const markerRows = rows.filter((x) => x.row[1] === 0x00);
    const marks = markerRows
      .flatMap((x) => (parseMarkerRow(x.row, x.cells, r.s.keyspace)?.windows ?? []).map((m) => `${m.parts.id}|${m.parts.windowSec}|${m.parts.windowStart}`))
      .sort();
    return { summaries: summariesOfRows(rows), markers: markerRows.map((x) => x.row), marks, summaryRows: rows.length - markerRows.length };
  });
}

export function newJob(r: RollupHarness, store: RollupStore = r.h.rest): RollupJob {
  return new RollupJob({ store, settings: r.s, metrics: createReadMetrics(new Registry(), r.cfg.rollup.windows), log: pino({ level: 'warn' }) });
}

/** One id's `sum` of metric temp at `downsample` over [from, to) through the series API's planner, store and computation, with the plan taken. */
export async function seriesSumsOf(
  cfg: Config,
  r: RollupHarness,
  q: { readonly id: string; readonly downsample: string; readonly from: number; readonly to: number },
): Promise<{ plan: SubQueryPlan; dps: (readonly [number, number | null])[] }> {
  const catalog = new SeriesIndex({ idTagKey: 'id' });
  catalog.add({ metric: 'temp', id: q.id, tags: {} });
  const store = seriesStoreOf({
    cfg,
    hbase: r.h.rest,
    keyspace: r.s.keyspace,
    tables: tablesOf(cfg),
    spread: fixedSpread(NO_SPREAD),
    deadlineMs: 10_000,
  });
  const body = {
    start: q.from,
    end: q.to - 1,
    queries: [{ aggregator: 'sum', metric: 'temp', downsample: q.downsample, filters: [{ type: 'literal_or', tagk: 'id', filter: q.id, groupBy: false }] }],
  };
  const [a] = await executeQuery(parseQueryBody(body, new URLSearchParams(), Date.now()), {
    catalog,
    reads: store,
    tier: rollupTier(cfg),
    idTagKey: 'id',
    limits: { maxSeries: 10, maxPoints: 100_000, concurrency: 2 },
    now: Date.now,
    signal: new AbortController().signal,
    integerValues: false,
  });
  assert.ok(a !== undefined);
  return { plan: a.plan, dps: a.results.flatMap((x) => x.dps) };
}
