// What `tsingest delete` works on, resolved once from the configuration: the id, the range, the
// tables and families, the key layout, the indexed tags and the rollup window sizes.
import { InputError } from '../errors.ts';
import { encodeId, KeyError, type Keyspace, type TableRef, type Tables } from '../keys/index.ts';
import { parseWindows, type WindowSize } from '../rollup/windows.ts';
import { blockSettings, sourceRetention } from '../rollup/rollup-settings.ts';
import type { SourceRetention } from '../rollup/expired-source.ts';
import type { BlockSettings } from '../rollup/window-content.ts';
import type { Config } from '../runtime/config.ts';
import type { DeleteRun } from './delete-checkpoint.ts';
import { assertRange, type DeleteRange } from './plan.ts';

export interface DeleteSettings {
  readonly id: string;
  readonly range: DeleteRange;
  readonly keyspace: Keyspace;
  readonly indexTags: readonly string[];
  /** rollup window sizes, finest first */
  readonly windows: readonly WindowSize[];
  readonly data: TableRef;
  readonly index: TableRef;
  readonly rollup: TableRef;
  readonly meta: TableRef;
  /** point blocks (null: off) and how long raw rows and blocks are kept: a cut window's stored blocks are trimmed when they may be its long-term copy */
  readonly blocks?: BlockSettings | null | undefined;
  readonly retention?: SourceRetention | undefined;
}

export function deleteSettings(cfg: Config, keyspace: Keyspace, tables: Tables, target: { readonly id: string; readonly range: DeleteRange }): DeleteSettings {
  const { id, range } = target;
  assertDeletableId(id);
  assertRange(range);
  return {
    id,
    range,
    keyspace,
    indexTags: [...cfg.index.tags],
    windows: parseWindows(cfg.rollup.windows),
    data: tables.data,
    index: tables.index,
    rollup: tables.rollup,
    meta: tables.meta,
    blocks: blockSettings(cfg, tables),
    retention: sourceRetention(cfg),
  };
}

/** The key layout's own check of an id (1–128 UTF-8 bytes, no NUL, well-formed), before any HBase call. */
export function assertDeletableId(id: string): void {
  try {
    encodeId(id);
  } catch (err) {
    if (!(err instanceof KeyError)) throw err;
    throw new InputError(`--id: ${err.message}`, { field: '--id', cause: err });
  }
}

/** The identity of a run in its checkpoint: a rerun with another id, range or layout must not continue it. */
export function deleteRunOf(s: DeleteSettings): DeleteRun {
  return {
    id: s.id,
    from: s.range?.from ?? null,
    to: s.range?.to ?? null,
    dataTable: s.data.name,
    indexTable: s.index.name,
    rollupTable: s.rollup.name,
    metaTable: s.meta.name,
    buckets: s.keyspace.buckets,
    keyFormat: s.keyspace.format,
    indexTags: [...s.indexTags],
  };
}
