/**
 * Pure: index hits of a by-tag read checked against their data rows. A hit is dangling when its data
 * row is gone, or when the row's tags no longer carry tag = value (tags belong to the row, last write
 * wins). Dangling hits are dropped and counted; old enough ones may be repaired (deleted).
 */
import type { Row } from '../hbase/types.ts';
import type { Keyspace, ScanRange } from '../keys/index.ts';
import { eventItemOf } from './decode.ts';
import type { EventItem } from './types.ts';
import { rowAfter } from '../scans/paged-scan.ts';

export interface IndexHit {
  /** the full index row key (what a repair deletes) */
  readonly indexKey: Buffer;
  /** the merge position: the index key after its salt byte */
  readonly position: Buffer;
  readonly id: string;
  readonly ts: number;
  /** the data row key the hit points at */
  readonly dataKey: Buffer;
}

export type Verdict = { readonly ok: true; readonly item: EventItem } | { readonly ok: false; readonly reason: 'missing' | 'tag_changed' };

/** An index row as a hit: its id, ts and the data key it points at (same spread offset j, no registry needed). */
export function hitOf(indexKey: Buffer, keyspace: Keyspace): IndexHit {
  const k = keyspace.decodeIndexKey(indexKey);
  return { indexKey, position: indexKey.subarray(1), id: k.id, ts: k.ts, dataKey: k.dataKey };
}

/** `rows` aligned with `hits` (null = no such data row), as multi-get returns them. */
export function verifyHits(
  hits: readonly IndexHit[],
  rows: readonly (Row | null)[],
  pair: { readonly tag: string; readonly value: string },
  keyspace: Keyspace,
): Verdict[] {
  const { tag, value } = pair;
  return hits.map((_, i) => {
    const row = rows[i] ?? null;
    if (row === null || row.cells.length === 0) return { ok: false, reason: 'missing' };
    const item = eventItemOf(row, keyspace);
    return item.tags[tag] === value ? { ok: true, item } : { ok: false, reason: 'tag_changed' };
  });
}

/** Whether a dangling hit may be deleted: repair is on and the event is older than the grace period. */
export function mayRepair(hit: IndexHit, repair: boolean, graceMs: number, now: number): boolean {
  return repair && hit.ts < now - graceMs;
}

/** The data rows of a chunk of hits as sorted, disjoint key ranges, grouped by data table bucket. */
export interface VerifyScan {
  readonly bucket: number;
  /** sorted, disjoint; one per run of hits on one id in this bucket: [its first key, just after its last] */
  readonly ranges: readonly ScanRange[];
}

/**
 * Range scans that read every data row a chunk of hits points at, for a chunk too large for
 * multi-gets (the REST gateway turns a multi-get into one Get per row): the hits' data keys sorted,
 * and each run of keys of one id in one bucket covered by one range from its first to just after its
 * last key (an id's rows are contiguous, newest first, so the range holds that id's rows between the
 * two times, which are mostly hits themselves). One scan per bucket with a MultiRowRangeFilter over its
 * ranges.
 */
export function verifyScans(hits: readonly IndexHit[], keyspace: Keyspace): VerifyScan[] {
  const keyed = hits.map((h) => ({ key: h.dataKey, id: h.id, bucket: keyspace.dataBucket(h.dataKey) }));
  keyed.sort((a, b) => Buffer.compare(a.key, b.key));
  const out: { bucket: number; ranges: ScanRange[] }[] = [];
  let run: { first: Buffer; last: Buffer; id: string; bucket: number } | undefined;
  const close = (): void => {
    if (run === undefined) return;
    const range = { startRow: run.first, stopRow: rowAfter(run.last) };
    const group = out.at(-1);
    if (group?.bucket === run.bucket) group.ranges.push(range);
    else out.push({ bucket: run.bucket, ranges: [range] });
  };
  for (const k of keyed) {
    if (run !== undefined && run.bucket === k.bucket && run.id === k.id) {
      run.last = k.key;
      continue;
    }
    close();
    run = { first: k.key, last: k.key, id: k.id, bucket: k.bucket };
  }
  close();
  return out;
}

/** Rows read by verifyScans aligned with the hits (null = no such data row), as multi-get returns them. */
export function alignRows(hits: readonly IndexHit[], rows: Iterable<Row>): (Row | null)[] {
  const byKey = new Map<string, Row>();
  for (const r of rows) byKey.set(r.row.toString('latin1'), r);
  return hits.map((h) => byKey.get(h.dataKey.toString('latin1')) ?? null);
}
