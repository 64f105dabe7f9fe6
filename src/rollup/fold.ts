/**
 * Pure: folding source rows into per-metric summaries, and the summary row of one window.
 *
 * The fold order is fixed (rows in key order, cells in stored order), so the job, a second job
 * instance and the backfill add the same floating-point numbers in the same order and write
 * bit-identical sums for the same data.
 */
import { decodeDataRow, type DataRow, type StoredCell } from '../events/index.ts';
import { rollupWindowFamily } from '../keys/index.ts';
import { SummaryDecodeError, addEvent, decodeSummary, encodeSummary, mergeSummary, type MetricSummary } from './summary.ts';

/** metric name → summary */
export type Summaries = Map<string, MetricSummary>;

/** A row to put: key + cells with their column (`family:qualifier`) and timestamp. */
export interface PutRow {
  readonly row: Buffer;
  readonly cells: readonly { readonly column: Buffer; readonly value: Buffer; readonly timestamp?: number }[];
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Adds every metric of one data row (event ts `ts`) to `acc`; the tags cell is ignored. */
export function foldDataRow(acc: Summaries, ts: number, cells: readonly StoredCell[]): void {
  const { metrics } = decodeDataRow(cells);
  for (const [metric, value] of Object.entries(metrics)) acc.set(metric, addEvent(acc.get(metric), ts, value));
}

/** Merges the summary cells of one (finer) summary row into `acc`; reserved 0x00 qualifiers are skipped. */
export function foldSummaryRow(acc: Summaries, cells: readonly StoredCell[]): void {
  for (const [metric, s] of decodeSummaryCells(cells)) acc.set(metric, mergeSummary(acc.get(metric), s));
}

/**
 * A summary row's cells, one per qualifier: the one with the newest timestamp. A summary row is read
 * from its size's family (r1h, …) and from the rollup table's main family, where summaries were
 * written before the per-size families existed (docs/RETENTION.md, *Upgrading*); a window recomputed
 * since has a newer cell in its own family, and the newest wins as VERSIONS 1 does within a family.
 * Order is kept (first occurrence); with one family this is the cells as they are.
 */
export function newestPerQualifier<C extends { readonly qualifier: Uint8Array; readonly timestamp: number }>(cells: readonly C[]): C[] {
  if (cells.length < 2) return [...cells];
  const at = new Map<string, number>();
  const out: C[] = [];
  for (const cell of cells) {
    const q = Buffer.from(cell.qualifier.buffer, cell.qualifier.byteOffset, cell.qualifier.byteLength).toString('latin1');
    const i = at.get(q);
    if (i === undefined) {
      at.set(q, out.length);
      out.push(cell);
    } else if (cell.timestamp > (out[i] as C).timestamp) {
      out[i] = cell;
    }
  }
  return out;
}

/** Merges `from` into `acc` (metric by metric). */
export function mergeSummaries(acc: Summaries, from: Summaries): void {
  for (const [metric, s] of from) acc.set(metric, mergeSummary(acc.get(metric), s));
}

export function decodeSummaryCells(cells: readonly StoredCell[]): Summaries {
  const out: Summaries = new Map();
  for (const cell of cells) {
    if (cell.qualifier[0] === 0x00 || cell.qualifier.length === 0) continue;
    let metric: string;
    try {
      metric = strictUtf8.decode(cell.qualifier);
    } catch (cause) {
      throw new SummaryDecodeError(`summary qualifier ${Buffer.from(cell.qualifier).toString('hex')} is not UTF-8`, { cause });
    }
    out.set(metric, decodeSummary(cell.value, metric));
  }
  return out;
}

export function columnOf(family: string, qualifier: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${family}:`, 'utf8'), qualifier]);
}

/**
 * The columns a read of one window size's summaries asks for: the size's own family and the rollup
 * table's main family (summaries written there before the per-size families existed); whole families,
 * or the given qualifiers (metrics) in each. Rows read so hold a metric up to twice: newestPerQualifier.
 */
export function summaryColumns(mainFamily: string, windowSec: number, qualifiers?: readonly Buffer[]): Buffer[] {
  const families = [rollupWindowFamily(windowSec), mainFamily];
  return qualifiers === undefined ? families.map((f) => Buffer.from(f, 'utf8')) : families.flatMap((f) => qualifiers.map((q) => columnOf(f, q)));
}

/**
 * The summary row: one cell per metric (qualifier = metric name, value = encodeSummary), all at
 * `timestamp` (the time the recompute started reading its source: VERSIONS 1 keeps the newest).
 * Undefined when there is nothing to write.
 */
export function summaryPutRow(key: Buffer, summaries: Summaries, family: string, timestamp: number): PutRow | undefined {
  if (summaries.size === 0) return undefined;
  const metrics = [...summaries.keys()].sort();
  return {
    row: key,
    cells: metrics.map((m) => ({ column: columnOf(family, Buffer.from(m, 'utf8')), value: encodeSummary(summaries.get(m) as MetricSummary), timestamp })),
  };
}

/** An events-style DataRow (family + qualifier per cell) as a PutRow. */
export function putRowOf(row: DataRow): PutRow {
  return { row: row.key, cells: row.cells.map((c) => ({ column: columnOf(c.family, c.qualifier), value: c.value, timestamp: c.timestamp })) };
}
