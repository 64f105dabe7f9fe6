// Shared setup of the job/backfill unit tests: settings for small windows, events in a FakeHBase,
// finest-window markers as ingest writes them.
import { Registry } from 'prom-client';
import { pino } from 'pino';
import { buildEventCells } from '../../../src/events/index.ts';
import { createReadMetrics, type ReadMetrics } from '../../../src/metrics/read-metrics.ts';
import { putRowOf } from '../../../src/rollup/fold.ts';
import { markerRow } from '../../../src/rollup/marker.ts';
import { parseMarkerRow } from '../../../src/rollup/plan.ts';
import type { RollupSettings } from '../../../src/rollup/rollup-settings.ts';
import type { RollupStore } from '../../../src/rollup/store.ts';
import { parseWindows } from '../../../src/rollup/windows.ts';
import { testKeyspace } from '../../support/keyspace.ts';
import { BLOCK_FAMILY, prng, type Ev } from './brute.ts';
import type { FakeHBase } from '../../support/fake-hbase.ts';

export const B = 4;
export const DAY0 = Date.UTC(2024, 10, 21); // windows long closed at any "now" after DAY0 + 3 days
export const MIN = 60_000;
export const HOUR = 3_600_000;

export function settings(windows: readonly string[] = ['1m', '1h'], extra: Partial<RollupSettings> = {}): RollupSettings {
  return {
    windows: parseWindows(windows),
    graceMs: 0,
    markerSettleMs: 0,
    concurrency: 3,
    keyspace: testKeyspace(B),
    dataTable: 'd',
    rollupTable: 'r',
    rollupFamily: 'r',
    meta: { name: 'm', family: 'm' },
    pageRows: 7,
    blocks: { family: BLOCK_FAMILY, maxPoints: 100_000, everySize: true },
    ...extra,
  };
}

export const silentLog = pino({ level: 'silent' });

export function readMetrics(s: RollupSettings): { registry: Registry; metrics: ReadMetrics } {
  const registry = new Registry();
  return {
    registry,
    metrics: createReadMetrics(
      registry,
      s.windows.map((w) => w.name),
    ),
  };
}

export async function writeEvents(store: FakeHBase, s: RollupSettings, events: readonly Ev[]): Promise<void> {
  for (const e of events) {
    const event = { id: e.id, ts: e.ts, metric: e.metric, value: e.value, tags: {} };
    await store.put(s.dataTable, [putRowOf({ key: s.keyspace.dataKey(e.id, e.ts), cells: buildEventCells(event) })]);
  }
}

let stamp = 1;
/** One marker per distinct (id, finest window) of the events. */
export async function markEvents(store: FakeHBase, s: RollupSettings, events: readonly Ev[]): Promise<number> {
  const finest = s.windows[0];
  if (finest === undefined) throw new Error('no windows');
  const seen = new Set<string>();
  for (const e of events) {
    const windowStart = e.ts - (e.ts % finest.ms);
    const k = `${e.id}|${windowStart}`;
    if (seen.has(k)) continue;
    seen.add(k);
    await store.put(s.rollupTable, [
      putRowOf(markerRow({ id: e.id, windowSec: finest.seconds, windowStart }, { keyspace: s.keyspace, family: s.rollupFamily, stamp: stamp++ })),
    ]);
  }
  return seen.size;
}

/** What randomEvents draws: `n` events of `ids` ids over `hours` hours from `from`, from `seed`. */
export interface EventDraw {
  readonly seed: number;
  readonly n: number;
  readonly ids: number;
  readonly from: number;
  readonly hours: number;
}

/** Random events over `hours` hours from `from`, quarter-integer values (exact sums in any order). */
export function randomEvents(draw: EventDraw): Ev[] {
  const { seed, n, ids, from, hours } = draw;
  const rnd = prng(seed);
  return Array.from({ length: n }, () => ({
    id: `dev-${Math.floor(rnd() * ids)}`,
    ts: from + Math.floor(rnd() * hours * HOUR),
    metric: rnd() < 0.5 ? 'temp' : 'hum',
    value: Math.round(rnd() * 4000 - 2000) / 4,
  }));
}

export function markerRows(store: FakeHBase, s: RollupSettings): Buffer[] {
  return store
    .rows(s.rollupTable)
    .filter((r) => r.row[1] === 0x00)
    .map((r) => r.row);
}

/** The (id, window) pairs still marked, as `id|windowSec|windowStart`, sorted: marker rows' id cells and per-id markers. */
export function marksIn(store: FakeHBase, s: RollupSettings): string[] {
  const out: string[] = [];
  for (const r of store.rows(s.rollupTable)) {
    if (r.row[1] !== 0x00) continue;
    const found = parseMarkerRow(r.row, r.cells, s.keyspace);
    for (const m of found?.windows ?? []) out.push(`${m.parts.id}|${m.parts.windowSec}|${m.parts.windowStart}`);
  }
  return out.sort();
}

export interface Call {
  readonly op: 'scan' | 'put' | 'checkAndDelete';
  readonly table: string;
  /** put: the rows' keys; checkAndDelete: the row; scan: its start row */
  readonly keys: readonly Buffer[];
}

/** The store with every call logged (in the order they are made) before it runs. */
export function recording(store: RollupStore): { store: RollupStore; log: Call[] } {
  const log: Call[] = [];
  return {
    log,
    store: {
      scan: (table, opts) => {
        log.push({ op: 'scan', table, keys: opts.startRow === undefined ? [] : [opts.startRow] });
        return store.scan(table, opts);
      },
      put: (table, rows) => {
        log.push({ op: 'put', table, keys: rows.map((r) => r.row) });
        return store.put(table, rows);
      },
      checkAndDelete: (table, del) => {
        log.push({ op: 'checkAndDelete', table, keys: [del.row] });
        return store.checkAndDelete(table, del);
      },
    },
  };
}
