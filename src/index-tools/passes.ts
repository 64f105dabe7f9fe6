// The two checks as scans through a small port: a data unit (one salt bucket of the data table)
// checks each data row's expected index rows with multi-gets of the index table; an index unit (one
// tag in one salt bucket of the index table) checks each index row's data row with multi-gets of
// the data table. The chunks are the pages of a paged scan (src/scans/paged-scan.ts): each a fresh
// bounded scanner from just past the previous chunk, so a throttled run never holds a server-side
// scanner open long enough for its lease to expire, and the last key of a chunk is a resumable position.
import type { RowCells, ScanOptions } from '../hbase/index.ts';
import type { Row } from '../hbase/types.ts';
import { rowAfter, scanPages } from '../scans/paged-scan.ts';
import {
  checkExpectedRow,
  checkIndexRow,
  dataFactsOf,
  expectedIndexRows,
  indexFactsOf,
  type DataFacts,
  type Dangling,
  type ExpectedIndexRow,
  type IndexFacts,
  type Missing,
} from './compare.ts';
import { positionInRange, type IndexToolSettings, type ScanUnit } from './index-settings.ts';
import type { MalformedSample } from './tally.ts';

/** The HBase calls the index tools make. */
export interface IndexStore {
  scan(table: string, options: ScanOptions): AsyncIterable<Row>;
  multiGet(table: string, rows: readonly Buffer[], options: { readonly columns?: readonly Buffer[] }): Promise<(Row | null)[]>;
  put(table: string, rows: readonly RowCells[]): Promise<void>;
  deleteRow(table: string, row: Buffer, options: { readonly columns?: readonly Buffer[] }): Promise<void>;
}

export interface ChunkOutcome {
  readonly unit: ScanUnit;
  /** Rows read by this chunk's scan. */
  readonly scanned: number;
  readonly dangling: readonly Dangling[];
  readonly missing: readonly Missing[];
  readonly malformed: readonly MalformedSample[];
  /** Last row of the chunk (null when the unit had no rows left). */
  readonly lastKey: Buffer | null;
  /** Estimated position inside the unit, 0..1. */
  readonly position: number;
  /** True on the unit's last chunk. */
  readonly done: boolean;
}

export interface PassOptions {
  /** Resume just past this key (null = from the unit's start). */
  readonly after: Buffer | null;
  /** Rows per scan and per multi-get. */
  readonly chunkSize: number;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Data rows → their expected index rows → what the index lacks. */
async function checkDataRows(store: IndexStore, s: IndexToolSettings, rows: readonly Row[]): Promise<Pick<ChunkOutcome, 'missing' | 'malformed'>> {
  const malformed: MalformedSample[] = [];
  const expected: ExpectedIndexRow[] = [];
  for (const row of rows) {
    let facts: DataFacts;
    try {
      facts = dataFactsOf(row, s);
      expected.push(...expectedIndexRows(facts, s));
    } catch (err) {
      malformed.push({ table: s.dataTable, key: row.row.toString('hex'), message: errorText(err) });
    }
  }
  const found = await store.multiGet(
    s.indexTable,
    expected.map((e) => e.key),
    { columns: [Buffer.from(s.indexFamily, 'utf8')] },
  );
  const missing: Missing[] = [];
  expected.forEach((e, i) => {
    const row = found[i] ?? null;
    const present = row === null ? null : row.cells.map((c) => c.qualifier.toString('utf8'));
    const m = checkExpectedRow(e, present);
    if (m !== null) missing.push(m);
  });
  return { missing, malformed };
}

/** Index rows → the data rows they name → which index rows do not match. */
async function checkIndexRows(store: IndexStore, s: IndexToolSettings, rows: readonly Row[]): Promise<Pick<ChunkOutcome, 'dangling' | 'malformed'>> {
  const malformed: MalformedSample[] = [];
  const entries: { facts: IndexFacts; dataKey: Buffer }[] = [];
  for (const row of rows) {
    try {
      const facts = indexFactsOf(row, s);
      entries.push({ facts, dataKey: facts.dataKey });
    } catch (err) {
      malformed.push({ table: s.indexTable, key: row.row.toString('hex'), message: errorText(err) });
    }
  }
  const unique = [...new Map(entries.map((e) => [e.dataKey.toString('hex'), e.dataKey])).values()];
  const got = await store.multiGet(s.dataTable, unique, { columns: [Buffer.from(s.dataFamily, 'utf8')] });
  const data = new Map<string, DataFacts | Error | null>();
  unique.forEach((key, i) => {
    const row = got[i] ?? null;
    let facts: DataFacts | Error | null = null;
    if (row !== null) {
      try {
        facts = dataFactsOf(row, s);
      } catch (err) {
        facts = err instanceof Error ? err : new Error(String(err));
      }
    }
    data.set(key.toString('hex'), facts);
  });
  const dangling: Dangling[] = [];
  for (const e of entries) {
    const d = data.get(e.dataKey.toString('hex')) ?? null;
    if (d instanceof Error) {
      malformed.push({ table: s.dataTable, key: e.dataKey.toString('hex'), message: `data row of index row ${e.facts.key.toString('hex')}: ${d.message}` });
      continue;
    }
    const finding = checkIndexRow(e.facts, d);
    if (finding !== null) dangling.push(finding);
  }
  return { dangling, malformed };
}

/** The unit's chunks in key order, each already checked; the last one is `done` (empty when no rows were left). */
export async function* unitChunks(store: IndexStore, s: IndexToolSettings, unit: ScanUnit, opts: PassOptions): AsyncGenerator<ChunkOutcome, void, undefined> {
  if (!Number.isSafeInteger(opts.chunkSize) || opts.chunkSize < 1) throw new RangeError(`chunkSize must be a positive integer, got ${opts.chunkSize}`);
  const table = unit.kind === 'data' ? s.dataTable : s.indexTable;
  const family = unit.kind === 'data' ? s.dataFamily : s.indexFamily;
  const chunks = scanPages(store, table, {
    startRow: opts.after === null ? unit.range.startRow : rowAfter(opts.after),
    stopRow: unit.range.stopRow,
    pageRows: opts.chunkSize,
    columns: [Buffer.from(family, 'utf8')],
    ...(s.window === null ? {} : { timeRange: { from: s.window.from, to: s.window.to } }),
  });
  for await (const rows of chunks) {
    const last = rows[rows.length - 1] as Row;
    const done = rows.length < opts.chunkSize;
    const checked =
      unit.kind === 'data' ? { dangling: [], ...(await checkDataRows(store, s, rows)) } : { missing: [], ...(await checkIndexRows(store, s, rows)) };
    yield { unit, scanned: rows.length, ...checked, lastKey: last.row, position: done ? 1 : positionInRange(last.row, unit.range), done };
    if (done) return;
  }
  yield { unit, scanned: 0, dangling: [], missing: [], malformed: [], lastKey: null, position: 1, done: true };
}
