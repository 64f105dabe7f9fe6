/**
 * Pure: the marker cell. A marker row says "(id, window) received events since it was last rolled
 * up". Its one cell (qualifier MARKER_QUALIFIER) holds a value unique to each write:
 *   int64_BE(writtenAtMs) ‖ 8 random bytes
 * so the job's check-and-delete on the value it read fails when ingest re-marked the window while
 * the job was recomputing it, and the window is recomputed on the next run.
 *
 * The cell timestamp is the writer's `stamp` (strictly increasing per writer). The job deletes the
 * marker versions up to the one it read (a family delete at that timestamp), so a re-mark with a
 * later timestamp is never hidden by the job's delete (docs/ROLLUPS.md, clock assumptions).
 */
import { randomBytes } from 'node:crypto';
import type { DataRow } from '../events/index.ts';
import type { Keyspace, RollupKeyParts } from '../keys/index.ts';

/** 0x00 "m": reserved (0x00-led) qualifier, cannot be a metric name. */
export const MARKER_QUALIFIER: Buffer = Buffer.from('\u0000m', 'latin1');
export const MARKER_VALUE_BYTES = 16;

export function newMarkerValue(nowMs: number): Buffer {
  const out = Buffer.alloc(MARKER_VALUE_BYTES);
  out.writeBigInt64BE(BigInt(nowMs), 0);
  randomBytes(8).copy(out, 8);
  return out;
}

export function markerWrittenAt(value: Uint8Array): number | undefined {
  if (value.length !== MARKER_VALUE_BYTES) return undefined;
  return Number(Buffer.from(value.buffer, value.byteOffset, value.byteLength).readBigInt64BE(0));
}

export interface MarkerRowOptions {
  readonly keyspace: Keyspace;
  /** the rollup table's family */
  readonly family: string;
  /** cell timestamp and writtenAt of the value (ms); keep it strictly increasing per writer */
  readonly stamp: number;
}

/**
 * The marker row of one (id, window size, window): key encodeMarkerKey(parts), one cell
 * family:MARKER_QUALIFIER = newMarkerValue(stamp) at timestamp `stamp`. Shared by ingest, the job's
 * cascade to the coarser size, and tests.
 */
export function markerRow(parts: RollupKeyParts, opts: MarkerRowOptions): DataRow {
  return {
    key: opts.keyspace.markerKey(parts),
    cells: [{ family: opts.family, qualifier: MARKER_QUALIFIER, value: newMarkerValue(opts.stamp), timestamp: opts.stamp }],
  };
}

/** Strictly increasing stamps from a clock: max(now, last + 1). */
export function stampClock(now: () => number = Date.now): () => number {
  let last = 0;
  return () => {
    last = Math.max(now(), last + 1);
    return last;
  };
}
