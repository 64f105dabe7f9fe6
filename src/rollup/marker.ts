/**
 * Pure: marker rows (one per bucket, size and window: an id cell per marked id and a version cell)
 * and their removal with one check-and-delete (docs/ROLLUPS.md).
 * Design notes: docs/DECISIONS.md#marker-rows
 */
import { randomBytes } from 'node:crypto';
import type { DataRow } from '../events/index.ts';
import type { Keyspace, RollupKeyParts } from '../keys/index.ts';

/** 0x00 "v": the version cell of a marker row (0x00-led: cannot be an id). */
export const VERSION_QUALIFIER: Buffer = Buffer.from('\u0000v', 'latin1');
/** 0x00 "m": the one cell of a per-id marker written by earlier versions. */
export const LEGACY_QUALIFIER: Buffer = Buffer.from('\u0000m', 'latin1');
export const MARKER_VALUE_BYTES = 16;

/**
 * Ingest re-marks a late event's (id, window) at most this often (ms): a later late event of the same
 * pair within it is covered by the re-mark before it, whose stamp is at most this much older. A reader
 * that trusts what it read only while no marker is stamped after its read less this and the clocks'
 * tolerance (the series API's tail cache) stays exact, and a catch-up of recent data writes one
 * marker cell per pair and second instead of one per flush unit.
 */
export const LATE_REMARK_EVERY_MS = 1000;

const EMPTY = Buffer.alloc(0);

export function newMarkerValue(nowMs: number): Buffer {
  const out = Buffer.alloc(MARKER_VALUE_BYTES);
  out.writeBigInt64BE(BigInt(nowMs), 0);
  randomBytes(8).copy(out, 8);
  return out;
}

export interface MarkerRowOptions {
  readonly keyspace: Keyspace;
  /** the rollup table's family */
  readonly family: string;
  /** timestamp of every cell and writtenAt of the version (ms); keep it strictly increasing per writer */
  readonly stamp: number;
}

/** A marker row to put and the marks (id, window) it carries. */
export interface MarkerPut {
  readonly row: DataRow;
  readonly marks: readonly RollupKeyParts[];
}

/**
 * The marker rows marking the given (id, window) pairs: one row per (base bucket, size, window),
 * one cell per distinct id, one version cell each. Rows in order of first appearance. Shared by
 * ingest, the job's cascade to the coarser size, and tests.
 */
export function markerPuts(marks: Iterable<RollupKeyParts>, opts: MarkerRowOptions): MarkerPut[] {
  const rows = new Map<string, { key: Buffer; ids: Set<string>; marks: RollupKeyParts[] }>();
  for (const m of marks) {
    const key = opts.keyspace.markerKey(m);
    const k = key.toString('latin1');
    let r = rows.get(k);
    if (r === undefined) rows.set(k, (r = { key, ids: new Set(), marks: [] }));
    if (r.ids.has(m.id)) continue;
    r.ids.add(m.id);
    r.marks.push(m);
  }
  const { family, stamp } = opts;
  return [...rows.values()].map((r) => ({
    marks: r.marks,
    row: {
      key: r.key,
      cells: [
        ...[...r.ids].map((id) => ({ family, qualifier: Buffer.from(id, 'utf8'), value: EMPTY, timestamp: stamp })),
        { family, qualifier: VERSION_QUALIFIER, value: newMarkerValue(stamp), timestamp: stamp },
      ],
    },
  }));
}

/** The marker row of one (id, window): markerPuts of that one mark. */
export function markerRow(parts: RollupKeyParts, opts: MarkerRowOptions): DataRow {
  return (markerPuts([parts], opts)[0] as MarkerPut).row;
}

/** Strictly increasing stamps from a clock: max(now, last + 1). */
export function stampClock(now: () => number = Date.now): () => number {
  let last = 0;
  return () => {
    last = Math.max(now(), last + 1);
    return last;
  };
}
