// Writes a batch plan to HBase: every data row first, then every index row, in chunks through one
// shared bounded queue (p-queue), each chunk retried while its errors are retriable. Resolves only
// when HBase acknowledged everything it returns as written; rows HBase refuses as malformed (400)
// are isolated by bisection and handed back for the DLQ instead of blocking the stream.
import type PQueue from 'p-queue';
import type { DataRow } from '../events/index.ts';
import { chunkRows, rowBytes, type BatchPlan, type PlannedEvent, type Rejected } from './batch-plan.ts';
import { retrying, type RetryHooks } from './retry.ts';
import type { RollupMarks } from './rollup-marks.ts';

export interface RowCellsLike {
  readonly row: Buffer;
  readonly cells: readonly { readonly column: Buffer; readonly value: Buffer; readonly timestamp?: number }[];
}

/** The one HBase operation the writer needs (HBaseRestClient.put fits). */
export interface RowSink {
  put(table: string, rows: readonly RowCellsLike[]): Promise<void>;
}

export interface WriteObserver {
  written(table: string, keys: readonly Buffer[], seconds: number): void;
  failed(table: string, err: unknown, seconds: number): void;
  retried(table: string, err: unknown): void;
  queued(deltaRows: number): void;
}

export interface DualWriterOptions {
  readonly sink: RowSink;
  readonly queue: PQueue;
  readonly tables: { readonly data: string; readonly index: string };
  readonly chunk: { readonly maxRows: number; readonly maxBytes: number };
  readonly retry: { readonly baseMs: number; readonly maxMs: number; readonly outageDeadlineMs: number };
  readonly isRetriable: (err: unknown) => boolean;
  /** a malformed-request error (HTTP 400): the rows, not the service, are at fault */
  readonly isRowRejection: (err: unknown) => boolean;
  readonly observer: WriteObserver;
  /** Rollup markers: written with the index rows, after the data rows (omitted = rollups off). */
  readonly marks?: { readonly table: string; readonly planner: RollupMarks } | undefined;
  readonly hooks?: RetryHooks;
  readonly signal?: AbortSignal;
}

interface Entry {
  readonly event: PlannedEvent;
  readonly row: DataRow;
}

export function toRowCells(row: DataRow): RowCellsLike {
  return {
    row: row.key,
    cells: row.cells.map((c) => ({
      column: Buffer.concat([Buffer.from(`${c.family}:`, 'utf8'), c.qualifier]),
      value: c.value,
      timestamp: c.timestamp,
    })),
  };
}

export class DualWriter {
  readonly #o: DualWriterOptions;

  constructor(options: DualWriterOptions) {
    this.#o = options;
  }

  /** Returns the events HBase refused (to dead-letter); all others are acknowledged in every table. */
  async write(plan: BatchPlan): Promise<Rejected[]> {
    const refused = new Map<PlannedEvent, Rejected>();
    const data = plan.events.map((event) => ({ event, row: event.dataRow }));
    await this.#writeAll(this.#o.tables.data, data, refused);
    // Index rows and rollup markers only for events whose data rows are acknowledged: a marker must
    // never exist before the data it announces (the job could roll up without it and delete the mark).
    const written = plan.events.filter((e) => !refused.has(e));
    const index = written.flatMap((event) => event.indexRows.map((row) => ({ event, row })));
    await Promise.all([this.#writeAll(this.#o.tables.index, index, refused), this.#writeMarks(written)]);
    return [...refused.values()];
  }

  async #writeMarks(events: readonly PlannedEvent[]): Promise<void> {
    const marks = this.#o.marks;
    const first = events[0];
    if (marks === undefined || first === undefined) return;
    const rows = marks.planner.rowsFor(events);
    // A marker row stands for many events; HBase refusing one is not any event's fault, so it is not
    // bisected into the DLQ: the error fails the unit (uncommitted, replayed).
    await this.#writeAll(marks.table, rows.map((m) => ({ event: first, row: m.row })), new Map(), false);
    marks.planner.acknowledged(rows);
  }

  async #writeAll(table: string, entries: readonly Entry[], refused: Map<PlannedEvent, Rejected>, bisect = true): Promise<void> {
    if (entries.length === 0) return;
    const chunks = chunkRows(entries, this.#o.chunk.maxRows, this.#o.chunk.maxBytes, (e) => rowBytes(e.row));
    const { queue, observer } = this.#o;
    observer.queued(entries.length);
    try {
      await Promise.all(
        chunks.map((chunk) =>
          queue.add(async () => {
            try {
              await this.#writeChunk(table, chunk, refused, bisect);
            } finally {
              observer.queued(-chunk.length);
            }
          }, { signal: this.#o.signal }),
        ),
      );
    } catch (err) {
      // queue.add rejects for aborted tasks that never ran: their rows were never counted down.
      if (this.#o.signal?.aborted === true) observer.queued(-queue.size);
      throw err;
    }
  }

  async #writeChunk(table: string, chunk: readonly Entry[], refused: Map<PlannedEvent, Rejected>, bisect: boolean): Promise<void> {
    const { observer } = this.#o;
    try {
      await retrying(
        async () => {
          const t0 = performance.now();
          try {
            await this.#o.sink.put(table, chunk.map((e) => toRowCells(e.row)));
            observer.written(table, chunk.map((e) => e.row.key), (performance.now() - t0) / 1000);
          } catch (err) {
            observer.failed(table, err, (performance.now() - t0) / 1000);
            throw err;
          }
        },
        {
          ...this.#o.retry,
          isRetriable: this.#o.isRetriable,
          signal: this.#o.signal,
          hooks: {
            ...this.#o.hooks,
            onRetry: (err, attempt, delay) => {
              observer.retried(table, err);
              this.#o.hooks?.onRetry?.(err, attempt, delay);
            },
          },
        },
      );
    } catch (err) {
      if (!bisect || !this.#o.isRowRejection(err)) throw err;
      if (chunk.length === 1) {
        const event = (chunk[0] as Entry).event;
        refused.set(event, {
          record: event.record,
          reason: 'hbase_rejected',
          detail: `hbase_rejected: ${table} refused the row: ${(err as Error).message}`.slice(0, 512),
        });
        return;
      }
      const mid = Math.ceil(chunk.length / 2);
      await this.#writeChunk(table, chunk.slice(0, mid), refused, bisect);
      await this.#writeChunk(table, chunk.slice(mid), refused, bisect);
    }
  }
}
