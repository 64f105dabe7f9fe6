/**
 * Checkpoints of resumable walks: a store of one state value of the tool's own type T (what it has
 * done, and the identity of the run it belongs to). A missing checkpoint is a fresh run. On disk it is
 * JSON, validated against the tool's zod schema when read (errors name the file and the fields at
 * fault) and written atomically (temp file + rename), so an interrupted write never leaves half a
 * checkpoint. A rerun with other parameters must not continue a checkpoint: `identityDiff` says which
 * identity field differs, and the tool words the refusal.
 */
import type { ZodType } from 'zod';
import { ServiceError, type CauseOptions, type CHECKPOINT_ERROR_CODES } from '../errors.ts';
import { readTextIfExists, writeFileAtomic } from '../runtime/atomic-file.ts';

export { CHECKPOINT_ERROR_CODES } from '../errors.ts';
export type CheckpointErrorCode = (typeof CHECKPOINT_ERROR_CODES)[number];

/** A checkpoint that cannot be used; never retriable (the file or the command line must change). */
export class CheckpointError extends ServiceError<CheckpointErrorCode> {
  override readonly name = 'CheckpointError';

  constructor(code: CheckpointErrorCode, message: string, options: CauseOptions = {}) {
    super({ code, message, retriable: false, cause: options.cause });
  }
}

export interface CheckpointStore<T> {
  /** Where it lives, for messages (a file path, or `memory`). */
  readonly where: string;
  /** The saved state; undefined when there is none yet (a fresh run). */
  load(): Promise<T | undefined>;
  save(state: T): Promise<void>;
}

/** How a tool's checkpoint file is read and named in messages. */
export interface CheckpointFormat<T> {
  readonly schema: ZodType<T>;
  /** How messages name the file (default `checkpoint <path>`), e.g. `--checkpoint <path>`. */
  readonly label?: ((path: string) => string) | undefined;
  /** What the file must be, e.g. `a backfill checkpoint`: named when it is not. */
  readonly kind?: string | undefined;
}

export function encodeCheckpoint(state: unknown): string {
  return `${JSON.stringify(state, null, 2)}\n`;
}

/** Parses and validates a checkpoint read from `path`; a CheckpointError names the file and the fields. */
export function decodeCheckpoint<T>(text: string, path: string, format: CheckpointFormat<T>): T {
  const label = labelOf(path, format);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (cause) {
    throw new CheckpointError('CHECKPOINT_NOT_JSON', `${label} is not JSON${format.kind === undefined ? '' : ` (not ${format.kind}?)`}`, { cause });
  }
  const parsed = format.schema.safeParse(raw);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((i) => `${i.path.length === 0 ? '(root)' : i.path.map(String).join('.')}: ${i.message}`).join('; ');
    throw new CheckpointError('CHECKPOINT_INVALID', format.kind === undefined ? `${label}: ${fields}` : `${label} is not ${format.kind}: ${fields}`);
  }
  return parsed.data;
}

function labelOf(path: string, format: CheckpointFormat<unknown>): string {
  return format.label === undefined ? `checkpoint ${path}` : format.label(path);
}

/** The checkpoint in a JSON file (read validated, written atomically). */
export function fileCheckpointStore<T>(path: string, format: CheckpointFormat<T>): CheckpointStore<T> {
  return {
    where: path,
    async load() {
      let text: string | undefined;
      try {
        text = await readTextIfExists(path);
      } catch (cause) {
        throw new CheckpointError('CHECKPOINT_UNREADABLE', `${labelOf(path, format)}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
      }
      return text === undefined ? undefined : decodeCheckpoint(text, path, format);
    },
    save: (state) => writeFileAtomic(path, encodeCheckpoint(state)),
  };
}

export interface MemoryCheckpointStore<T> extends CheckpointStore<T> {
  /** The last state saved (or the initial one). */
  current: T | undefined;
  /** Saves so far. */
  readonly saves: number;
}

/** In memory: a run without a checkpoint file, and tests. */
export function memoryCheckpointStore<T>(initial?: T): MemoryCheckpointStore<T> {
  let saves = 0;
  const store: MemoryCheckpointStore<T> = {
    where: 'memory',
    current: initial,
    get saves() {
      return saves;
    },
    load: () => Promise.resolve(store.current),
    save: (state) => {
      store.current = state;
      saves++;
      return Promise.resolve();
    },
  };
  return store;
}

/**
 * Writes a walk's state to its store as the walk goes: at most once every `everyMs` (a forced write —
 * a unit finished, the walk stopped or done — always goes), one write at a time and in call order, so
 * concurrent units never interleave two writes of one file.
 */
export class CheckpointWriter<T> {
  readonly #store: CheckpointStore<T>;
  readonly #everyMs: number;
  #chain: Promise<void> = Promise.resolve();
  #lastAt = Number.NEGATIVE_INFINITY;

  constructor(store: CheckpointStore<T>, everyMs: number) {
    if (!(everyMs >= 0)) throw new RangeError(`everyMs must be >= 0, got ${everyMs}`);
    this.#store = store;
    this.#everyMs = everyMs;
  }

  /** Writes `state` (at time `now`, ms) when forced or due; resolves once written, at once when skipped. */
  write(state: T, now: number, force = false): Promise<void> {
    if (!force && now - this.#lastAt < this.#everyMs) return Promise.resolve();
    this.#lastAt = now;
    this.#chain = this.#chain.then(() => this.#store.save(state));
    return this.#chain;
  }
}

/** The first identity field whose value differs between a checkpoint and this run. */
export interface IdentityDiff {
  readonly field: string;
  /** JSON of the value in the checkpoint; undefined when the field is absent there */
  readonly saved: string | undefined;
  /** JSON of the value now; undefined when the field is absent now */
  readonly now: string | undefined;
}

/** Compares two identities field by field (values as JSON); undefined when they are equal. */
export function identityDiff(saved: object, now: object): IdentityDiff | undefined {
  const a = saved as Readonly<Record<string, unknown>>;
  const b = now as Readonly<Record<string, unknown>>;
  for (const field of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const was = field in a ? JSON.stringify(a[field]) : undefined;
    const is = field in b ? JSON.stringify(b[field]) : undefined;
    if (was !== is) return { field, saved: was, now: is };
  }
  return undefined;
}
