// An in-memory stand-in for the four HBase REST calls the spread registry makes (scan, get, put,
// checkAndPut, deleteRow): one table, rows by key, a cell per column. Check-and-put compares the
// check column's bytes (null: absent), as HBase does. `beforeSwap` lets a test change the row between
// a read and a check-and-put (a concurrent writer).
import type { Row, RowCells } from '../../../src/hbase/types.ts';
import type { ScanOptions } from '../../../src/hbase/scanner.ts';
import type { CheckSpec } from '../../../src/hbase/index.ts';
import type { RegistryPort } from '../../../src/spread/store.ts';

export class FakePort implements RegistryPort {
  readonly rows = new Map<string, Map<string, Buffer>>();
  swaps = 0;
  failNext: Error | undefined;
  beforeSwap: (() => void) | undefined;

  #fail(): void {
    const e = this.failNext;
    this.failNext = undefined;
    if (e !== undefined) throw e;
  }

  #row(key: Buffer): Row | null {
    const cells = this.rows.get(key.toString('hex'));
    if (cells === undefined || cells.size === 0) return null;
    return {
      row: key,
      cells: [...cells].map(([col, value]) => {
        const c = Buffer.from(col, 'hex');
        const colon = c.indexOf(0x3a);
        return { column: c, family: c.subarray(0, colon), qualifier: c.subarray(colon + 1), value, timestamp: 1 };
      }),
    };
  }

  set(key: Buffer, column: Buffer, value: Buffer): void {
    const k = key.toString('hex');
    const cells = this.rows.get(k) ?? new Map<string, Buffer>();
    cells.set(column.toString('hex'), value);
    this.rows.set(k, cells);
  }

  async *scan(_table: string, opts: ScanOptions = {}): AsyncGenerator<Row, void, undefined> {
    await Promise.resolve();
    this.#fail();
    const keys = [...this.rows.keys()].map((k) => Buffer.from(k, 'hex')).sort((a, b) => Buffer.compare(a, b));
    for (const key of keys) {
      if (opts.startRow !== undefined && Buffer.compare(key, opts.startRow) < 0) continue;
      if (opts.stopRow !== undefined && opts.stopRow.length > 0 && Buffer.compare(key, opts.stopRow) >= 0) continue;
      const row = this.#row(key);
      if (row !== null) yield row;
    }
  }

  get(_table: string, key: Buffer): Promise<Row | null> {
    this.#fail();
    return Promise.resolve(this.#row(key));
  }

  put(_table: string, rows: readonly RowCells[]): Promise<void> {
    this.#fail();
    for (const r of rows) for (const c of r.cells) this.set(r.row, c.column, c.value);
    return Promise.resolve();
  }

  checkAndPut(_table: string, key: Buffer, cells: readonly { column: Buffer; value: Buffer }[], check: CheckSpec): Promise<boolean> {
    this.#fail();
    this.beforeSwap?.();
    this.swaps++;
    const current = this.rows.get(key.toString('hex'))?.get(check.column.toString('hex'));
    const holds = check.value === null ? current === undefined || current.length === 0 : current?.equals(check.value) === true;
    if (!holds) return Promise.resolve(false);
    for (const c of cells) this.set(key, c.column, c.value);
    return Promise.resolve(true);
  }

  deleteRow(_table: string, key: Buffer): Promise<void> {
    this.rows.delete(key.toString('hex'));
    return Promise.resolve();
  }
}
