// Touch rows written by ingest: for each id a flush unit wrote with a recent ts, a cell in its base
// bucket's touch row of the minute (a ring of rows, src/rollup/touch.ts), stamped with ingest's clock
// after the data rows were acknowledged. The series API's tail cache answers an id from
// what it read while no touch of the id is stamped after that read (less TOUCH_EVERY_MS and the
// clocks' tolerance), so a dashboard refresh reads from HBase only the ids written since.
// Pure apart from the clock.
// Design notes: docs/DECISIONS.md#touch-rows
import type { DataRow } from '../events/index.ts';
import type { Keyspace } from '../keys/index.ts';
import { TOUCH_EVERY_MS, touchSlotOf } from '../rollup/touch.ts';

export interface TouchesOptions {
  readonly keyspace: Keyspace;
  /** the rollup table's family (the markers') */
  readonly family: string;
  /** series.tailCache.horizonMs: only events this young touch (older ones are never in a tail read) */
  readonly horizonMs: number;
  /** ids whose last touch is remembered (to skip re-touching within TOUCH_EVERY_MS); 0: every unit touches */
  readonly cacheSize: number;
  readonly now?: () => number;
}

/** The touch rows of a unit, and what to remember once they are acknowledged. */
export interface TouchWrite {
  readonly rows: readonly DataRow[];
  /** the ids touched, all at `stamp` (ingest's now) */
  readonly ids: readonly string[];
  readonly stamp: number;
}

const EMPTY = Buffer.alloc(0);

/** Events up to this much older than the horizon still touch (the hosts' clocks may differ). */
export const TOUCH_HORIZON_MARGIN_MS = 600_000;

export class Touches {
  readonly #o: TouchesOptions;
  readonly #now: () => number;
  /** id → stamp of its last acknowledged touch (insertion order: oldest first) */
  readonly #last = new Map<string, number>();

  constructor(options: TouchesOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  /** The touch rows for `touches` (a unit's acknowledged events), or undefined when none is needed. */
  rowsFor(touches: Iterable<{ readonly id: string; readonly ts: number }>): TouchWrite | undefined {
    const now = this.#now();
    // (a margin for the hosts' clocks: a reader asks the tail from its own now − horizonMs)
    const since = now - this.#o.horizonMs - TOUCH_HORIZON_MARGIN_MS;
    const ids = new Set<string>();
    for (const { id, ts } of touches) {
      if (ts < since || ids.has(id)) continue;
      const last = this.#last.get(id);
      if (last !== undefined && last > now - TOUCH_EVERY_MS) continue;
      ids.add(id);
    }
    if (ids.size === 0) return undefined;
    const rows = new Map<number, DataRow & { cells: DataRow['cells'][number][] }>();
    const { keyspace, family } = this.#o;
    const slot = touchSlotOf(now);
    for (const id of ids) {
      const salt = keyspace.baseSalt(id);
      let row = rows.get(salt);
      if (row === undefined) rows.set(salt, (row = { key: keyspace.touchKey(salt, slot), cells: [] }));
      row.cells.push({ family, qualifier: Buffer.from(id, 'utf8'), value: EMPTY, timestamp: now });
    }
    return { rows: [...rows.values()], ids: [...ids], stamp: now };
  }

  /** Call once the rows' put was acknowledged. */
  acknowledged(write: TouchWrite): void {
    const max = this.#o.cacheSize;
    if (max === 0) return;
    for (const id of write.ids) {
      this.#last.delete(id);
      this.#last.set(id, write.stamp);
    }
    for (const id of this.#last.keys()) {
      if (this.#last.size <= max) break;
      this.#last.delete(id);
    }
  }
}
