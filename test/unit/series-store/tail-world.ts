// The world of the tail cache's unit tests: the real SeriesStore and tail reads on the in-memory HBase,
// with ingest's real marking and touching rules (RollupMarks, Touches) and a clock the tests move.
import { buildEventCells } from '../../../src/events/index.ts';
import { RollupMarks } from '../../../src/ingest/rollup-marks.ts';
import { Touches } from '../../../src/ingest/touches.ts';
import { NO_SPREAD } from '../../../src/keys/index.ts';
import { fixedSpread } from '../../../src/series-store/index.ts';
import { putRowOf } from '../../../src/rollup/fold.ts';
import { parseWindow } from '../../../src/rollup/windows.ts';
import type { TaggedPoints } from '../../../src/series-data/points.ts';
import { SeriesStore } from '../../../src/series-store/series-store.ts';
import { TailCache } from '../../../src/series-store/tail-cache.ts';
import { withTailCache } from '../../../src/series-store/tail-reads.ts';
import { FakeHBase } from '../../support/fake-hbase.ts';
import { testKeyspace } from '../../support/keyspace.ts';

const B = 4;
export const HOUR = 3_600_000;
export const T0 = Date.UTC(2026, 10, 28, 14); // the open hour's start
export const keyspace = testKeyspace(B);
export const META = { name: 'm', family: 'm' };

/** The SeriesStore of the tests' tables on `port`. */
export function storeOf(port: FakeHBase): SeriesStore {
  return new SeriesStore(port, {
    keyspace,
    data: { name: 'd', family: 'd' },
    rollup: { name: 'r', family: 'r' },
    meta: META,
    spread: fixedSpread(NO_SPREAD),
    deadlineMs: 10_000,
    idTagKey: 'id',
    blockFamily: null,
  });
}

export interface World {
  readonly port: FakeHBase;
  readonly clock: { t: number };
  readonly marks: RollupMarks;
  readonly cache: TailCache;
  readonly reads: ReturnType<typeof withTailCache>;
  readonly scans: { ranges: number };
  /**
   * A writer acting between two reads: runs once, after the next generations read has taken its
   * tokens; the markers read of the same moment waits for it (it reads what the writer left).
   */
  between(writer: () => Promise<void>): void;
  /** as ingest writes: the data row, then its marker and its touch (each skipped when false) */
  write(id: string, ts: number, value: number, opts?: { readonly mark?: boolean; readonly touch?: boolean }): Promise<void>;
  /** live events every `step` ms from `from` to the clock, each written 100 ms after its ts (the clock follows) */
  live(ids: readonly string[], from: number, step: number): Promise<void>;
  /** the points of the ids in [from, to) (default: the open hour) */
  read(ids: readonly string[], from?: number, to?: number): Promise<Map<string, number[]>>;
}

export function world(maxBytes = 1 << 24, clockToleranceMs = 5000): World {
  const port = new FakeHBase();
  const clock = { t: T0 + 10 * 60_000 };
  const marks = new RollupMarks({
    window: parseWindow('1h'),
    graceMs: 300_000,
    settleMs: 120_000,
    keyspace,
    family: 'r',
    cacheSize: 1000,
    lateMs: 30_000,
    lateHorizonMs: 2 * HOUR,
    now: () => clock.t,
  });
  const touches = new Touches({ keyspace, family: 'r', horizonMs: 2 * HOUR, cacheSize: 1000, now: () => clock.t });
  const store = storeOf(port);
  const scans = { ranges: 0 };
  let armed: { writer: () => Promise<void>; done: Promise<undefined>; ran: () => void } | undefined;
  // count the data-table points each read takes from HBase
  const counted = {
    windowsOf: store.windowsOf.bind(store),
    marksAndTouchesOf: async (...args: Parameters<SeriesStore['marksAndTouchesOf']>) => {
      await armed?.done;
      return store.marksAndTouchesOf(...args);
    },
    generations: async () => {
      const tokens = await store.generations();
      const hook = armed;
      armed = undefined;
      if (hook !== undefined) {
        await hook.writer();
        hook.ran();
      }
      return tokens;
    },
    rawPointsOf: async (...args: Parameters<SeriesStore['rawPointsOf']>) => {
      const got = await store.rawPointsOf(...args);
      for (const byId of got.values()) for (const sets of byId.values()) for (const p of sets.values()) scans.ranges += p.ts.length;
      return got;
    },
  };
  const cache = new TailCache({
    maxBytes,
    maxAgeMs: 900_000,
    horizonMs: 2 * HOUR,
    lateMs: 30_000,
    clockToleranceMs,
    markSizeMs: HOUR,
    now: () => clock.t,
  });
  const reads = withTailCache(counted, { port: counted, cache, bucketOf: (id) => keyspace.baseSalt(id) }, { lingerMs: 5, minIds: 1 });
  return {
    port,
    clock,
    marks,
    cache,
    reads,
    scans,
    between(writer) {
      let ran = (): void => undefined;
      const done = new Promise<undefined>((resolve) => {
        ran = () => {
          resolve(undefined);
        };
      });
      armed = { writer, done, ran };
    },
    async write(id, ts, value, opts = {}) {
      const { mark = true, touch = true } = opts;
      await port.put('d', [putRowOf({ key: keyspace.dataKey(id, ts), cells: buildEventCells({ id, ts, metric: 'temp', value, tags: {} }) })]);
      const touched = touch ? touches.rowsFor([{ id, ts }]) : undefined;
      if (touched !== undefined) {
        await port.put(
          'r',
          touched.rows.map((r) => putRowOf(r)),
        );
        touches.acknowledged(touched);
      }
      if (!mark) return;
      const rows = marks.rowsFor([{ id, ts }]);
      if (rows.length > 0)
        await port.put(
          'r',
          rows.map((r) => putRowOf(r.row)),
        );
      marks.acknowledged(rows);
    },
    async live(ids, from, step) {
      const end = clock.t;
      for (let t = from; t < end; t += step) {
        clock.t = t + 100;
        for (const id of ids) await this.write(id, t, 1);
      }
      clock.t = end;
    },
    async read(ids, from = T0, to = T0 + HOUR) {
      const got = await reads.rawPointsOf({ ids, metrics: ['temp'], from, to }, { take: () => undefined });
      const out = new Map<string, number[]>();
      for (const [id, sets] of got.get('temp') ?? [])
        out.set(
          id,
          [...sets.values()].flatMap((p: TaggedPoints) => p.ts),
        );
      return out;
    },
  };
}

/** Every point HBase holds for the ids in the open hour, read without the cache. */
export function truth(w: World, ids: readonly string[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const row of w.port.rows('d')) {
    const { id, ts } = keyspace.decodeDataKey(row.row);
    if (!ids.includes(id) || ts < T0 || ts >= T0 + HOUR) continue;
    out.set(
      id,
      [...(out.get(id) ?? []), ts].sort((a, b) => a - b),
    );
  }
  return out;
}
