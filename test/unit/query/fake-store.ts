// An in-memory stand-in for the three HBase calls the reads make (scan, multiGet, deleteRow): rows
// kept sorted by key, scans over [startRow, stopRow) honouring `columns`, and a gauge of how many
// scanner steps run at once (to check the by-tag read's concurrency bound). Unit tests only.
import { setImmediate as tick } from 'node:timers/promises';
import { column, splitColumn } from '../../../src/hbase/codec.ts';
import type { ScanOptions } from '../../../src/hbase/scanner.ts';
import type { Cell, Row } from '../../../src/hbase/types.ts';
import type { QueryStore } from '../../../src/query/types.ts';

export interface PutCell {
  readonly family: string;
  readonly qualifier: Buffer;
  readonly value: Buffer;
  readonly timestamp: number;
}

export class FakeStore implements QueryStore {
  readonly #tables = new Map<string, Map<string, Row>>();
  active = 0;
  maxActive = 0;
  scans = 0;
  readonly deleted: { table: string; row: Buffer }[] = [];

  put(table: string, row: Buffer, cells: readonly PutCell[]): void {
    let t = this.#tables.get(table);
    if (t === undefined) {
      t = new Map<string, Row>();
      this.#tables.set(table, t);
    }
    const hex = row.toString('hex');
    const existing = t.get(hex) ?? { row, cells: [] };
    for (const c of cells) {
      const col = column(c.family, c.qualifier);
      const cell: Cell = { column: col, family: Buffer.from(c.family), qualifier: c.qualifier, timestamp: c.timestamp, value: c.value };
      existing.cells = [...existing.cells.filter((x) => !x.column.equals(col)), cell];
    }
    t.set(hex, existing);
  }

  rows(table: string): Row[] {
    return [...(this.#tables.get(table)?.values() ?? [])].sort((a, b) => Buffer.compare(a.row, b.row));
  }

  has(table: string, row: Buffer): boolean {
    return this.#tables.get(table)?.has(row.toString('hex')) ?? false;
  }

  static #project(row: Row, columns: readonly Buffer[] | undefined): Row | null {
    if (columns === undefined || columns.length === 0) return { row: row.row, cells: [...row.cells] };
    const cells = row.cells.filter((c) =>
      columns.some((col) => {
        const { family, qualifier } = splitColumn(col);
        return col.includes(0x3a) ? c.family.equals(family) && c.qualifier.equals(qualifier) : c.family.equals(family);
      }),
    );
    return cells.length === 0 ? null : { row: row.row, cells };
  }

  scan(table: string, opts: ScanOptions = {}): AsyncGenerator<Row, void, undefined> {
    this.scans++;
    return this.#scan(this.rows(table), opts);
  }

  async *#scan(all: readonly Row[], opts: ScanOptions): AsyncGenerator<Row, void, undefined> {
    for (const r of all) {
      if (opts.startRow !== undefined && Buffer.compare(r.row, opts.startRow) < 0) continue;
      if (opts.stopRow !== undefined && opts.stopRow.length > 0 && Buffer.compare(r.row, opts.stopRow) >= 0) break;
      const projected = FakeStore.#project(r, opts.columns);
      if (projected === null) continue;
      this.active++;
      this.maxActive = Math.max(this.maxActive, this.active);
      await tick();
      this.active--;
      yield projected;
    }
  }

  multiGet(table: string, rows: readonly Buffer[], opts: { columns?: readonly Buffer[] } = {}): Promise<(Row | null)[]> {
    const t = this.#tables.get(table);
    return Promise.resolve(rows.map((k) => {
      const r = t?.get(k.toString('hex'));
      return r === undefined ? null : FakeStore.#project(r, opts.columns);
    }));
  }

  deleteRow(table: string, row: Buffer): Promise<void> {
    this.#tables.get(table)?.delete(row.toString('hex'));
    this.deleted.push({ table, row });
    return Promise.resolve();
  }
}
