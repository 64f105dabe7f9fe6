// The checkpoint on disk: read once at start (a missing file = a fresh run), written atomically
// (temp file + rename) so an interrupted write never leaves half a checkpoint.
import { readFile, rename, writeFile } from 'node:fs/promises';
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
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
      return decodeCheckpoint(text, path);
    },
    async save(c) {
      const tmp = `${path}.${process.pid}.tmp`;
      await writeFile(tmp, encodeCheckpoint(c), 'utf8');
      await rename(tmp, path);
    },
  };
}
