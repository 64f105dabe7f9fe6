// How a delete removes a row and counts it. HBase's REST `DELETE /table/row` marks the row at the
// server's now, and a marker hides only cells at or before its own time: the data and index cells
// carry the event time, so an event later than now outlived every delete (issue 39). Each row is
// deleted at a timestamp no earlier than its newest cell as read (`DELETE /table/row[/columns]/ts`:
// every version <= ts), and counted as removed only when a read after the delete no longer finds it.
import type { DeleteRowOptions } from '../hbase/client.ts';
import type { Row } from '../hbase/types.ts';
import type { Limiter } from '../toolkit/limiter.ts';

/** The calls a removal makes (HBaseRestClient fits). */
export interface RemovePort {
  deleteRow(table: string, row: Buffer, opts?: DeleteRowOptions): Promise<void>;
  multiGet(table: string, rows: readonly Buffer[], opts?: { columns?: readonly Buffer[] }): Promise<(Row | null)[]>;
}

/** A row (or, with `columns`, some of its columns) to delete, with the cells it was read with. */
export interface Doomed {
  readonly row: Buffer;
  readonly cells: readonly { readonly timestamp: number }[];
  readonly columns?: readonly Buffer[] | undefined;
}

/** The delete's timestamp: now, or the newest cell read when that is later (a future event time). */
export function stampOf(now: number, cells: readonly { readonly timestamp: number }[]): number {
  let stamp = now;
  for (const c of cells) if (c.timestamp > stamp) stamp = c.timestamp;
  return stamp;
}

function gone(d: Doomed, after: Row | null): boolean {
  if (after === null) return true;
  const cols = d.columns;
  if (cols === undefined) return after.cells.length === 0;
  return !after.cells.some((c) => cols.some((col) => col.equals(c.column) || col.equals(c.family)));
}

/** What removes rows: the port, and the limiter its deletes run under. */
export interface Remover {
  readonly port: RemovePort;
  readonly limiter: Limiter;
}

/** Deletes each row at its stamp, then reads them again: returns how many are gone. */
export async function removeRows(remover: Remover, table: string, doomed: readonly Doomed[], now: number): Promise<number> {
  const { port, limiter } = remover;
  if (doomed.length === 0) return 0;
  await Promise.all(
    doomed.map((d) =>
      limiter.run(() => port.deleteRow(table, d.row, { timestamp: stampOf(now, d.cells), ...(d.columns === undefined ? {} : { columns: d.columns }) })),
    ),
  );
  const after = await port.multiGet(
    table,
    doomed.map((d) => d.row),
  );
  return doomed.filter((d, i) => gone(d, after[i] ?? null)).length;
}

/** The rows of `keys` that exist, read with their cells (the index rows a page of data rows points at). */
export async function existingRows(port: RemovePort, table: string, keys: readonly Buffer[]): Promise<Doomed[]> {
  if (keys.length === 0) return [];
  const rows = await port.multiGet(table, keys);
  return rows.flatMap((r, i) => (r === null || r.cells.length === 0 ? [] : [{ row: keys[i] as Buffer, cells: r.cells }]));
}
