// Pure part of `npm run bench:blocks` (scripts/bench-blocks.ts): the point sets whose point blocks it
// encodes and decodes, cut into blocks as the rollup job cuts them (one per id, metric and window of
// each size). The storage phase's sparse and dense sets (storage-plan.ts), the compatibility suite's
// set (gauges with two decimals, an integer counter), and typical monitoring series: slowly varying
// gauges (two decimals, and full doubles), counters, integer gauges, a status flag, and random
// doubles at random milliseconds (the worst case). No I/O here.
import { prng, type GeneratedEvent } from '../../../src/demo/index.ts';
import { DEFAULT_DATASET, events as compatEvents } from '../compat/dataset.ts';
import { densePlan, sparsePlan } from './storage-plan.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** the default rollup sizes (rollup.windows): every point is in a 1h block and a 1d block */
export const BLOCK_SIZES_MS = [HOUR, DAY] as const;

export interface Block {
  readonly windowStart: number;
  readonly windowMs: number;
  readonly ts: number[];
  readonly values: number[];
}

export interface BlockSet {
  readonly name: string;
  readonly describe: string;
  readonly points: number;
  /** every block of every size, in (size, series, window) order */
  readonly blocks: readonly Block[];
}

type Point = Pick<GeneratedEvent, 'id' | 'metric' | 'ts' | 'value'>;

/** The blocks of `points` (any order; one per id and ts and metric) at each size of BLOCK_SIZES_MS. */
export function blocksOf(name: string, describe: string, points: Iterable<Point>): BlockSet {
  const series = new Map<string, Point[]>();
  let count = 0;
  for (const p of points) {
    const k = `${p.metric}\u0000${p.id}`;
    let list = series.get(k);
    if (list === undefined) series.set(k, (list = []));
    list.push(p);
    count++;
  }
  const blocks: Block[] = [];
  for (const windowMs of BLOCK_SIZES_MS) {
    for (const list of series.values()) {
      list.sort((a, b) => a.ts - b.ts);
      let open: Block | undefined;
      for (const p of list) {
        const windowStart = Math.floor(p.ts / windowMs) * windowMs;
        if (open?.windowStart !== windowStart) blocks.push((open = { windowStart, windowMs, ts: [], values: [] }));
        open.ts.push(p.ts);
        open.values.push(p.value);
      }
    }
  }
  return { name, describe, points: count, blocks };
}

/** A fixed day: the sets are the same on every run. */
const NOW = Date.parse('2026-11-29T13:55:00Z');
const START = Date.parse('2026-11-28T00:00:00Z');

export type MonitoringKind = 'gauge-2dp' | 'gauge-f64' | 'counter' | 'int-gauge' | 'status' | 'random-f64';

const MONITORING: Record<MonitoringKind, string> = {
  'gauge-2dp': 'a temperature-like gauge with 2 decimals, a slow random walk (±0.05), every 10 s on whole seconds',
  'gauge-f64': 'a load-like gauge as a full double (an exponential moving average), every 10 s, scraped 0–50 ms late',
  counter: 'an integer byte counter (increments 0–50,000), every 10 s on whole seconds',
  'int-gauge': 'an integer gauge (connections, a random walk of ±3 around 200), every 10 s on whole seconds',
  status: 'a 0/1 status that flips about once a day, every 10 s on whole seconds',
  'random-f64': 'uniform random doubles in [0, 1e6) at uniformly random milliseconds (≈ 1 every 10 s): the worst case',
};

/** `series` series of one kind of monitoring data over one day. */
export function* monitoringPoints(kind: MonitoringKind, series: number): Generator<Point> {
  const random = prng(1_000 + Object.keys(MONITORING).indexOf(kind));
  const n = DAY / 10_000;
  for (let s = 0; s < series; s++) {
    const id = `host-${String(s).padStart(4, '0')}`;
    let v = kind === 'gauge-2dp' ? 20 + random() * 10 : kind === 'int-gauge' ? 200 : kind === 'counter' ? Math.floor(random() * 1e9) : random();
    let up = 1;
    const randomTs = kind === 'random-f64' ? [...new Set(Array.from({ length: n }, () => START + Math.floor(random() * DAY)))].sort((a, b) => a - b) : [];
    for (let i = 0; i < n; i++) {
      let ts = START + i * 10_000;
      let value: number;
      switch (kind) {
        case 'gauge-2dp':
          value = v = Math.round((v + (random() - 0.5) / 10) * 100) / 100;
          break;
        case 'gauge-f64':
          ts += Math.floor(random() * 51);
          value = v = 0.9 * v + 0.1 * random() * 4;
          break;
        case 'counter':
          value = v += Math.floor(random() * 50_001);
          break;
        case 'int-gauge':
          value = v = Math.max(0, v + Math.floor(random() * 7) - 3);
          break;
        case 'status':
          if (random() < 1 / n) up = 1 - up;
          value = up;
          break;
        case 'random-f64':
          ts = randomTs[i] ?? ts;
          if (i >= randomTs.length) continue;
          value = random() * 1e6;
          break;
      }
      yield { id, metric: kind, ts, value };
    }
  }
}

export const SET_NAMES = ['sparse', 'dense', 'compat', ...(Object.keys(MONITORING) as MonitoringKind[])] as const;
export type SetName = (typeof SET_NAMES)[number];

/** One set by name: the storage phase's at its defaults (200,000 events over 10,000 ids; 2,000 series), the others as described. */
export function blockSet(name: SetName, o: { monitoringSeries: number }): BlockSet {
  if (name === 'sparse') {
    const plan = sparsePlan({ events: 200_000, ids: 10_000, now: NOW });
    return blocksOf(name, `the storage phase's sparse set: ${plan.describe}`, plan.events());
  }
  if (name === 'dense') {
    const plan = densePlan({ series: 2_000, now: NOW });
    return blocksOf(name, `the storage phase's dense set: ${plan.describe}`, plan.events());
  }
  if (name === 'compat') {
    return blocksOf(
      name,
      'the compatibility suite: 12 ids × temp, hum (2 decimals), bytes (an integer counter), about a minute apart, ±3 s jitter',
      compatEvents(DEFAULT_DATASET),
    );
  }
  return blocksOf(name, `${o.monitoringSeries} series × ${MONITORING[name]}`, monitoringPoints(name, o.monitoringSeries));
}
