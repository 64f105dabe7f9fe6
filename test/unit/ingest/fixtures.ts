// Fakes for the ingest unit tests: plan settings, an in-memory row sink that can refuse rows or fail,
// and source records built from events.
import { resolveEventLimits, resolveFieldMapping } from '../../../src/events/index.ts';
import type { PlanSettings, SourceRecord } from '../../../src/ingest/batch-plan.ts';
import { Keyspace } from '../../../src/keys/index.ts';
import type { RowSink, WriteObserver, WrittenRow } from '../../../src/ingest/event-writer.ts';
import type { RowCellsLike } from '../../../src/hbase/row-cells.ts';

export const SETTINGS: PlanSettings = {
  mapping: resolveFieldMapping({}),
  limits: resolveEventLimits({ maxCellBytes: 4096 }),
  keyspace: new Keyspace({ buckets: 4, format: 'binary', indexSaltMode: 'entry' }),
  dataFamily: 'd',
  indexFamily: 'i',
  indexTags: ['site'],
};

export interface Put {
  readonly table: string;
  readonly rows: readonly RowCellsLike[];
}

/** Records every put; `refuse(row)` → HTTP-400-like error for chunks holding such a row. */
export class FakeSink implements RowSink {
  readonly puts: Put[] = [];
  readonly attempts: Put[] = [];
  refuse: (row: RowCellsLike) => boolean = () => false;
  /** thrown (once per entry) before anything else */
  failures: Error[] = [];
  /** deleteRow calls (the catalog journal's sweep) */
  readonly deletes: { table: string; row: string; timestamp: number }[] = [];

  deleteRow(table: string, row: Buffer, opts: { readonly timestamp: number }): Promise<void> {
    this.deletes.push({ table, row: row.toString('latin1'), timestamp: opts.timestamp });
    return Promise.resolve();
  }

  put(table: string, rows: readonly RowCellsLike[]): Promise<void> {
    this.attempts.push({ table, rows });
    const fail = this.failures.shift();
    if (fail !== undefined) return Promise.reject(fail);
    if (rows.some((r) => this.refuse(r))) return Promise.reject(new RowRefused('400 malformed row'));
    this.puts.push({ table, rows });
    return Promise.resolve();
  }

  keys(table: string): string[] {
    return this.puts.filter((p) => p.table === table).flatMap((p) => p.rows.map((r) => r.row.toString('hex')));
  }

  /** The ids marked in a rollup table's marker rows: their id cells' qualifiers (not 0x00-led). */
  markedIds(table: string): string[] {
    return this.puts
      .filter((p) => p.table === table)
      .flatMap((p) =>
        p.rows.flatMap((r) =>
          r.cells
            .map((c) => c.column.subarray(c.column.indexOf(0x3a) + 1))
            .filter((q) => q[0] !== 0x00)
            .map((q) => q.toString('utf8')),
        ),
      );
  }
}

export class RowRefused extends Error {
  override readonly name = 'RowRefused';
}

export class Transient extends Error {
  override readonly name = 'Transient';
}

export interface Recorded {
  readonly observer: WriteObserver;
  readonly written: { readonly table: string; readonly rows: readonly WrittenRow[] }[];
}

export function recordingObserver(): Recorded {
  const written: { table: string; rows: readonly WrittenRow[] }[] = [];
  return {
    written,
    observer: {
      written: (table, rows) => {
        written.push({ table, rows: [...rows] });
      },
      failed: () => undefined,
      retried: () => undefined,
    },
  };
}

export function record(offset: number, value: unknown): SourceRecord {
  return {
    offset: String(offset),
    key: null,
    value: value === null ? null : Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)),
    timestamp: '0',
  };
}

export function event(i: number, withSite = true): Record<string, unknown> {
  const e = { id: `dev-${i % 7}`, ts: 1_732_262_400_000 + i * 1000, metric: 'temp', value: i };
  return withSite ? { ...e, tags: { site: `s${i % 3}` } } : e;
}
