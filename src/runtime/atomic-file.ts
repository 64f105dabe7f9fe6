// Small file helpers for the resumable tools' checkpoints: read a file that may not exist yet, and
// write one atomically (temp file + rename), so an interrupted write never leaves half a file.
import { readFile, rename, writeFile } from 'node:fs/promises';

/** The file's text, or undefined when it does not exist; other errors are thrown. */
export async function readTextIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, text, 'utf8');
  await rename(tmp, path);
}
