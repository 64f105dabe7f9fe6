// One in-memory HBase for unit tests (not a test file itself), typed against every port the
// production code defines over the REST client, so a port change that it does not follow fails to
// compile. Tables of rows kept in unsigned byte order; one version per column (VERSIONS 1: the newest
// timestamp wins, a tie goes to the later write); cells returned in family, then qualifier order.
//  - scan: [startRow, stopRow) (an empty stop row = to the end), `columns` (a family or one column),
//    `timeRange` [from, to), `limit` rows, MultiRowRangeFilter (also inside a MUST_PASS_ALL
//    FilterList) and FirstKeyOnlyFilter; other filters are not modelled (every row passes). The row
//    keys are listed when the scanner opens (its first step); a row is read when the scan reaches
//    it, and one deleted by then is skipped. Each row yielded is a scanner step that waits for the
//    event loop (`active` / `maxActive` gauge them).
//  - checkAndPut / checkAndDelete: atomic; a null check value holds when the cell is absent or empty
//    (HBase compares an empty value so). `beforeCheck` runs first: a concurrent writer's moment.
//  - every port call is logged in `calls` (op, table, row) before it runs; `fail()` makes the next
//    matching calls fail (a scan when it opens, other calls as a rejected promise).
import { setImmediate as tick } from 'node:timers/promises';
import {
  column as columnOf,
  splitColumn,
  type Cell,
  type CheckedDelete,
  type CheckedPut,
  type CheckSpec,
  type Row,
  type RowCells,
  type ScanOptions,
} from '../../src/hbase/index.ts';
import type { IndexStore } from '../../src/index-tools/index.ts';
import type { QueryStore } from '../../src/reads-v1/index.ts';
import type { RollupStore } from '../../src/rollup/index.ts';
import type { RegistryPort } from '../../src/spread/index.ts';

export type Op = 'scan' | 'get' | 'multiGet' | 'put' | 'checkAndPut' | 'checkAndDelete' | 'deleteRow';

export interface Call {
  readonly op: Op;
  readonly table: string;
  /** the row of a row call; a scan's start row (empty: from the start); a multi-row call's first row */
  readonly row: Buffer;
}

/** Fails the next `times` (default 1) calls matching `op` and `table` (omitted: any). */
export interface Fault {
  readonly op?: Op;
  readonly table?: string;
  times?: number;
  /** default: `injected <op> failure on <table>` */
  readonly error?: Error;
}

/** A cell as the ingest builds them (DataCell): family name, qualifier; no timestamp = the fake's clock. */
export interface SeedCell {
  readonly family: string;
  readonly qualifier: Buffer;
  readonly value: Buffer;
  readonly timestamp?: number;
}

type Columns = { readonly columns?: readonly Buffer[] };
type Stored = Map<string, Cell>; // column (latin1: one char per byte) → newest cell
type Table = { rows: Map<string, Stored>; sorted: Buffer[] | undefined };

const key = (b: Buffer): string => b.toString('latin1');
const byColumn = (a: Cell, b: Cell): number => Buffer.compare(a.family, b.family) || Buffer.compare(a.qualifier, b.qualifier);

/** A family entry (no colon) selects the family, `family:qualifier` one column. */
function selects(columns: readonly Buffer[] | undefined, c: Cell): boolean {
  return columns === undefined || columns.length === 0 || columns.some((col) => (col.includes(0x3a) ? col.equals(c.column) : col.equals(c.family)));
}

function rowFilter(filter: ScanOptions['filter']): (row: Buffer) => boolean {
  if (typeof filter === 'object' && filter.type === 'FilterList' && filter.op === 'MUST_PASS_ALL') {
    const all = filter.filters.map((f) => rowFilter(f));
    return (row) => all.every((f) => f(row));
  }
  if (typeof filter !== 'object' || filter.type !== 'MultiRowRangeFilter') return () => true;
  return (row) =>
    filter.ranges.some((r) => {
      const start = Buffer.compare(row, r.startRow);
      const stop = Buffer.compare(row, r.stopRow);
      return (
        (start > 0 || (start === 0 && r.startRowInclusive !== false)) && (r.stopRow.length === 0 || stop < 0 || (stop === 0 && r.stopRowInclusive === true))
      );
    });
}

export class FakeHBase implements QueryStore, RollupStore, IndexStore, RegistryPort {
  readonly calls: Call[] = [];
  /** scanner steps under way now / at most at once */
  active = 0;
  maxActive = 0;
  /** runs at the start of every check-and-mutate, before the check */
  beforeCheck: (() => void) | undefined;
  /** the timestamp of cells written without one (then +1) */
  clock: number;
  readonly #faults: Fault[] = [];
  readonly #tables = new Map<string, Table>();

  constructor(clock = Date.now()) {
    this.clock = clock;
  }

  fail(fault: Fault): void {
    this.#faults.push({ times: 1, ...fault });
  }

  /** Calls made of `op` (on `table`). */
  count(op: Op, table?: string): number {
    return this.calls.filter((c) => c.op === op && (table === undefined || c.table === table)).length;
  }

  // ---- the ports ----

  scan(table: string, opts: ScanOptions = {}): AsyncGenerator<Row, void, undefined> {
    const fault = this.#call('scan', table, opts.startRow);
    return this.#scan(table, opts, fault);
  }

  get(table: string, row: Buffer, opts: Columns = {}): Promise<Row | null> {
    return this.#run('get', table, row, () => this.#read(table, row, opts.columns));
  }

  multiGet(table: string, rows: readonly Buffer[], opts: Columns = {}): Promise<(Row | null)[]> {
    return this.#run('multiGet', table, rows[0], () => rows.map((r) => this.#read(table, r, opts.columns)));
  }

  put(table: string, rows: readonly RowCells[]): Promise<void> {
    return this.#run('put', table, rows[0]?.row, () => {
      for (const r of rows) this.#write(table, r.row, r.cells);
    });
  }

  checkAndPut(table: string, { row, cells, check }: CheckedPut): Promise<boolean> {
    return this.#run('checkAndPut', table, row, () =>
      this.#checked(table, row, check, () => {
        this.#write(table, row, cells);
      }),
    );
  }

  /** deleteCells: a family → its cells up to `timestamp` (default all); a column → the cell if at
   * `timestamp` (default: any). None: the check column (as the gateway does). */
  checkAndDelete(table: string, { row, check, deleteCells = [] }: CheckedDelete): Promise<boolean> {
    return this.#run('checkAndDelete', table, row, () =>
      this.#checked(table, row, check, () => {
        const specs = deleteCells.length > 0 ? deleteCells : [{ column: check.column }];
        this.#remove(table, row, (c) =>
          specs.some((d) =>
            d.column.includes(0x3a)
              ? d.column.equals(c.column) && (d.timestamp === undefined || d.timestamp === c.timestamp)
              : d.column.equals(c.family) && (d.timestamp === undefined || c.timestamp <= d.timestamp),
          ),
        );
      }),
    );
  }

  /** The whole row, or only `columns` (families or single columns); with `timestamp`, only the cells
   * at or before it (the gateway's `/<ts>`: a marker at ts). Without, every cell (not modelled: the
   * gateway's marker at its now, which leaves cells of a later timestamp). */
  deleteRow(table: string, row: Buffer, opts: Columns & { readonly timestamp?: number } = {}): Promise<void> {
    return this.#run('deleteRow', table, row, () => {
      this.#remove(table, row, (c) => selects(opts.columns, c) && (opts.timestamp === undefined || c.timestamp <= opts.timestamp));
    });
  }

  // ---- for tests: writes and reads that are not port calls (not logged, never failed) ----

  seed(table: string, row: Buffer, cells: readonly SeedCell[]): void {
    this.#write(
      table,
      row,
      cells.map((c) => ({ column: columnOf(c.family, c.qualifier), value: c.value, timestamp: c.timestamp })),
    );
  }

  /** Every row of the table, in key order. */
  rows(table: string): Row[] {
    return this.#keys(table)
      .map((k) => this.#read(table, k, undefined))
      .filter((r): r is Row => r !== null);
  }

  has(table: string, row: Buffer): boolean {
    return this.#table(table).rows.has(key(row));
  }

  /** Every row of a table as `keyHex → sorted qualifiers` (a comparable snapshot). */
  snapshot(table: string): Map<string, string[]> {
    return new Map(this.rows(table).map((r) => [r.row.toString('hex'), r.cells.map((c) => c.qualifier.toString('utf8')).sort()]));
  }

  /** A copy of the data (the clock too; not the calls, faults or hook). */
  clone(): FakeHBase {
    const c = new FakeHBase(this.clock);
    for (const [name, t] of this.#tables) for (const [k, cells] of t.rows) c.#table(name).rows.set(k, new Map(cells));
    return c;
  }

  // ---- inside ----

  #table(name: string): Table {
    let t = this.#tables.get(name);
    if (t === undefined) this.#tables.set(name, (t = { rows: new Map(), sorted: undefined }));
    return t;
  }

  /** The row keys in unsigned byte order (a fresh array after each row added or removed). */
  #keys(table: string): Buffer[] {
    const t = this.#table(table);
    t.sorted ??= [...t.rows.keys()].map((k) => Buffer.from(k, 'latin1')).sort((a, b) => Buffer.compare(a, b));
    return t.sorted;
  }

  /** Logs the call and takes the fault it meets, if any. */
  #call(op: Op, table: string, row: Buffer | undefined): Error | undefined {
    this.calls.push({ op, table, row: row ?? Buffer.alloc(0) });
    const f = this.#faults.find((x) => (x.op === undefined || x.op === op) && (x.table === undefined || x.table === table) && (x.times ?? 0) > 0);
    if (f === undefined) return undefined;
    f.times = (f.times ?? 1) - 1;
    return f.error ?? new Error(`injected ${op} failure on ${table}`);
  }

  #run<T>(op: Op, table: string, row: Buffer | undefined, body: () => T): Promise<T> {
    const fault = this.#call(op, table, row);
    if (fault !== undefined) return Promise.reject(fault);
    return Promise.resolve(body());
  }

  #checked(table: string, row: Buffer, check: CheckSpec, mutate: () => void): boolean {
    this.beforeCheck?.();
    const cell = this.#table(table).rows.get(key(row))?.get(key(check.column));
    const holds = check.value === null || check.value.length === 0 ? cell === undefined || cell.value.length === 0 : cell?.value.equals(check.value) === true;
    if (holds) mutate();
    return holds;
  }

  async *#scan(table: string, opts: ScanOptions, fault: Error | undefined): AsyncGenerator<Row, void, undefined> {
    await Promise.resolve();
    if (fault !== undefined) throw fault;
    const keys = this.#keys(table);
    const start = opts.startRow ?? Buffer.alloc(0);
    let lo = 0;
    for (let hi = keys.length; lo < hi;) {
      const mid = (lo + hi) >> 1;
      if (Buffer.compare(keys[mid] as Buffer, start) < 0) lo = mid + 1;
      else hi = mid;
    }
    const inRanges = rowFilter(opts.filter);
    const firstKeyOnly = typeof opts.filter === 'object' && opts.filter.type === 'FirstKeyOnlyFilter';
    let n = 0;
    for (const k of keys.slice(lo)) {
      if (opts.stopRow !== undefined && opts.stopRow.length > 0 && Buffer.compare(k, opts.stopRow) >= 0) return;
      if (!inRanges(k)) continue;
      const row = this.#read(table, k, opts.columns, opts.timeRange);
      if (row === null) continue;
      if (firstKeyOnly) row.cells = row.cells.slice(0, 1);
      this.active++;
      this.maxActive = Math.max(this.maxActive, this.active);
      await tick();
      this.active--;
      yield row;
      if (opts.limit !== undefined && ++n >= opts.limit) return;
    }
  }

  /** A copy of the row's cells that pass the selection, or null when none does. */
  #read(table: string, row: Buffer, columns: readonly Buffer[] | undefined, time?: { from: number; to: number }): Row | null {
    const stored = this.#table(table).rows.get(key(row));
    const cells = [...(stored?.values() ?? [])]
      .filter((c) => selects(columns, c) && (time === undefined || (c.timestamp >= time.from && c.timestamp < time.to)))
      .sort(byColumn)
      .map((c) => ({ ...c }));
    return cells.length === 0 ? null : { row: Buffer.from(row), cells };
  }

  #write(table: string, row: Buffer, cells: readonly { readonly column: Buffer; readonly value: Buffer; readonly timestamp?: number | undefined }[]): void {
    const t = this.#table(table);
    let stored = t.rows.get(key(row));
    if (stored === undefined) {
      t.rows.set(key(row), (stored = new Map<string, Cell>()));
      t.sorted = undefined;
    }
    for (const c of cells) {
      const timestamp = c.timestamp ?? this.clock++;
      const old = stored.get(key(c.column));
      if (old !== undefined && old.timestamp > timestamp) continue;
      const { family, qualifier } = splitColumn(c.column);
      stored.set(key(c.column), {
        column: Buffer.from(c.column),
        family: Buffer.from(family),
        qualifier: Buffer.from(qualifier),
        timestamp,
        value: Buffer.from(c.value),
      });
    }
  }

  #remove(table: string, row: Buffer, doomed: (c: Cell) => boolean): void {
    const t = this.#table(table);
    const stored = t.rows.get(key(row));
    if (stored === undefined) return;
    for (const [k, c] of [...stored]) if (doomed(c)) stored.delete(k);
    if (stored.size > 0) return;
    t.rows.delete(key(row));
    t.sorted = undefined;
  }
}
