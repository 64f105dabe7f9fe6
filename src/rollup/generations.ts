/**
 * Window generations: one token per salt bucket, in one row of the meta table, that every writer of a
 * bucket's stored windows (summaries, point blocks, summary packs) replaces with a fresh random one
 * right AFTER its write is acknowledged: the rollup job, the backfill and `tsingest delete`.
 *
 * The series API's window cache (src/tsdb/window-cache.ts) tags each window it keeps with its bucket's
 * token as read BEFORE the scan that found it, and keeps answering from it only while the token is
 * unchanged. That is exact: a write the scan did not see ends before its bump, and the bump comes
 * after the token was read, so the token differs by the next read. A job killed between its put and
 * its bump leaves the marker that caused the put, and the marker makes every reader treat the window
 * as not summarised until a later run puts it again and bumps (docs/SERIES-API.md, *Window cache*).
 *
 * Marker rows are not windows: ingest writes them without a bump, and the readers read them fresh.
 */
import { randomBytes } from 'node:crypto';
import { column } from '../hbase/codec.ts';
import type { Row } from '../hbase/types.ts';
import type { Keyspace, TableRef } from '../keys/index.ts';
import type { PutRow } from './fold.ts';

/** The meta table row of the tokens: one cell per bucket, the bucket's number in decimal as qualifier. */
export const GENERATIONS_ROW = Buffer.from('rollup/generations', 'latin1');

/** What a bump needs of HBase (the REST client and the rollup store fit). */
export interface GenerationWriter {
  put(table: string, rows: readonly PutRow[]): Promise<void>;
}

/** A fresh token: 64 random bits, never reused in practice. */
export function newToken(): Buffer {
  return randomBytes(8);
}

/** The buckets whose stored windows `rows` write (rollup table rows; marker rows are skipped). */
export function bucketsOfWindowRows(rows: readonly PutRow[], keyspace: Keyspace): Set<number> {
  const out = new Set<number>();
  for (const r of rows) if (r.row.length > 1 && r.row[1] !== 0x00) out.add(keyspace.decodeRollupKey(r.row).salt);
  return out;
}

/** A new token for each bucket, in one put. */
export async function bumpGenerations(port: GenerationWriter, meta: TableRef, buckets: Iterable<number>): Promise<void> {
  const cells = [...buckets].map((b) => ({ column: column(meta.family, String(b)), value: newToken() }));
  if (cells.length > 0) await port.put(meta.name, [{ row: GENERATIONS_ROW, cells }]);
}

/** Puts rows of the rollup table, then bumps the generation of every bucket whose windows they hold. */
export async function putWindowRows(
  port: GenerationWriter,
  s: { readonly rollupTable: string; readonly meta: TableRef; readonly keyspace: Keyspace },
  rows: readonly PutRow[],
): Promise<void> {
  await port.put(s.rollupTable, rows);
  await bumpGenerations(port, s.meta, bucketsOfWindowRows(rows, s.keyspace));
}

/** The tokens of the generations row (empty for none: no window was written since tokens exist), by bucket, as hex. */
export function generationsOf(row: Row | null): Map<number, string> {
  const out = new Map<number, string>();
  for (const c of row?.cells ?? []) {
    const bucket = Number(c.qualifier.toString('latin1'));
    if (Number.isInteger(bucket)) out.set(bucket, c.value.toString('hex'));
  }
  return out;
}
