// Read-side benchmark data: generated events written straight to HBase with the ingest's own row
// builder (planBatch: data rows, index rows for cfg.index.tags) and, when asked, the rollup markers
// ingest would write — no Kafka, so loading history is fast. Chunked and concurrent like the service.
import PQueue from 'p-queue';
import { isRetriable, toRowCells, type HBaseRestClient } from '../../../src/hbase/index.ts';
import { retrying } from '../../../src/toolkit/index.ts';
import { generateEvents } from '../../../src/demo/index.ts';
import { planBatch, RollupMarks, type SourceRecord } from '../../../src/ingest/index.ts';
import { parseWindows } from '../../../src/rollup/index.ts';
import type { Config } from '../../../src/runtime/index.ts';
import { keyspaceOf, planSettings, tablesOf } from '../../../src/service/index.ts';
import type { DataRow } from '../../../src/events/index.ts';
import type { GenParams } from './rows.ts';

const UNIT = 2000;

export interface LoadResult {
  readonly events: number;
  readonly dataRows: number;
  readonly indexRows: number;
  readonly markerRows: number;
  /** (id, window) pairs marked in those rows */
  readonly marks: number;
  readonly seconds: number;
}

/** `dataless`: write only the markers (re-mark data already loaded). */
export async function loadEvents(
  client: HBaseRestClient,
  cfg: Config,
  gen: GenParams,
  o: { markers: boolean; dataless?: boolean; concurrency?: number },
): Promise<LoadResult> {
  const keyspace = keyspaceOf(cfg);
  const tables = tablesOf(cfg);
  const settings = planSettings(cfg, keyspace, tables);
  const queue = new PQueue({ concurrency: o.concurrency ?? cfg.hbase.concurrency });
  const finest = parseWindows(cfg.rollup.windows)[0];
  const marks =
    o.markers && finest !== undefined
      ? new RollupMarks({ window: finest, graceMs: cfg.rollup.graceMs, keyspace, family: tables.rollup.family, cacheSize: 0 })
      : undefined;
  // Retried like the service's writes (a keep-alive socket the gateway closed, a 503 under load).
  const put = (table: string, rows: readonly DataRow[]): Promise<void> =>
    queue.add(() => retrying(() => client.put(table, rows.map(toRowCells)), { baseMs: 100, maxMs: 2000, isRetriable }));
  const result = { events: 0, dataRows: 0, indexRows: 0, markerRows: 0, marks: 0 };
  const t0 = performance.now();
  let records: SourceRecord[] = [];
  const flush = async (): Promise<void> => {
    const plan = planBatch(records, settings());
    records = [];
    const data = plan.events.map((e) => e.data.row);
    const index = plan.events.flatMap((e) => e.index.map((r) => r.row));
    // data before index and markers, as the service writes them
    if (o.dataless !== true) await put(tables.data.name, data);
    const marked = marks === undefined ? [] : marks.rowsFor(plan.events);
    const markerRows = marked.map((m) => m.row);
    const after: Promise<void>[] = [];
    if (o.dataless !== true) for (let i = 0; i < index.length; i += UNIT) after.push(put(tables.index.name, index.slice(i, i + UNIT)));
    for (let i = 0; i < markerRows.length; i += UNIT) after.push(put(tables.rollup.name, markerRows.slice(i, i + UNIT)));
    await Promise.all(after);
    result.events += plan.events.length;
    result.dataRows += data.length;
    result.indexRows += index.length;
    result.markerRows += markerRows.length;
    result.marks += marked.reduce((n, m) => n + m.ids.length, 0);
  };
  const inFlight = new Set<Promise<void>>();
  let n = 0;
  for (const e of generateEvents(gen)) {
    records.push({ offset: String(n++), key: null, value: Buffer.from(JSON.stringify(e)), timestamp: String(e.ts) });
    if (records.length >= UNIT) {
      const p = flush();
      inFlight.add(p);
      p.then(
        () => inFlight.delete(p),
        () => undefined,
      );
      if (queue.size > cfg.hbase.concurrency * 2) await queue.onSizeLessThan(cfg.hbase.concurrency);
    }
  }
  if (records.length > 0) inFlight.add(flush());
  await Promise.all(inFlight);
  await queue.onIdle();
  return { ...result, seconds: (performance.now() - t0) / 1000 };
}

/** p-th percentile (nearest rank) of durations in ms. */
export function percentile(sortedMs: readonly number[], p: number): number {
  if (sortedMs.length === 0) return Number.NaN;
  const rank = Math.min(sortedMs.length - 1, Math.max(0, Math.ceil((p / 100) * sortedMs.length) - 1));
  return sortedMs[rank] ?? Number.NaN;
}

/** Runs `fn` n times one after another (after `warmup` untimed runs); sorted durations in ms. */
export async function timeRuns(n: number, warmup: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn(i);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    out.push(performance.now() - t0);
  }
  return out.sort((a, b) => a - b);
}
