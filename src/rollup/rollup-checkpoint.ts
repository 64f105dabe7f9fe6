/**
 * Backfill checkpoint: the parameters of the run and a cursor. Units (salt buckets, or the given ids
 * in order) are processed one after the other; the cursor names the unit in progress and the last id
 * completed in it, so a rerun with the same parameters skips what is done. Stored as JSON through the
 * toolkit's checkpoint store (src/toolkit/checkpoint-store.ts: validated on read, written atomically).
 */
import { z } from 'zod';
import { fileCheckpointStore, type CheckpointFormat, type CheckpointStore } from '../toolkit/checkpoint-store.ts';

export const checkpointSchema = z.object({
  version: z.literal(1),
  /** what must match for a rerun to continue (see backfillIdentity) */
  identity: z.record(z.string(), z.unknown()),
  /** bucket number (bucket mode) or index into ids (id mode) in progress */
  unit: z.number().int().min(0),
  /** last id completed inside `unit` (bucket mode), null = none yet */
  lastId: z.string().nullable(),
  finished: z.boolean(),
  rowsScanned: z.number().int().min(0),
  windowsWritten: z.number().int().min(0),
  updatedAt: z.string(),
});
export type Checkpoint = z.infer<typeof checkpointSchema>;

export const BACKFILL_CHECKPOINT: CheckpointFormat<Checkpoint> = {
  schema: checkpointSchema,
  label: (path) => `--checkpoint ${path}`,
  kind: 'a backfill checkpoint',
};

/** `--checkpoint FILE` of `tsingest rollup backfill`. */
export function backfillCheckpointFile(path: string): CheckpointStore<Checkpoint> {
  return fileCheckpointStore(path, BACKFILL_CHECKPOINT);
}
