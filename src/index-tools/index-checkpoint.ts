// The rebuild checkpoint — what run it belongs to (tables, key layout, tags, time window) and, per
// scan unit, the last completed rowkey and whether the unit is done. JSON, keys as hex, stored through
// the toolkit's checkpoint store (src/toolkit/checkpoint-store.ts: validated on read, written atomically).
import { z } from 'zod';
import { fileCheckpointStore, identityDiff, type CheckpointFormat, type CheckpointStore } from '../toolkit/checkpoint-store.ts';
import type { IndexToolSettings } from './index-settings.ts';

export const CHECKPOINT_VERSION = 1;

export interface CheckpointRun {
  readonly dataTable: string;
  readonly indexTable: string;
  readonly buckets: number;
  readonly keyFormat: string;
  readonly saltMode: string;
  readonly tags: readonly string[];
  readonly from: number | null;
  readonly to: number | null;
}

export interface UnitPosition {
  readonly done: boolean;
  /** Hex of the last completed rowkey (null = nothing done yet). */
  readonly after: string | null;
}

export interface Checkpoint {
  readonly version: typeof CHECKPOINT_VERSION;
  readonly run: CheckpointRun;
  readonly units: Readonly<Record<string, UnitPosition>>;
  readonly updatedAt: string;
  /** Set when every unit is done. */
  readonly finishedAt: string | null;
}

const hexKey = z.string().regex(/^([0-9a-f]{2})+$/, 'a rowkey in lowercase hex');

const checkpointSchema = z
  .object({
    version: z.literal(CHECKPOINT_VERSION),
    run: z
      .object({
        dataTable: z.string().min(1),
        indexTable: z.string().min(1),
        buckets: z.number().int().min(1).max(256),
        keyFormat: z.string().min(1),
        saltMode: z.string().min(1),
        tags: z.array(z.string().min(1)).min(1),
        from: z.number().int().nullable(),
        to: z.number().int().nullable(),
      })
      .strict(),
    units: z.record(z.string(), z.object({ done: z.boolean(), after: hexKey.nullable() }).strict()),
    updatedAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .strict();

export function runOf(s: IndexToolSettings): CheckpointRun {
  return {
    dataTable: s.dataTable,
    indexTable: s.indexTable,
    buckets: s.keyspace.buckets,
    keyFormat: s.keyspace.format,
    saltMode: s.keyspace.indexSaltMode,
    tags: [...s.tags],
    from: s.window?.from ?? null,
    to: s.window?.to ?? null,
  };
}

export function newCheckpoint(run: CheckpointRun, now: number): Checkpoint {
  return { version: CHECKPOINT_VERSION, run, units: {}, updatedAt: new Date(now).toISOString(), finishedAt: null };
}

/** Why a checkpoint cannot continue this run (which setting differs), or null when it can. */
export function runMismatch(saved: CheckpointRun, current: CheckpointRun): string | null {
  const d = identityDiff(saved, current);
  return d === undefined ? null : `${d.field} is ${d.saved ?? 'absent'} in the checkpoint but ${d.now ?? 'absent'} now`;
}

export const REBUILD_CHECKPOINT: CheckpointFormat<Checkpoint> = { schema: checkpointSchema };

/** `--checkpoint FILE` of `tsingest index rebuild`. */
export function rebuildCheckpointFile(path: string): CheckpointStore<Checkpoint> {
  return fileCheckpointStore(path, REBUILD_CHECKPOINT);
}

export function withUnit(c: Checkpoint, unitId: string, pos: UnitPosition, now: number): Checkpoint {
  return { ...c, units: { ...c.units, [unitId]: pos }, updatedAt: new Date(now).toISOString() };
}

export function finished(c: Checkpoint, now: number): Checkpoint {
  const iso = new Date(now).toISOString();
  return { ...c, updatedAt: iso, finishedAt: iso };
}
