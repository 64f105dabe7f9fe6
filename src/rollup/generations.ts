/**
 * Window generations: one token per salt bucket in the meta table, replaced after every acknowledged
 * write of a bucket's stored windows (docs/ROLLUPS.md, "Window generations").
 * Design notes: docs/DECISIONS.md#window-generations
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
