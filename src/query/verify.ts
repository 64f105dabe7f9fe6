/**
 * Pure: index hits of a by-tag read checked against their data rows. A hit is dangling when its data
 * row is gone, or when the row's tags no longer carry tag = value (tags belong to the row, last write
 * wins). Dangling hits are dropped and counted; old enough ones may be repaired (deleted).
 */
import type { Row } from '../hbase/types.ts';
import type { Keyspace } from '../keys/index.ts';
import { eventItemOf } from './decode.ts';
import type { EventItem } from './types.ts';

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

export type Verdict =
  | { readonly ok: true; readonly item: EventItem }
  | { readonly ok: false; readonly reason: 'missing' | 'tag_changed' };

/** An index row as a hit: its id, ts and the data key it points at (same spread offset j, no registry needed). */
export function hitOf(indexKey: Buffer, keyspace: Keyspace): IndexHit {
  const k = keyspace.decodeIndexKey(indexKey);
  return { indexKey, position: indexKey.subarray(1), id: k.id, ts: k.ts, dataKey: k.dataKey };
}

/** `rows` aligned with `hits` (null = no such data row), as multi-get returns them. */
export function verifyHits(
  hits: readonly IndexHit[],
  rows: readonly (Row | null)[],
  tag: string,
  value: string,
  keyspace: Keyspace,
): Verdict[] {
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
