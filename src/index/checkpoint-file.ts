// The checkpoint on disk: read once at start (a missing file = a fresh run), written atomically
// (temp file + rename) so an interrupted write never leaves half a checkpoint.
import { readTextIfExists, writeFileAtomic } from '../runtime/atomic-file.ts';
import { decodeCheckpoint, encodeCheckpoint, type Checkpoint } from './checkpoint.ts';

export interface CheckpointStore {
  /** Where it lives, for messages. */
  readonly where: string;
  load(): Promise<Checkpoint | null>;
  save(c: Checkpoint): Promise<void>;
}

export function fileCheckpointStore(path: string): CheckpointStore {
  return {
    where: path,
    async load() {
      const text = await readTextIfExists(path);
      return text === undefined ? null : decodeCheckpoint(text, path);
    },
    save: (c) => writeFileAtomic(path, encodeCheckpoint(c)),
  };
}
