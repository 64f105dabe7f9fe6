// Benchmark helpers that bypass Kafka: the same rows the service would write (encodeDataKey +
// buildEventCells → toRowCells, data rows only), chunked like the service and written straight to the
// REST gateway, plus region write counts located by binary search over the table's region list.
import PQueue from 'p-queue';
import { toRowCells, type HBaseRestClient, type RowCells } from '../../../src/hbase/index.ts';
import { encodeDataKey } from '../../../src/keys/index.ts';
import { buildEventCells, type DataRow } from '../../../src/events/index.ts';
import { planBatch, rowBytes, type PlanSettings } from '../../../src/ingest/index.ts';
import { computeSkew, locateIn, type RegionInfo } from '../../../src/load/index.ts';
import { generateEvents, type GeneratedEvent } from '../../../src/demo/index.ts';

export interface GenParams {
  readonly count: number;
  readonly ids: number;
  readonly startTs: number;
  readonly stepMs: number;
  readonly seed: number;
  /** add a `rack` tag (rack-(rank mod racks)) to every event */
  readonly racks?: number;
}

export interface RawWriteResult {
  readonly table: string;
  readonly rows: number;
  readonly seconds: number;
  readonly eventsPerSec: number;
  readonly regions: number;
  readonly regionCounts: readonly number[];
  readonly skew: number;
}

export async function regionsOf(client: HBaseRestClient, table: string): Promise<RegionInfo[]> {
  const regions = await client.regions(table);
  return regions
    .map((r) => ({ name: r.name, startKey: r.startKey, endKey: r.endKey, server: r.location }))
    .sort((a, b) => Buffer.compare(a.startKey, b.startKey));
}

/**
 * Regenerates the events (deterministic) and writes their rows: the data rows with `buckets` salt
 * buckets, or what `rowsOf` builds from each event (e.g. its index rows).
 */
export async function writeRaw(o: {
  client: HBaseRestClient;
  table: string;
  family: string;
  buckets: number;
  gen: GenParams;
  maxRows: number;
  maxBytes: number;
  concurrency: number;
  rowsOf?: (e: GeneratedEvent) => readonly DataRow[];
}): Promise<RawWriteResult> {
  const regions = await regionsOf(o.client, o.table);
  const index = new Map(regions.map((r, i) => [r.name, i]));
  const counts = new Array<number>(regions.length).fill(0);
  const queue = new PQueue({ concurrency: o.concurrency });
  let failure: unknown;
  let rows = 0;
  let chunk: DataRow[] = [];
  let chunkBytes = 0;
  const flush = (): void => {
    const body = chunk.map(toRowCells);
    chunk = [];
    chunkBytes = 0;
    queue
      .add(() => o.client.put(o.table, body))
      .catch((err: unknown) => {
        failure ??= err;
      });
  };
  const t0 = performance.now();
  const rowsOf = o.rowsOf ?? ((e: GeneratedEvent): DataRow[] => [{ key: encodeDataKey(e, o.buckets), cells: buildEventCells(e, o.family) }]);
  for (const e of generateEvents(o.gen)) {
    for (const row of rowsOf(e)) {
      const size = rowBytes(row);
      if (chunk.length > 0 && (chunk.length >= o.maxRows || chunkBytes + size > o.maxBytes)) {
        flush();
        if (queue.size >= o.concurrency) await queue.onSizeLessThan(o.concurrency);
        if (failure !== undefined) break;
      }
      chunk.push(row);
      chunkBytes += size;
      rows++;
      const region = locateIn(regions, row.key);
      const i = region === undefined ? undefined : index.get(region.name);
      if (i !== undefined) counts[i] = (counts[i] ?? 0) + 1;
    }
    if (failure !== undefined) break;
  }
  if (chunk.length > 0 && failure === undefined) flush();
  await queue.onIdle();
  if (failure !== undefined) throw failure instanceof Error ? failure : new Error('raw REST write failed', { cause: failure });
  const seconds = (performance.now() - t0) / 1000;
  return { table: o.table, rows, seconds, eventsPerSec: rows / seconds, regions: regions.length, regionCounts: counts, skew: computeSkew(counts) };
}

/**
 * Every row the service writes for the generated events, built by the service's own planner
 * (planBatch: data rows, and index rows when settings.indexTags is not empty), as put bodies.
 */
export function* plannedRows(gen: GenParams, settings: PlanSettings): Generator<RowCells> {
  let offset = 0;
  for (const e of generateEvents(gen)) {
    const record = { offset: String(offset++), key: null, value: Buffer.from(JSON.stringify(e)), timestamp: '0' };
    const plan = planBatch([record], settings);
    for (const ev of plan.events) {
      yield toRowCells(ev.data.row);
      for (const ix of ev.index) yield toRowCells(ix.row);
    }
  }
}

/** Writes `rows` to one table, chunked and queued like the service (maxRows/maxBytes, concurrency). */
export async function writeRows(o: {
  client: HBaseRestClient;
  table: string;
  rows: Iterable<RowCells>;
  maxRows: number;
  maxBytes: number;
  concurrency: number;
}): Promise<{ rows: number; seconds: number; rowsPerSec: number }> {
  const queue = new PQueue({ concurrency: o.concurrency });
  let failure: unknown;
  let rows = 0;
  let chunk: RowCells[] = [];
  let chunkBytes = 0;
  const flush = (): void => {
    const body = chunk;
    chunk = [];
    chunkBytes = 0;
    queue
      .add(() => o.client.put(o.table, body))
      .catch((err: unknown) => {
        failure ??= err;
      });
  };
  const t0 = performance.now();
  for (const r of o.rows) {
    const size = r.row.length + r.cells.reduce((a, c) => a + c.column.length + c.value.length + 16, 0);
    if (chunk.length > 0 && (chunk.length >= o.maxRows || chunkBytes + size > o.maxBytes)) {
      flush();
      if (queue.size >= o.concurrency) await queue.onSizeLessThan(o.concurrency);
      if (failure !== undefined) break;
    }
    chunk.push(r);
    chunkBytes += size;
    rows++;
  }
  if (chunk.length > 0 && failure === undefined) flush();
  await queue.onIdle();
  if (failure !== undefined) throw failure instanceof Error ? failure : new Error('REST write failed', { cause: failure });
  const seconds = (performance.now() - t0) / 1000;
  return { rows, seconds, rowsPerSec: rows / seconds };
}
