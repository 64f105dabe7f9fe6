// Rollup markers written by ingest (an id cell per (id, finest window) a flush unit touched), with a
// bounded cache that skips re-marks while a marker is certain to be in place. Pure apart from the
// clock.
// Design notes: docs/DECISIONS.md#rollup-markers-written-by-ingest
import type { DataRow } from '../events/index.ts';
import type { Keyspace } from '../keys/index.ts';
import { LATE_REMARK_EVERY_MS, markerPuts, stampClock } from '../rollup/marker.ts';
import { windowStartOf, type WindowSize } from '../rollup/windows.ts';

export interface RollupMarksOptions {
  /** The finest configured window: ingest marks only it; the job cascades to coarser sizes. */
  readonly window: WindowSize;
  readonly graceMs: number;
  /** rollup.markerSettleMs: the job leaves markers younger than this; 0 (default) = no settle period */
  readonly settleMs?: number;
  readonly keyspace: Keyspace;
  readonly family: string;
  /** Entries kept in the "already marked" cache; 0 disables it. */
  readonly cacheSize: number;
  /** series.tailCache.lateMs: a touch this much older than now (and younger than lateHorizonMs) re-marks */
  readonly lateMs?: number;
  /** series.tailCache.horizonMs: 0 (default) = no late re-marks */
  readonly lateHorizonMs?: number;
  readonly now?: () => number;
}

export interface MarkTouch {
  readonly id: string;
  readonly ts: number;
}

/** A marker row to put, with the ids it marks and the cache keys it stands for (to remember once acknowledged). */
export interface MarkRow {
  readonly row: DataRow;
  /** the marked ids, in order of first touch */
  readonly ids: readonly string[];
  readonly cacheKeys: readonly string[];
  readonly windowStart: number;
  /** the timestamp of every cell of the row */
  readonly stamp: number;
}

/** Largest clock difference tolerated between ingest and rollup-job hosts when skipping a re-mark. */
export const MARK_SKIP_MARGIN_MS = 60_000;

/** Expired cache entries removed by one acknowledged() at most (the rest by the next ones). */
export const EXPIRE_PER_CALL = 1000;

export class RollupMarks {
  readonly #o: RollupMarksOptions;
  readonly #now: () => number;
  /** cacheKey → time until which a re-mark may be skipped */
  readonly #marked = new Map<string, number>();
  /** cacheKey → stamp of its last acknowledged late re-mark (bounded like #marked) */
  readonly #lateStamp = new Map<string, number>();
  readonly #stamp: () => number;

  constructor(options: RollupMarksOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#stamp = stampClock(this.#now);
  }

  /** Until when a marker of the window starting at `start`, stamped `stamp`, is certain to still be in place. */
  #skipUntil(start: number, stamp: number): number {
    const { window, graceMs } = this.#o;
    const settleMs = this.#o.settleMs ?? 0;
    const open = start + window.ms + graceMs - Math.max(5000, Math.min(MARK_SKIP_MARGIN_MS, graceMs / 2));
    return settleMs === 0 ? open : Math.max(open, stamp + settleMs - Math.min(MARK_SKIP_MARGIN_MS, settleMs / 2));
  }

  /** Marker rows for the distinct (id, window) pairs of `touches` that need (re-)marking now. */
  rowsFor(touches: Iterable<MarkTouch>): MarkRow[] {
    const now = this.#now();
    const lateBefore = now - (this.#o.lateMs ?? 0);
    const lateSince = now - (this.#o.lateHorizonMs ?? 0);
    // (window → id → marked in this call?): no string is built for a pair this call has already
    // seen (most touches); a pair skipped as cached is marked after all at its first late touch
    const seen = new Map<number, Map<string, boolean>>();
    const marks: { id: string; windowSec: number; windowStart: number }[] = [];
    for (const { id, ts } of touches) {
      const windowStart = windowStartOf(ts, this.#o.window);
      let ids = seen.get(windowStart);
      if (ids === undefined) seen.set(windowStart, (ids = new Map<string, boolean>()));
      const marked = ids.get(id);
      if (marked === true) continue;
      const late = ts < lateBefore && ts >= lateSince && !this.#remarkedLately(windowStart, id, now);
      if (marked === false && !late) continue;
      if (marked === undefined && !late) {
        const until = this.#marked.get(`${windowStart}\u0000${id}`);
        if (until !== undefined && now < until) {
          ids.set(id, false);
          continue;
        }
      }
      ids.set(id, true);
      marks.push({ id, windowSec: this.#o.window.seconds, windowStart });
    }
    if (marks.length === 0) return [];
    // Strictly increasing cell timestamps: the job deletes a marker row up to the newest stamp it took,
    // so a re-mark must carry a later stamp.
    const stamp = this.#stamp();
    return markerPuts(marks, { keyspace: this.#o.keyspace, family: this.#o.family, stamp }).map((p) => {
      const ids = p.marks.map((m) => m.id);
      const windowStart = (p.marks[0] as { windowStart: number }).windowStart;
      return { row: p.row, ids, cacheKeys: ids.map((id) => `${windowStart}\u0000${id}`), windowStart, stamp };
    });
  }

  /** Whether (id, window) has an acknowledged re-mark stamped less than LATE_REMARK_EVERY_MS ago. */
  #remarkedLately(windowStart: number, id: string, now: number): boolean {
    if (this.#lateStamp.size === 0) return false;
    const stamp = this.#lateStamp.get(`${windowStart}\u0000${id}`);
    return stamp !== undefined && now - stamp < LATE_REMARK_EVERY_MS;
  }

  /** Call once the rows' puts were acknowledged by HBase. */
  acknowledged(rows: readonly MarkRow[]): void {
    if (this.#o.cacheSize === 0) return;
    const now = this.#now();
    if ((this.#o.lateHorizonMs ?? 0) > 0) {
      for (const r of rows) {
        for (const k of r.cacheKeys) {
          this.#lateStamp.delete(k);
          this.#lateStamp.set(k, r.stamp);
        }
      }
      // one iterator: a new one per removal would step over every removed entry still held as a hole
      for (const k of this.#lateStamp.keys()) {
        if (this.#lateStamp.size <= this.#o.cacheSize) break;
        this.#lateStamp.delete(k);
      }
    }
    for (const r of rows) {
      const until = this.#skipUntil(r.windowStart, r.stamp);
      if (until <= now) continue;
      for (const k of r.cacheKeys) {
        this.#marked.delete(k); // re-insert: Map order = insertion order, oldest evicted first
        this.#marked.set(k, until);
      }
    }
    this.#evict(now);
  }

  /**
   * Over cacheSize: the oldest entries out. Expired ones: at most EXPIRE_PER_CALL per call, so that a
   * cache whose entries expire together (the ids marked in the same seconds) does not hold the event
   * loop (100,000 deletes took 110 ms in one call); an expired entry left in place is only a re-mark
   * rowsFor makes anyway (it skips a pair only while now < until).
   */
  #evict(now: number): void {
    let expired = 0;
    for (const [k, until] of this.#marked) {
      if (this.#marked.size > this.#o.cacheSize) {
        this.#marked.delete(k);
        continue;
      }
      if (until > now || expired >= EXPIRE_PER_CALL) break;
      this.#marked.delete(k);
      expired++;
    }
  }

  get cached(): number {
    return this.#marked.size;
  }
}
