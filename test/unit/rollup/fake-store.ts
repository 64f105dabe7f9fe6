// An in-memory stand-in for the rollup job's HBase port (RollupStore), for unit tests of the job's
// logic only: rows sorted by key, one version per column (VERSIONS 1: the newest timestamp wins),
// scans with start/stop row, limit, cell time range and MultiRowRangeFilter, check-and-delete (a family
// up to a timestamp, or one version of a column).
import type { CheckSpec, DeleteCell, Row, ScanOptions } from '../../../src/hbase/index.ts';
import type { PutRow } from '../../../src/rollup/fold.ts';
import type { RollupStore } from '../../../src/rollup/store.ts';

interface StoredCell { value: Buffer; timestamp: number }

const COLON = 0x3a;

/** A MultiRowRangeFilter (the one filter the rollup code uses) as a key test; other filters are not modelled. */
function rangeFilter(filter: ScanOptions['filter']): (key: Buffer) => boolean {
  if (filter === undefined || typeof filter === 'string' || filter.type !== 'MultiRowRangeFilter') return () => true;
  const { ranges } = filter;
  return (key) => ranges.some((r) => {
    const afterStart = Buffer.compare(key, r.startRow) > 0 || (Buffer.compare(key, r.startRow) === 0 && r.startRowInclusive !== false);
    const c = Buffer.compare(key, r.stopRow);
    const beforeStop = r.stopRow.length === 0 || c < 0 || (c === 0 && r.stopRowInclusive === true);
    return afterStart && beforeStop;
  });
}

export class FakeStore implements RollupStore {
  readonly tables = new Map<string, Map<string, Map<string, StoredCell>>>();
  /** fails the next calls whose `op:table` matches */
  readonly failures: { op: string; table: string; times: number }[] = [];
  clock = 1_000_000;
  calls: string[] = [];

  readonly #sorted = new Map<string, { hex: string; key: Buffer }[]>();

  /** keys of a table in order (cached until a row is added or removed) */
  #keys(table: string): { hex: string; key: Buffer }[] {
    let keys = this.#sorted.get(table);
    if (keys === undefined) {
      keys = [...this.#table(table).keys()].map((hex) => ({ hex, key: Buffer.from(hex, 'hex') })).sort((a, b) => Buffer.compare(a.key, b.key));
      this.#sorted.set(table, keys);
    }
    return keys;
  }

  #table(name: string): Map<string, Map<string, StoredCell>> {
    let t = this.tables.get(name);
    if (t === undefined) this.tables.set(name, (t = new Map<string, Map<string, StoredCell>>()));
    return t;
  }

  #maybeFail(op: string, table: string): void {
    this.calls.push(`${op}:${table}`);
    const f = this.failures.find((x) => x.op === op && x.table === table && x.times > 0);
    if (f !== undefined) {
      f.times--;
      throw new Error(`injected ${op} failure on ${table}`);
    }
  }

  async *scan(table: string, opts: ScanOptions): AsyncGenerator<Row> {
    this.#maybeFail('scan', table);
    await Promise.resolve();
    const keys = this.#keys(table);
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (opts.startRow !== undefined && Buffer.compare((keys[mid] as { key: Buffer }).key, opts.startRow) < 0) lo = mid + 1;
      else hi = mid;
    }
    let n = 0;
    const inRanges = rangeFilter(opts.filter);
    for (const { hex, key } of keys.slice(lo)) {
      if (opts.stopRow !== undefined && opts.stopRow.length > 0 && Buffer.compare(key, opts.stopRow) >= 0) break;
      if (!inRanges(key)) continue;
      const cols = this.#table(table).get(hex) ?? new Map<string, StoredCell>();
      const cells = [...cols.entries()]
        .sort(([a], [b]) => Buffer.compare(Buffer.from(a, 'hex'), Buffer.from(b, 'hex')))
        .filter(([, c]) => opts.timeRange === undefined || (c.timestamp >= opts.timeRange.from && c.timestamp < opts.timeRange.to))
        .map(([col, c]) => {
          const column = Buffer.from(col, 'hex');
          const i = column.indexOf(COLON);
          return { column, family: column.subarray(0, i), qualifier: column.subarray(i + 1), timestamp: c.timestamp, value: c.value };
        });
      if (cells.length === 0) continue;
      yield { row: key, cells };
      if (opts.limit !== undefined && ++n >= opts.limit) return;
    }
  }

  put(table: string, rows: readonly PutRow[]): Promise<void> {
    this.#maybeFail('put', table);
    const t = this.#table(table);
    for (const r of rows) {
      const hex = r.row.toString('hex');
      let cols = t.get(hex);
      if (cols === undefined) {
        t.set(hex, (cols = new Map<string, StoredCell>()));
        this.#sorted.delete(table);
      }
      for (const c of r.cells) {
        const ts = c.timestamp ?? this.clock++;
        const old = cols.get(c.column.toString('hex'));
        if (old === undefined || old.timestamp <= ts) cols.set(c.column.toString('hex'), { value: Buffer.from(c.value), timestamp: ts });
      }
    }
    return Promise.resolve();
  }

  checkAndDelete(table: string, row: Buffer, check: CheckSpec, deleteCells: readonly DeleteCell[] = []): Promise<boolean> {
    this.#maybeFail('checkAndDelete', table);
    const cols = this.#table(table).get(row.toString('hex'));
    const cell = cols?.get(check.column.toString('hex'));
    // a null value checks that the cell is absent (HBase: an empty value matches a missing column)
    const holds = check.value === null ? cell === undefined : cell !== undefined && cell.value.equals(check.value);
    if (!holds) return Promise.resolve(false);
    if (cols === undefined) return Promise.resolve(true);
    for (const d of deleteCells) {
      if (!d.column.includes(COLON)) {
        // a family: every column of it up to the timestamp
        const prefix = Buffer.concat([d.column, Buffer.from(':')]).toString('hex');
        for (const [col, c] of [...cols]) if (col.startsWith(prefix) && (d.timestamp === undefined || c.timestamp <= d.timestamp)) cols.delete(col);
        continue;
      }
      const c = cols.get(d.column.toString('hex'));
      if (c !== undefined && (d.timestamp === undefined || d.timestamp === c.timestamp)) cols.delete(d.column.toString('hex'));
    }
    if (cols.size === 0) {
      this.#table(table).delete(row.toString('hex'));
      this.#sorted.delete(table);
    }
    return Promise.resolve(true);
  }

  rows(table: string): { key: Buffer; cells: { qualifier: Buffer; value: Buffer; timestamp: number }[] }[] {
    return [...this.#table(table).entries()]
      .sort(([a], [b]) => Buffer.compare(Buffer.from(a, 'hex'), Buffer.from(b, 'hex')))
      .map(([hex, cols]) => ({
        key: Buffer.from(hex, 'hex'),
        cells: [...cols.entries()].map(([col, c]) => {
          const column = Buffer.from(col, 'hex');
          return { qualifier: column.subarray(column.indexOf(COLON) + 1), value: c.value, timestamp: c.timestamp };
        }),
      }));
  }

  /** A deep copy (to run two computations on the same data). */
  clone(): FakeStore {
    const c = new FakeStore();
    for (const [name, t] of this.tables) c.tables.set(name, new Map([...t].map(([k, cols]) => [k, new Map([...cols].map(([q, v]) => [q, { ...v }]))])));
    return c;
  }
}
