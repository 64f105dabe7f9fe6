/**
 * Checkpoint of `tsingest catalog backfill`: the run's parameters (identity) and a cursor — the salt
 * bucket in progress and the last data row key whose series are written (hex), so a rerun with the
 * same parameters continues after it. JSON through the toolkit's checkpoint store (validated on read,
 * written atomically).
 */
import { z } from 'zod';
import { fileCheckpointStore, type CheckpointStore } from '../toolkit/checkpoint-store.ts';

export const catalogCheckpointSchema = z.object({
  version: z.literal(1),
  identity: z.record(z.string(), z.unknown()),
  /** salt bucket in progress (= buckets when all are done) */
  bucket: z.number().int().min(0),
  /** hex of the last row key done in `bucket`; null = none yet */
  after: z
    .string()
    .regex(/^(?:[0-9a-f]{2})+$/)
    .nullable(),
  finished: z.boolean(),
  rowsScanned: z.number().int().min(0),
  seriesWritten: z.number().int().min(0),
  rowsSkipped: z.number().int().min(0),
  updatedAt: z.string(),
});
export type CatalogCheckpoint = z.infer<typeof catalogCheckpointSchema>;

/** `--checkpoint FILE` of `tsingest catalog backfill`. */
export function catalogCheckpointFile(path: string): CheckpointStore<CatalogCheckpoint> {
  return fileCheckpointStore(path, { schema: catalogCheckpointSchema, label: (p) => `--checkpoint ${p}`, kind: 'a catalog backfill checkpoint' });
}
