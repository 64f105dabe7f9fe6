// Touch rows written by ingest: for each id a flush unit wrote with a recent ts, a cell in its base
// bucket's touch row of the hour slice, stamped with ingest's clock after the data rows were
// acknowledged (a future-dated event: with its ts). The series API's tail cache answers an id from
// what it read while no touch of the id is stamped after that read (less TOUCH_EVERY_MS and the
// clocks' tolerance), so a dashboard refresh reads from HBase only the ids written since.
// Pure apart from the clock.
// Design notes: docs/DECISIONS.md#touch-rows
import type { DataRow } from '../events/index.ts';
import type { Keyspace } from '../keys/index.ts';
import { TOUCH_EVERY_MS, TOUCH_KEEP_MS, TOUCH_SLICE_MS, touchSliceOf } from '../rollup/touch.ts';

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
  /** id → stamp of its touch at ingest's now (future-dated events' touches are not remembered) */
  readonly stamped: ReadonlyMap<string, number>;
}

/** A sweep of the touch rows of a slice long past: each bucket's row, cells stamped up to `before`. */
export interface TouchSweep {
  readonly rows: readonly Buffer[];
  readonly before: number;
}

const EMPTY = Buffer.alloc(0);

/** Events up to this much older than the horizon still touch (the hosts' clocks may differ). */
export const TOUCH_HORIZON_MARGIN_MS = 600_000;

export class Touches {
  readonly #o: TouchesOptions;
  readonly #now: () => number;
  /** id → stamp of its last acknowledged touch (insertion order: oldest first) */
  readonly #last = new Map<string, number>();
  /** the newest slice whose expired predecessor was swept */
  #swept = Number.NEGATIVE_INFINITY;

  constructor(options: TouchesOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  /** The touch rows for `touches` (a unit's acknowledged events), or undefined when none is needed. */
  rowsFor(touches: Iterable<{ readonly id: string; readonly ts: number }>): TouchWrite | undefined {
    const now = this.#now();
    // (a margin for the hosts' clocks: a reader asks the tail from its own now − horizonMs)
    const since = now - this.#o.horizonMs - TOUCH_HORIZON_MARGIN_MS;
    // (slice, id) → stamp: a future-dated event's touch lies in its own slice, stamped with its ts, so a
    // reader whose range reaches it finds it whenever it was written
    const cells = new Map<string, { id: string; stamp: number }>();
    const stamped = new Map<string, number>();
    for (const { id, ts } of touches) {
      if (ts < since) continue;
      if (ts > now) {
        const key = `${touchSliceOf(ts)}\u0000${id}`;
        const had = cells.get(key);
        if (had === undefined || had.stamp < ts) cells.set(key, { id, stamp: ts });
        continue;
      }
      if (stamped.has(id)) continue;
      const last = this.#last.get(id);
      if (last !== undefined && last > now - TOUCH_EVERY_MS) continue;
      stamped.set(id, now);
      cells.set(`${touchSliceOf(now)}\u0000${id}`, { id, stamp: now });
    }
    if (cells.size === 0) return undefined;
    const rows = new Map<string, DataRow & { cells: DataRow['cells'][number][] }>();
    const { keyspace, family } = this.#o;
    for (const { id, stamp } of cells.values()) {
      const salt = keyspace.baseSalt(id);
      const slice = touchSliceOf(stamp);
      const k = `${salt}:${slice}`;
      let row = rows.get(k);
      if (row === undefined) rows.set(k, (row = { key: keyspace.touchKey(salt, slice), cells: [] }));
      row.cells.push({ family, qualifier: Buffer.from(id, 'utf8'), value: EMPTY, timestamp: stamp });
    }
    return { rows: [...rows.values()], stamped };
  }

  /** Call once the rows' put was acknowledged. */
  acknowledged(write: TouchWrite): void {
    const max = this.#o.cacheSize;
    if (max === 0) return;
    for (const [id, stamp] of write.stamped) {
      this.#last.delete(id);
      this.#last.set(id, stamp);
    }
    for (const id of this.#last.keys()) {
      if (this.#last.size <= max) break;
      this.#last.delete(id);
    }
  }

  /**
   * Once per slice and process: each bucket's row of the slice that ended TOUCH_KEEP_MS ago, to delete.
   * One attempt (best effort: a row left behind costs its bytes, never an answer, since a reader reads
   * only the slices it needs).
   */
  sweep(): TouchSweep | undefined {
    const current = touchSliceOf(this.#now());
    if (current <= this.#swept) return undefined;
    this.#swept = current;
    const slice = current - TOUCH_SLICE_MS - TOUCH_KEEP_MS;
    const { keyspace } = this.#o;
    const rows = Array.from({ length: keyspace.buckets }, (_, salt) => keyspace.touchKey(salt, slice));
    return { rows, before: slice + TOUCH_SLICE_MS };
  }
}
