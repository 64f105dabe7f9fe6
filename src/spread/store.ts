/**
 * The spread registry in the meta table (rows.ts), through a small port of the HBase REST client.
 * An entry is only ever changed by check-and-put on the bytes last read, so two instances (or an
 * instance and `tsingest spread set`) that change one id at once cannot both win: the loser reads
 * the entry again and decides anew (`update`). Entries are never deleted (K never shrinks).
 */
import { ServiceError, type CauseOptions } from '../errors.ts';
import { column } from '../hbase/codec.ts';
import type { CheckedPut, Row, RowCells, ScanOptions } from '../hbase/index.ts';
import { decodeEntry, encodeEntry, type SpreadEntry } from '../keys/index.ts';
import { decodeLoad, encodeLoad, type LoadReport } from './load.ts';
import { ENTRY_QUALIFIER, ENTRY_RANGE, LOAD_QUALIFIER, LOAD_RANGE, entryRow, idOfEntryRow, loadRow } from './rows.ts';

/** The HBase calls the registry makes (the REST client fits; unit tests pass a fake). */
export interface RegistryPort {
  scan(table: string, options: ScanOptions): AsyncIterable<Row>;
  get(table: string, row: Buffer, options: { readonly columns?: readonly Buffer[] }): Promise<Row | null>;
  put(table: string, rows: readonly RowCells[]): Promise<void>;
  checkAndPut(table: string, put: CheckedPut): Promise<boolean>;
  deleteRow(table: string, row: Buffer): Promise<void>;
}

export interface StoredEntry {
  readonly entry: SpreadEntry;
  /** the cell bytes as read: what a check-and-put compares */
  readonly raw: Buffer;
}

export interface RegistryStoreOptions {
  readonly table: string;
  readonly family: string;
  /** B: entries are checked against it (K ≤ B) */
  readonly buckets: number;
  /** check-and-put attempts of one update before it gives up (each conflict re-reads the entry) */
  readonly maxAttempts?: number;
}

/**
 * An update lost its check-and-put race more often than it tries: the entry keeps changing under it.
 * Transient (HBase answered every time): the caller tries the update again; on the ingest path the
 * outage policy does, so a race on a hot id's fence never stops the service.
 */
export class RegistryConflictError extends ServiceError {
  override readonly name = 'RegistryConflictError';

  constructor(message: string, options: CauseOptions = {}) {
    super({ code: 'REGISTRY_CONFLICT', message, retriable: true, fatal: false, cause: options.cause });
  }
}

export class RegistryStore {
  readonly #port: RegistryPort;
  readonly #o: RegistryStoreOptions;
  readonly #entryColumn: Buffer;
  readonly #loadColumn: Buffer;

  constructor(port: RegistryPort, options: RegistryStoreOptions) {
    this.#port = port;
    this.#o = options;
    this.#entryColumn = column(options.family, ENTRY_QUALIFIER);
    this.#loadColumn = column(options.family, LOAD_QUALIFIER);
  }

  get table(): string {
    return this.#o.table;
  }

  #decode(raw: Buffer): SpreadEntry {
    return decodeEntry(raw, this.#o.buckets);
  }

  /** Every entry (one short scan of the registry rows). */
  async entries(): Promise<Map<string, StoredEntry>> {
    const out = new Map<string, StoredEntry>();
    for await (const row of this.#port.scan(this.#o.table, { ...ENTRY_RANGE, columns: [this.#entryColumn] })) {
      const id = idOfEntryRow(row.row);
      const cell = row.cells.find((c) => c.column.equals(this.#entryColumn));
      if (id === undefined || cell === undefined) continue;
      out.set(id, { entry: this.#decode(cell.value), raw: cell.value });
    }
    return out;
  }

  /** One id's entry as it is now, or undefined. */
  async entry(id: string): Promise<StoredEntry | undefined> {
    const row = await this.#port.get(this.#o.table, entryRow(id), { columns: [this.#entryColumn] });
    const cell = row?.cells.find((c) => c.column.equals(this.#entryColumn));
    return cell === undefined ? undefined : { entry: this.#decode(cell.value), raw: cell.value };
  }

  /** Puts `next` iff the entry still holds `expected` (null: there is none); false when it changed. */
  swap(id: string, expected: Buffer | null, next: SpreadEntry): Promise<boolean> {
    const value = encodeEntry(next);
    const cells = [{ column: this.#entryColumn, value }];
    return this.#port.checkAndPut(this.#o.table, { row: entryRow(id), cells, check: { column: this.#entryColumn, value: expected } });
  }

  /**
   * Read → change → check-and-put, again on conflict. `change` returns the new entry, or undefined
   * when the current one needs no change (then nothing is written). `known` is the entry the caller
   * already holds (a snapshot: a stale one only costs a conflict and a re-read).
   */
  async update(
    id: string,
    change: (current: SpreadEntry | undefined) => SpreadEntry | undefined,
    known?: StoredEntry | null,
  ): Promise<{ stored: StoredEntry | undefined; changed: boolean }> {
    let stored = known === undefined ? await this.entry(id) : (known ?? undefined);
    const attempts = this.#o.maxAttempts ?? 10;
    for (let attempt = 0; attempt < attempts; attempt++) {
      const next = change(stored?.entry);
      if (next === undefined) return { stored, changed: false };
      if (await this.swap(id, stored?.raw ?? null, next)) return { stored: { entry: next, raw: encodeEntry(next) }, changed: true };
      stored = await this.entry(id);
    }
    throw new RegistryConflictError(`spread registry entry of ${JSON.stringify(id)} kept changing under ${attempts} check-and-put attempts`);
  }

  async putLoad(r: LoadReport): Promise<void> {
    await this.#port.put(this.#o.table, [{ row: loadRow(r.instance), cells: [{ column: this.#loadColumn, value: encodeLoad(r) }] }]);
  }

  /** Every instance's load report (damaged or unknown ones skipped). */
  async loads(): Promise<LoadReport[]> {
    const out: LoadReport[] = [];
    for await (const row of this.#port.scan(this.#o.table, { ...LOAD_RANGE, columns: [this.#loadColumn] })) {
      const cell = row.cells.find((c) => c.column.equals(this.#loadColumn));
      const r = cell === undefined ? undefined : decodeLoad(cell.value);
      if (r !== undefined) out.push(r);
    }
    return out;
  }

  async deleteLoad(instance: string): Promise<void> {
    await this.#port.deleteRow(this.#o.table, loadRow(instance));
  }
}
