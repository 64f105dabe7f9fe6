/** An in-memory IndexStore for the index tool unit tests (not a test file itself): sorted rows per
 * table, with the HBase semantics the tools rely on — scan [start, stop) with timeRange [from, to),
 * family columns and a row limit; multi-get aligned with the keys; puts keyed by qualifier; row and
 * column deletes. Counts calls. */
import { column, splitColumn } from '../../../src/hbase/codec.ts';
import type { Cell, Row, RowCells } from '../../../src/hbase/types.ts';
import type { IndexStore } from '../../../src/index/passes.ts';
import type { ScanOptions } from '../../../src/hbase/index.ts';
import type { DataRow } from '../../../src/events/cells.ts';

type StoredCell = { value: Buffer; timestamp: number };

export class FakeStore implements IndexStore {
  readonly tables = new Map<string, Map<string, Map<string, StoredCell>>>();
  calls = { scan: 0, multiGet: 0, put: 0, deleteRow: 0 };

  #table(name: string): Map<string, Map<string, StoredCell>> {
    let t = this.tables.get(name);
    if (t === undefined) {
      t = new Map();
      this.tables.set(name, t);
    }
    return t;
  }

  #row(table: string, keyHex: string, cols: readonly Buffer[] | undefined, time: { from: number; to: number } | undefined): Row | null {
    const cells = this.#table(table).get(keyHex);
    if (cells === undefined) return null;
    const out: Cell[] = [];
    for (const [colHex, c] of [...cells.entries()].sort(([a], [b]) => a.localeCompare(b))) {
      const col = Buffer.from(colHex, 'hex');
      const { family, qualifier } = splitColumn(col);
      if (cols !== undefined && !cols.some((f) => f.equals(family) || f.equals(col))) continue;
      if (time !== undefined && (c.timestamp < time.from || c.timestamp >= time.to)) continue;
      out.push({ column: col, family, qualifier, timestamp: c.timestamp, value: c.value });
    }
    return out.length === 0 ? null : { row: Buffer.from(keyHex, 'hex'), cells: out };
  }

  scan(table: string, opts: ScanOptions = {}): AsyncGenerator<Row, void, undefined> {
    this.calls.scan++;
    const keys = [...this.#table(table).keys()].sort((a, b) => Buffer.compare(Buffer.from(a, 'hex'), Buffer.from(b, 'hex')));
    const start = opts.startRow ?? Buffer.alloc(0);
    const stop = opts.stopRow ?? Buffer.alloc(0);
    const rows: Row[] = [];
    for (const k of keys) {
      const key = Buffer.from(k, 'hex');
      if (key.compare(start) < 0 || (stop.length > 0 && key.compare(stop) >= 0)) continue;
      const r = this.#row(table, k, opts.columns, opts.timeRange);
      if (r !== null) rows.push(r);
      if (opts.limit !== undefined && rows.length >= opts.limit) break;
    }
    return (async function* () {
      await Promise.resolve();
      yield* rows;
    })();
  }

  multiGet(table: string, rows: readonly Buffer[], opts: { columns?: readonly Buffer[] } = {}): Promise<(Row | null)[]> {
    this.calls.multiGet++;
    return Promise.resolve(rows.map((r) => this.#row(table, r.toString('hex'), opts.columns, undefined)));
  }

  put(table: string, rows: readonly RowCells[]): Promise<void> {
    this.calls.put++;
    const t = this.#table(table);
    for (const r of rows) {
      const k = r.row.toString('hex');
      const cells = t.get(k) ?? new Map<string, StoredCell>();
      for (const c of r.cells) cells.set(c.column.toString('hex'), { value: c.value, timestamp: c.timestamp ?? Date.now() });
      t.set(k, cells);
    }
    return Promise.resolve();
  }

  deleteRow(table: string, row: Buffer, opts: { columns?: readonly Buffer[] } = {}): Promise<void> {
    this.calls.deleteRow++;
    const t = this.#table(table);
    const k = row.toString('hex');
    if (opts.columns === undefined) {
      t.delete(k);
      return Promise.resolve();
    }
    const cells = t.get(k);
    for (const c of opts.columns) cells?.delete(c.toString('hex'));
    if (cells?.size === 0) t.delete(k);
    return Promise.resolve();
  }

  /** Writes DataRows (as built by the ingest's planners). */
  putRows(table: string, rows: readonly DataRow[]): void {
    void this.put(table, rows.map((r) => ({ row: r.key, cells: r.cells.map((c) => ({ column: column(c.family, c.qualifier), value: c.value, timestamp: c.timestamp })) })));
  }

  /** Every row of a table as `keyHex → sorted qualifiers` (a comparable snapshot). */
  snapshot(table: string): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const [k, cells] of this.#table(table)) {
      out.set(k, [...cells.keys()].map((c) => splitColumn(Buffer.from(c, 'hex')).qualifier.toString('utf8')).sort());
    }
    return new Map([...out.entries()].sort(([a], [b]) => a.localeCompare(b)));
  }
}
