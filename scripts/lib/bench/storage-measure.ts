// What the storage phase (series-storage.ts, storage-retention.ts) reads off HBase: rows and cells of a
// table through the REST gateway, every table flushed and major-compacted until each store holds one
// file, and each family's store-file bytes (store-bytes.ts) with its settings (the admin tool's describe).
import type { JavaTableAdmin } from '../../../src/admin/index.ts';
import type { HBaseRestClient } from '../../../src/hbase/index.ts';
import { waitUntil } from './series-service.ts';
import type { FamilyFigures, RowsCells } from './storage-plan.ts';
import { tableBytes } from './store-bytes.ts';

/** A side's tables: name and role (tsdb, tsdb-uid, …; data, index, rollup, meta). */
export type TableRoles = readonly (readonly [table: string, role: string])[];

/** Rows and cells of a table, counted through the REST gateway (keys only). */
export async function countCells(rest: HBaseRestClient, table: string): Promise<RowsCells> {
  let rows = 0;
  let cells = 0;
  for await (const r of rest.scan(table, { batch: 10_000, filter: { type: 'KeyOnlyFilter' }, deadlineMs: 300_000 })) {
    rows++;
    cells += r.cells.length;
  }
  return { rows, cells };
}

export interface Compaction {
  readonly compactSeconds: number;
  /** seconds until every store held at most one file after the major compactions (compacted files discharged) */
  readonly settleSeconds: number;
}

/**
 * Every table flushed and major-compacted (the admin tool's `compact`), then the wait until every store
 * holds at most one file: a compaction's input files stay in the store until HBase's discharger chore
 * removes them (every 2 min by default).
 */
export async function compactAll(admin: JavaTableAdmin, o: { root: string; tables: TableRoles; say: (m: string) => void }): Promise<Compaction> {
  const c0 = performance.now();
  for (const [t] of o.tables) await admin.compact(t);
  const compactSeconds = (performance.now() - c0) / 1000;
  const settleSeconds = await waitUntil(
    'every store to hold one file',
    900_000,
    () => Promise.resolve(o.tables.every(([t]) => Object.values(tableBytes(o.root, t).families).every((f) => f.maxFilesPerRegion <= 1))),
    { everyMs: 5000 },
  );
  o.say(
    `[storage] ${o.tables.map(([t]) => t).join(', ')} flushed and major-compacted in ${compactSeconds.toFixed(0)} s, one file per store ${settleSeconds.toFixed(0)} s later`,
  );
  return { compactSeconds, settleSeconds };
}

/** Each table's families: bytes from the store files, settings from the admin tool. */
export async function measure(admin: JavaTableAdmin, o: { root: string; tables: TableRoles }): Promise<Omit<FamilyFigures, 'bytesPerPoint'>[]> {
  const out: Omit<FamilyFigures, 'bytesPerPoint'>[] = [];
  for (const [table, role] of o.tables) {
    const d = await admin.describe(table);
    const b = tableBytes(o.root, table);
    for (const f of d.families) {
      const got = b.families[f.name];
      out.push({ table, role, family: f.name, bytes: got?.bytes ?? 0, files: got?.files ?? 0, settings: f.attrs });
    }
  }
  return out;
}
