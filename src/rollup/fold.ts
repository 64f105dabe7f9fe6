/**
 * Pure: the rollup table's cells as rows to put and columns to read. The fold order is fixed, so
 * every writer of a window writes bit-identical sums.
 * Design notes: docs/DECISIONS.md#fold-order
 */
import type { DataRow } from '../events/index.ts';
import { rollupWindowFamily } from '../keys/index.ts';
import type { MetricSummary } from './summary.ts';

/** metric name → summary */
export type Summaries = Map<string, MetricSummary>;

/** A row to put: key + cells with their column (`family:qualifier`) and timestamp. */
export interface PutRow {
  readonly row: Buffer;
  readonly cells: readonly { readonly column: Buffer; readonly value: Buffer; readonly timestamp?: number }[];
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

export function columnOf(family: string, qualifier: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${family}:`, 'utf8'), qualifier]);
}

/**
 * The columns a read of one window size's summaries asks for: the size's own family and the rollup
 * table's main family (summaries written there before the per-size families existed); whole families,
 * or the given qualifiers (metrics) in each. Rows read so hold a metric up to twice: newestPerQualifier.
 */
export function summaryColumns(mainFamily: string, windowSec: number, qualifiers?: readonly Buffer[], blockFamily: string | null = null): Buffer[] {
  const families = blockFamily === null ? [rollupWindowFamily(windowSec), mainFamily] : [rollupWindowFamily(windowSec), mainFamily, blockFamily];
  return qualifiers === undefined ? families.map((f) => Buffer.from(f, 'utf8')) : families.flatMap((f) => qualifiers.map((q) => columnOf(f, q)));
}

/** An events-style DataRow (family + qualifier per cell) as a PutRow. */
export function putRowOf(row: DataRow): PutRow {
  return { row: row.key, cells: row.cells.map((c) => ({ column: columnOf(c.family, c.qualifier), value: c.value, timestamp: c.timestamp })) };
}
