// The delete checkpoint: the run it belongs to (id, range, tables, key layout), per unit (a data
// bucket, the summaries, the markers, the catalog, the registry) whether it is done and the last data
// key deleted, and what the deleted rows told (the index values and ts span the verification scans
// again). JSON through the toolkit's checkpoint store (src/toolkit/checkpoint-store.ts: validated, atomic writes).
import { z } from 'zod';
import { CheckpointError, fileCheckpointStore, identityDiff, type CheckpointFormat, type CheckpointStore } from '../toolkit/checkpoint-store.ts';
import type { IndexedValue } from './plan.ts';

export const DELETE_CHECKPOINT_VERSION = 1;

export interface DeleteRun {
  readonly id: string;
  readonly from: number | null;
  readonly to: number | null;
  readonly dataTable: string;
  readonly indexTable: string;
  readonly rollupTable: string;
  readonly metaTable: string;
  readonly buckets: number;
  readonly keyFormat: string;
  readonly indexTags: readonly string[];
}

export interface DeleteUnit {
  readonly done: boolean;
  /** hex of the last data key deleted (data units), null otherwise */
  readonly after: string | null;
}

/** What the deleted data rows carried: the index values and the ts span to verify the index over. */
export interface Seen {
  readonly values: readonly IndexedValue[];
  readonly minTs: number | null;
  readonly maxTs: number | null;
}

export interface DeleteCheckpoint {
  readonly version: typeof DELETE_CHECKPOINT_VERSION;
  readonly run: DeleteRun;
  readonly units: Readonly<Record<string, DeleteUnit>>;
  readonly seen: Seen;
  readonly updatedAt: string;
  readonly finishedAt: string | null;
}

const schema = z
  .object({
    version: z.literal(DELETE_CHECKPOINT_VERSION),
    run: z
      .object({
        id: z.string().min(1),
        from: z.number().int().nullable(),
        to: z.number().int().nullable(),
        dataTable: z.string().min(1),
        indexTable: z.string().min(1),
        rollupTable: z.string().min(1),
        metaTable: z.string().min(1),
        buckets: z.number().int().min(1).max(256),
        keyFormat: z.string().min(1),
        indexTags: z.array(z.string().min(1)),
      })
      .strict(),
    units: z.record(
      z.string(),
      z
        .object({
          done: z.boolean(),
          after: z
            .string()
            .regex(/^([0-9a-f]{2})+$/)
            .nullable(),
        })
        .strict(),
    ),
    seen: z
      .object({
        values: z.array(z.object({ tag: z.string().min(1), value: z.string() }).strict()),
        minTs: z.number().int().nullable(),
        maxTs: z.number().int().nullable(),
      })
      .strict(),
    updatedAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .strict();

export const DELETE_CHECKPOINT: CheckpointFormat<DeleteCheckpoint> = {
  schema,
  label: (path) => `--checkpoint ${path}`,
  kind: 'a delete checkpoint',
};

export function deleteCheckpointFile(path: string): CheckpointStore<DeleteCheckpoint> {
  return fileCheckpointStore(path, DELETE_CHECKPOINT);
}

export const NOTHING_SEEN: Seen = { values: [], minTs: null, maxTs: null };

export function newDeleteCheckpoint(run: DeleteRun, now: number): DeleteCheckpoint {
  return { version: DELETE_CHECKPOINT_VERSION, run, units: {}, seen: NOTHING_SEEN, updatedAt: new Date(now).toISOString(), finishedAt: null };
}

/** The saved checkpoint if it belongs to this run (a fresh one when there is none); another run's is refused. */
export function continueRun(saved: DeleteCheckpoint | undefined, run: DeleteRun, where: string, now: number): DeleteCheckpoint {
  if (saved === undefined) return newDeleteCheckpoint(run, now);
  const d = identityDiff(saved.run, run);
  if (d !== undefined) {
    throw new CheckpointError(
      'CHECKPOINT_OTHER_RUN',
      `--checkpoint ${where} belongs to another delete (${d.field} is ${d.saved ?? 'absent'} there, ${d.now ?? 'absent'} now); use another file or remove it`,
    );
  }
  return saved;
}

/** `seen` with one page's index values and ts span added (values kept distinct, in first-seen order). */
export function mergeSeen(seen: Seen, values: readonly IndexedValue[], minTs: number | null, maxTs: number | null): Seen {
  const known = new Set(seen.values.map((v) => `${v.tag}\u0000${v.value}`));
  const added = values.filter((v) => {
    const k = `${v.tag}\u0000${v.value}`;
    if (known.has(k)) return false;
    known.add(k);
    return true;
  });
  const lo = [seen.minTs, minTs].filter((t): t is number => t !== null);
  const hi = [seen.maxTs, maxTs].filter((t): t is number => t !== null);
  return {
    values: added.length === 0 ? seen.values : [...seen.values, ...added],
    minTs: lo.length === 0 ? null : Math.min(...lo),
    maxTs: hi.length === 0 ? null : Math.max(...hi),
  };
}

export function withUnit(c: DeleteCheckpoint, step: { readonly unit: string; readonly pos: DeleteUnit; readonly seen: Seen }, now: number): DeleteCheckpoint {
  const { unit, pos, seen } = step;
  return { ...c, units: { ...c.units, [unit]: pos }, seen, updatedAt: new Date(now).toISOString() };
}

export function finishedCheckpoint(c: DeleteCheckpoint, now: number): DeleteCheckpoint {
  const iso = new Date(now).toISOString();
  return { ...c, updatedAt: iso, finishedAt: iso };
}
