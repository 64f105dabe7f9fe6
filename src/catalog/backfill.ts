/**
 * `tsingest catalog backfill`: puts the series catalog rows of data written without the catalog,
 * walking the data table bucket by bucket in pages; idempotent, checkpointed, throttled.
 * Design notes: docs/DECISIONS.md#catalog-backfill
 */
import { decodeTags, TAGS_QUALIFIER } from '../events/cells.ts';
import type { DataRow } from '../events/index.ts';
import { CatalogMarks, type SeriesTouch } from './marks.ts';
import type { Keyspace } from '../keys/index.ts';
import { CheckpointError, CheckpointWriter, identityDiff, memoryCheckpointStore, type CheckpointStore } from '../toolkit/checkpoint-store.ts';
import { rowAfter, scanPages, type ScanPort } from '../scans/paged-scan.ts';
import { UNTHROTTLED, type Throttle } from '../toolkit/throttle.ts';
import type { CatalogCheckpoint } from './backfill-checkpoint.ts';
import { canonicalTags } from './rows.ts';

/** The HBase calls of the backfill: paged scans of the data table, puts to the meta table. */
export interface BackfillPort extends ScanPort {
  put(
    table: string,
    rows: readonly { readonly row: Buffer; readonly cells: readonly { readonly column: Buffer; readonly value: Buffer; readonly timestamp?: number }[] }[],
  ): Promise<void>;
}

export interface CatalogBackfillSettings {
  readonly keyspace: Keyspace;
  readonly dataTable: string;
  readonly dataFamily: string;
  readonly metaTable: string;
  readonly metaFamily: string;
  /** only cells with event ts in [from, to) (both absent: all) */
  readonly from?: number | undefined;
  readonly to?: number | undefined;
  readonly pageRows?: number | undefined;
  /** series remembered within the run (skips re-putting them) */
  readonly cacheSize?: number | undefined;
}

export interface CatalogBackfillProgress {
  readonly bucketsDone: number;
  readonly buckets: number;
  /** position inside the running bucket, 0..1 (by the first key byte after the salt) */
  readonly bucketFraction: number;
  readonly rowsScanned: number;
  readonly seriesWritten: number;
  readonly rowsSkipped: number;
}

export interface CatalogBackfillOptions {
  readonly port: BackfillPort;
  readonly settings: CatalogBackfillSettings;
  readonly checkpoint?: CheckpointStore<CatalogCheckpoint> | undefined;
  readonly throttle?: Throttle | undefined;
  readonly onProgress?: ((p: CatalogBackfillProgress) => void) | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly now?: (() => number) | undefined;
}

export interface CatalogBackfillResult {
  readonly status: 'finished' | 'already_finished' | 'aborted';
  readonly resumed: boolean;
  /** over every run of this checkpoint */
  readonly rowsScanned: number;
  readonly seriesWritten: number;
  /** rows whose key or cells did not decode (not data rows of this layout) */
  readonly rowsSkipped: number;
}

const PUT_ROWS = 500;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function backfillIdentity(s: CatalogBackfillSettings): Record<string, unknown> {
  return { dataTable: s.dataTable, metaTable: s.metaTable, buckets: s.keyspace.buckets, keyFormat: s.keyspace.format, from: s.from ?? null, to: s.to ?? null };
}

/** The series touches of one data row: one per metric cell, all with the row's tags. */
function touchesOf(id: string, cells: readonly { readonly qualifier: Buffer; readonly value: Buffer }[]): SeriesTouch[] {
  let tagsCell: Buffer | undefined;
  const metrics: string[] = [];
  for (const c of cells) {
    if (c.qualifier[0] === 0x00) {
      if (c.qualifier.equals(TAGS_QUALIFIER)) tagsCell = c.value;
      continue;
    }
    metrics.push(strictUtf8.decode(c.qualifier));
  }
  // re-encoded, so a cell written by another program in another key order is the same series
  const canonical = tagsCell === undefined ? canonicalTags({}) : canonicalTags(decodeTags(tagsCell));
  return metrics.map((metric) => ({ id, metric, tags: {}, tagsCell: canonical }));
}

export async function runCatalogBackfill(o: CatalogBackfillOptions): Promise<CatalogBackfillResult> {
  const s = o.settings;
  const now = o.now ?? Date.now;
  const cp = o.checkpoint ?? memoryCheckpointStore<CatalogCheckpoint>();
  const identity = backfillIdentity(s);
  const saved = await cp.load();
  if (saved !== undefined) {
    const d = identityDiff(saved.identity, identity);
    if (d !== undefined) {
      throw new CheckpointError(
        'CHECKPOINT_OTHER_RUN',
        `--checkpoint ${cp.where} belongs to a catalog backfill with other parameters (${d.field}: checkpoint ${d.saved ?? 'absent'} ≠ now ${d.now ?? 'absent'}); use another file or remove it`,
      );
    }
  }
  let state: CatalogCheckpoint = saved ?? {
    version: 1,
    identity,
    bucket: 0,
    after: null,
    finished: false,
    rowsScanned: 0,
    seriesWritten: 0,
    rowsSkipped: 0,
    updatedAt: new Date(now()).toISOString(),
  };
  const result = (status: CatalogBackfillResult['status']): CatalogBackfillResult => ({
    status,
    resumed: saved !== undefined,
    rowsScanned: state.rowsScanned,
    seriesWritten: state.seriesWritten,
    rowsSkipped: state.rowsSkipped,
  });
  if (state.finished) return result('already_finished');
  const writer = new CheckpointWriter(cp, 1000);
  const save = (force: boolean): Promise<void> => {
    state = { ...state, updatedAt: new Date(now()).toISOString() };
    return writer.write(state, now(), force);
  };
  const marks = new CatalogMarks({ family: s.metaFamily, cacheSize: s.cacheSize ?? 100_000, now });
  const throttle = o.throttle ?? UNTHROTTLED;
  const { keyspace } = s;
  const timeRange = s.from === undefined && s.to === undefined ? {} : { timeRange: { from: s.from ?? 0, to: s.to ?? Number.MAX_SAFE_INTEGER } };
  const family = Buffer.from(s.dataFamily, 'utf8');
  const progress = (fraction: number): void => {
    o.onProgress?.({
      bucketsDone: state.bucket,
      buckets: keyspace.buckets,
      bucketFraction: fraction,
      rowsScanned: state.rowsScanned,
      seriesWritten: state.seriesWritten,
      rowsSkipped: state.rowsSkipped,
    });
  };
  while (state.bucket < keyspace.buckets) {
    const whole = keyspace.bucketRange(state.bucket);
    const startRow = state.after === null ? whole.startRow : rowAfter(Buffer.from(state.after, 'hex'));
    for await (const page of scanPages(o.port, s.dataTable, {
      startRow,
      stopRow: whole.stopRow,
      pageRows: s.pageRows ?? 1000,
      columns: [family],
      ...timeRange,
    })) {
      const touches: SeriesTouch[] = [];
      let skipped = 0;
      for (const row of page) {
        try {
          touches.push(...touchesOf(keyspace.decodeDataKey(row.row).id, row.cells));
        } catch {
          skipped++;
        }
      }
      const rows = marks.rowsFor(touches);
      const put = (batch: readonly DataRow[]): Promise<void> =>
        o.port.put(
          s.metaTable,
          batch.map((r) => ({
            row: r.key,
            cells: r.cells.map((c) => ({
              column: Buffer.concat([Buffer.from(`${c.family}:`, 'utf8'), c.qualifier]),
              value: c.value,
              timestamp: c.timestamp,
            })),
          })),
        );
      for (let i = 0; i < rows.length; i += PUT_ROWS) await put(rows.slice(i, i + PUT_ROWS).map((r) => r.row));
      // then the catalog's generation, as ingest replaces it: query-time rereads find the new series
      if (rows.length > 0) await put([marks.generationRow(false)]); // no journal: readers scan
      marks.acknowledged(rows);
      const last = page[page.length - 1]?.row as Buffer;
      state = {
        ...state,
        after: last.toString('hex'),
        rowsScanned: state.rowsScanned + page.length,
        seriesWritten: state.seriesWritten + rows.length,
        rowsSkipped: state.rowsSkipped + skipped,
      };
      await save(false);
      progress(keyFraction(last, keyspace.dataSaltBytes));
      await throttle.take(page.length, o.signal);
      if (o.signal?.aborted === true) {
        await save(true);
        return result('aborted');
      }
    }
    state = { ...state, bucket: state.bucket + 1, after: null };
    await save(true);
    progress(0);
  }
  state = { ...state, finished: true };
  await save(true);
  return result('finished');
}

/** Rough position of a key inside its bucket: its first byte after the salt, 0..1. */
function keyFraction(key: Buffer, saltBytes: number): number {
  return (key[saltBytes] ?? 0) / 256;
}
