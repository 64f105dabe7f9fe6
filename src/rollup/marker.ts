/**
 * Pure: the marker cell. A marker row says "(id, window) received events since it was last rolled
 * up". Its one cell (qualifier MARKER_QUALIFIER) holds a value unique to each write:
 *   int64_BE(writtenAtMs) ‖ 8 random bytes
 * so the job's check-and-delete on the value it read fails when ingest re-marked the window while
 * the job was recomputing it, and the window is recomputed on the next run.
 */
import { randomBytes } from 'node:crypto';

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
