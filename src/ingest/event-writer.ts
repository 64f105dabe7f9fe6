// Writes a batch plan to HBase: data rows first, then index rows, rollup markers and catalog rows, in
// retried chunks; rows HBase refuses as malformed are isolated for the DLQ.
// Design notes: docs/DECISIONS.md#the-event-writer
import type PQueue from 'p-queue';
import { chunkRows, rowBytes, type BatchPlan, type PlannedEvent, type PlannedRow, type Rejected } from './batch-plan.ts';
import { toRowCells, type RowCellsLike } from '../hbase/row-cells.ts';
import type { OutagePolicy } from './outage-policy.ts';
import { RetryAbortedError } from '../toolkit/retry.ts';
import type { CatalogMarks, CatalogRow, JournalWrite } from '../catalog/marks.ts';
import type { RollupMarks } from './rollup-marks.ts';
import type { Touches } from './touches.ts';

/** The one HBase operation the writer needs (HBaseRestClient.put fits). */
export interface RowSink {
  put(table: string, rows: readonly RowCellsLike[]): Promise<void>;
  /** cells of a row stamped at or before `timestamp` deleted (the catalog journal's sweep; HBaseRestClient.deleteRow fits); absent: no sweep */
  deleteRow?(table: string, row: Buffer, opts: { readonly timestamp: number }): Promise<void>;
}

/** An acknowledged row: its key, the salt bucket it was planned in and the id of its event. */
export interface WrittenRow {
  readonly key: Buffer;
  readonly bucket: number;
  /** Set by the writer (a marker row: its first marked id), so nothing decodes it from the key. */
  readonly id?: string;
  /** the event's ts (a marker row: its id's first event in the unit) */
  readonly ts?: number;
}

export interface WriteObserver {
  written(table: string, rows: readonly WrittenRow[], seconds: number): void;
  failed(table: string, err: unknown, seconds: number): void;
  retried(table: string, err: unknown): void;
  /** Series catalog rows acknowledged (instead of `written`: they are no data, index or marker rows). */
  catalogWritten?(table: string, rows: number, seconds: number): void;
}

export interface EventWriterOptions {
  readonly sink: RowSink;
  readonly queue: PQueue;
  readonly tables: { readonly data: string; readonly index: string };
  readonly chunk: { readonly maxRows: number; readonly maxBytes: number };
  /** the ingest path's outage policy: retries, the outage watch, the shutdown signal */
  readonly policy: OutagePolicy;
  /** a malformed-request error (HTTP 400): the rows, not the service, are at fault */
  readonly isRowRejection: (err: unknown) => boolean;
  readonly observer: WriteObserver;
  /**
   * Rollup markers: written with the index rows, after the data rows (omitted = rollups off); with
   * `touches`, the touch rows of the tail cache in the same put (src/ingest/touches.ts).
   */
  readonly marks?: { readonly table: string; readonly planner: RollupMarks; readonly touches?: Touches | undefined } | undefined;
  /** Series catalog rows: written with the index rows, after the data rows (omitted = catalog off). */
  readonly catalog?: { readonly table: string; readonly planner: CatalogMarks } | undefined;
}

/** How a chunk's acknowledgement is reported: rows of the data/index/rollup tables, catalog rows, or not at all (the catalog's generation). */
type Report = 'rows' | 'catalog' | 'none';

interface Entry extends PlannedRow {
  readonly event: PlannedEvent;
}

/** How a table's rows are written: where refused events go, whether a refused chunk is bisected
 * down to its refused rows (else the error fails the unit), how acknowledgement is reported. */
interface WriteMode {
  readonly refused: Map<PlannedEvent, Rejected>;
  readonly bisect: boolean;
  readonly report: Report;
}

export class EventWriter {
  readonly #o: EventWriterOptions;

  constructor(options: EventWriterOptions) {
    this.#o = options;
  }

  /** Returns the events HBase refused (to dead-letter); all others are acknowledged in every table. */
  async write(plan: BatchPlan): Promise<Rejected[]> {
    const refused = new Map<PlannedEvent, Rejected>();
    const mode: WriteMode = { refused, bisect: true, report: 'rows' };
    const data = plan.events.map((event) => ({ event, ...event.data }));
    await this.#writeAll(this.#o.tables.data, data, mode);
    // Index rows and rollup markers only for events whose data rows are acknowledged: a marker must
    // never exist before the data it announces (the job could roll up without it and delete the mark).
    const written = plan.events.filter((e) => !refused.has(e));
    const index = written.flatMap((event) => event.index.map((r) => ({ event, ...r })));
    await Promise.all([this.#writeAll(this.#o.tables.index, index, mode), this.#writeMarks(written), this.#writeCatalog(written)]);
    return [...refused.values()];
  }

  async #writeCatalog(events: readonly PlannedEvent[]): Promise<void> {
    const catalog = this.#o.catalog;
    if (catalog === undefined || events.length === 0) return;
    const rows = catalog.planner.rowsFor(events);
    if (rows.length === 0) return; // the usual case: every series of the unit is known to be written
    const firstOf = new Map<string, PlannedEvent>();
    for (const e of events) if (!firstOf.has(e.id)) firstOf.set(e.id, e);
    const entries = rows.map((r: CatalogRow) => ({ event: firstOf.get(r.id) as PlannedEvent, row: r.row, bucket: 0 }));
    // Like a marker, a catalog row refused is not one event's fault: the unit fails (replayed). The
    // journal row goes with them (a reader whose generation changed reads it instead of every row).
    const journal = catalog.planner.journalRow(rows);
    const journalEntry = { event: entries[0]?.event as PlannedEvent, row: journal.row, bucket: 0 };
    await Promise.all([
      this.#writeAll(catalog.table, entries, { refused: new Map(), bisect: false, report: 'catalog' }),
      this.#writeAll(catalog.table, [journalEntry], { refused: new Map(), bisect: false, report: 'none' }),
      this.#sweepJournal(catalog, journal),
    ]);
    // then the catalog's generation, so a reader checking it before a query rereads what is new
    const bump = { event: entries[0]?.event as PlannedEvent, row: catalog.planner.generationRow(true), bucket: 0 };
    await this.#writeAll(catalog.table, [bump], { refused: new Map(), bisect: false, report: 'none' });
    catalog.planner.acknowledged(rows);
  }

  /**
   * Deletes a journal row's cells stamped before `before` (yesterday's, in a row reused daily). Its
   * cells of now are newer than that, so it runs beside their put. Best effort: a failure leaves old
   * cells a reader skips by their stamps, and the next write in that row tries again.
   */
  async #sweepJournal(catalog: NonNullable<EventWriterOptions['catalog']>, journal: JournalWrite): Promise<void> {
    const sink = this.#o.sink;
    if (journal.sweep === undefined || sink.deleteRow === undefined) return;
    try {
      await sink.deleteRow(catalog.table, journal.row.key, { timestamp: journal.sweep.before });
      catalog.planner.swept(journal);
    } catch {
      // best effort (above)
    }
  }

  async #writeMarks(events: readonly PlannedEvent[]): Promise<void> {
    const marks = this.#o.marks;
    if (marks === undefined || events.length === 0) return;
    const marked = marks.planner.rowsFor(events);
    // touch rows are stamped now, after the data rows were acknowledged: a reader that finds no touch
    // of an id stamped after its read knows no row of the id became visible since
    const touched = marks.touches?.rowsFor(events);
    if (marked.length === 0 && touched === undefined) return; // (no touch: no recent event, or every id touched lately)
    // A marker row (one per bucket and window) is paired with the first event of its first id; its
    // bucket is its key's salt byte (an id's base bucket, also for a spread id).
    const firstOf = new Map<string, PlannedEvent>();
    for (const e of events) if (!firstOf.has(e.id)) firstOf.set(e.id, e);
    const planned = marked.map((mark) => {
      const first = firstOf.get(mark.ids[0] as string) as PlannedEvent;
      return { mark, entry: { event: first, row: mark.row, bucket: mark.row.key[0] as number } };
    });
    // A marker row stands for many events; HBase refusing one is not any event's fault, so it is not
    // bisected into the DLQ: the error fails the unit (uncommitted, replayed).
    const touchRows = (touched?.rows ?? []).map((row) => ({ event: events[0] as PlannedEvent, row, bucket: row.key[0] as number }));
    await Promise.all([
      this.#writeAll(
        marks.table,
        planned.map((p) => p.entry),
        { refused: new Map(), bisect: false, report: 'rows' },
      ),
      this.#writeAll(marks.table, touchRows, { refused: new Map(), bisect: false, report: 'none' }),
    ]);
    marks.planner.acknowledged(planned.map((p) => p.mark));
    if (touched !== undefined) marks.touches?.acknowledged(touched);
  }

  async #writeAll(table: string, entries: readonly Entry[], mode: WriteMode): Promise<void> {
    if (entries.length === 0) return;
    const chunks = chunkRows(entries, this.#o.chunk.maxRows, this.#o.chunk.maxBytes, (e) => rowBytes(e.row));
    const { queue, policy } = this.#o;
    await Promise.all(chunks.map((chunk) => queue.add(() => this.#writeChunk(table, chunk, mode), { signal: policy.signal })));
  }

  async #writeChunk(table: string, chunk: readonly Entry[], mode: WriteMode): Promise<void> {
    const { refused, bisect, report } = mode;
    const { observer, policy } = this.#o;
    const rows = chunk.map((e) => toRowCells(e.row));
    try {
      // A refused row is an answer, not an outage: the policy's isAnswer says so to the watch.
      await policy.run(
        async () => {
          const t0 = performance.now();
          try {
            await this.#o.sink.put(table, rows);
          } catch (err) {
            if (!(err instanceof RetryAbortedError)) observer.failed(table, err, (performance.now() - t0) / 1000);
            throw err;
          }
          const seconds = (performance.now() - t0) / 1000;
          if (report === 'catalog') observer.catalogWritten?.(table, chunk.length, seconds);
          else if (report === 'none') return;
          else
            observer.written(
              table,
              chunk.map((e) => ({ key: e.row.key, bucket: e.bucket, id: e.event.id, ts: e.event.ts })),
              seconds,
            );
        },
        (err) => {
          observer.retried(table, err);
        },
      );
    } catch (err) {
      if (!bisect || !this.#o.isRowRejection(err)) throw err;
      if (chunk.length === 1) {
        const { event } = chunk[0] as Entry;
        const index = table === this.#o.tables.index;
        refused.set(event, {
          record: event.record,
          reason: 'hbase_rejected',
          detail: (index
            ? `hbase_rejected: ${table} refused the index row; the data row is stored (index verify reports its index row missing): ${(err as Error).message}`
            : `hbase_rejected: ${table} refused the row: ${(err as Error).message}`
          ).slice(0, 512),
          ...(index ? { stored: 'data-row' as const } : {}),
        });
        return;
      }
      const mid = Math.ceil(chunk.length / 2);
      await this.#writeChunk(table, chunk.slice(0, mid), mode);
      await this.#writeChunk(table, chunk.slice(mid), mode);
    }
  }
}
