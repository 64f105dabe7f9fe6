/**
 * Backfill checkpoint: the parameters of the run and a cursor. Units (salt buckets, or the given ids
 * in order) are processed one after the other; the cursor names the unit in progress and the last id
 * completed in it, so a rerun with the same parameters skips what is done. Written atomically
 * (temp file + rename); the file format is JSON.
 */
import { readTextIfExists, writeFileAtomic } from '../runtime/atomic-file.ts';
import { z } from 'zod';

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

export class CheckpointError extends Error {
  override readonly name = 'CheckpointError';
}

export interface CheckpointStore {
  readonly where: string;
  load(): Promise<Checkpoint | undefined>;
  save(c: Checkpoint): Promise<void>;
}

export function fileCheckpoint(path: string): CheckpointStore {
  return {
    where: path,
    async load() {
      let text: string | undefined;
      try {
        text = await readTextIfExists(path);
      } catch (err) {
        throw new CheckpointError(`--checkpoint ${path}: ${(err as Error).message}`);
      }
      if (text === undefined) return undefined;
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new CheckpointError(`--checkpoint ${path} is not JSON (not a backfill checkpoint?)`);
      }
      const res = checkpointSchema.safeParse(parsed);
      if (!res.success) throw new CheckpointError(`--checkpoint ${path} is not a backfill checkpoint: ${res.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      return res.data;
    },
    save: (c) => writeFileAtomic(path, `${JSON.stringify(c, null, 2)}\n`),
  };
}

/** In memory (tests, or no --checkpoint). */
export function memoryCheckpoint(initial?: Checkpoint): CheckpointStore & { current: Checkpoint | undefined } {
  const store = {
    where: 'memory',
    current: initial,
    load: () => Promise.resolve(store.current),
    save: (c: Checkpoint) => {
      store.current = c;
      return Promise.resolve();
    },
  };
  return store;
}

/** The first key whose value differs, as "key: checkpoint ≠ now"; undefined when equal. */
export function identityMismatch(saved: Readonly<Record<string, unknown>>, now: Readonly<Record<string, unknown>>): string | undefined {
  const keys = new Set([...Object.keys(saved), ...Object.keys(now)]);
  for (const k of keys) {
    const a = k in saved ? JSON.stringify(saved[k]) : 'absent';
    const b = k in now ? JSON.stringify(now[k]) : 'absent';
    if (a !== b) return `${k}: checkpoint ${a} ≠ now ${b}`;
  }
  return undefined;
}
