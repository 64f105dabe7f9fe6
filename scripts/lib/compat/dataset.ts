// Pure: the deterministic data set of the side-by-side check against OpenTSDB 2.4.1
// (`npm run compat:opentsdb`, docs/SERIES-API.md "Side by side with OpenTSDB"). The same points in
// two views: as OpenTSDB's /api/put sees them ({metric, timestamp ms, value, tags {site, id}}) and as
// our service's events ({id, ts, metric, value, tags {site}}; our API exposes the id as tag `id`).
//
// 3 sites × 4 ids, whole-hour-aligned start, one report per id and metric about every minute:
// - each id reports at its own second of the minute (`offsetSec`), with ±3 s jitter, so series never
//   share timestamps and cross-series aggregation has to interpolate;
// - ids 2 and 4 of each site miss whole hours (`missesHour`), so interpolation spans gaps and fills
//   (nan, null, zero) have empty buckets to fill;
// - `temp` and `hum` are gauges with two decimals; `bytes` is an integer counter that wraps at 2^32
//   once for `n01` (a rollover) and restarts from a small value once for `s02` (a reset).
import { prng } from '../../../src/demo/index.ts';

export const SITES = ['north', 'south', 'west'] as const;
export const METRICS = ['temp', 'hum', 'bytes'] as const;
export type CompatMetric = (typeof METRICS)[number];
export const COUNTER_MAX = 2 ** 32;
const HOUR = 3_600_000;
const MINUTE = 60_000;

export interface DatasetParams {
  /** a name for the recording (`default`, `small`) */
  readonly name: string;
  /** epoch ms, on a whole hour (UTC) */
  readonly startMs: number;
  /** hours of data (at least 6: the suite's 6 h windows) */
  readonly hours: number;
  readonly seed: number;
}

/** 2026-03-01T00:00:00Z: a Sunday, whole day in UTC (Asia/Shanghai's day starts at 16:00 UTC). */
export const DEFAULT_START_MS = Date.UTC(2026, 2, 1, 0, 0, 0);
export const DEFAULT_DATASET: DatasetParams = { name: 'default', startMs: DEFAULT_START_MS, hours: 26, seed: 20_241 };
export const SMALL_DATASET: DatasetParams = { name: 'small', startMs: DEFAULT_START_MS, hours: 6, seed: 20_241 };

export interface CompatPoint {
  readonly metric: CompatMetric;
  readonly timestamp: number;
  readonly value: number;
  readonly tags: { readonly site: string; readonly id: string };
}

export interface CompatEvent {
  readonly id: string;
  readonly ts: number;
  readonly metric: CompatMetric;
  readonly value: number;
  readonly tags: { readonly site: string };
}

export interface IdSpec {
  readonly id: string;
  readonly site: string;
  /** 1..4 within its site */
  readonly n: number;
  /** second of the minute it reports at (before jitter) */
  readonly offsetSec: number;
}

/** n01..n04 (north), s01..s04 (south), w01..w04 (west). */
export function ids(): IdSpec[] {
  const out: IdSpec[] = [];
  SITES.forEach((site, si) => {
    for (let n = 1; n <= 4; n++) out.push({ id: `${site[0] ?? '?'}0${n}`, site, n, offsetSec: 5 + (((si * 4 + n) * 17) % 50) });
  });
  return out;
}

/** Ids 2 and 4 of each site miss some whole hours: 2 every 5th hour from hour 2, 4 every 4th from hour 1 (+ the site's index). */
export function missesHour(spec: IdSpec, hour: number): boolean {
  const si = SITES.indexOf(spec.site as (typeof SITES)[number]);
  if (spec.n === 2) return hour % 5 === (2 + si) % 5;
  if (spec.n === 4) return hour % 4 === (1 + si) % 4;
  return false;
}

const round2 = (v: number): number => Math.round(v * 100) / 100;

function validate(p: DatasetParams): void {
  if (p.startMs % HOUR !== 0) throw new RangeError(`data set start must be on a whole hour, got ${new Date(p.startMs).toISOString()}`);
  if (!Number.isInteger(p.hours) || p.hours < 6) throw new RangeError(`data set hours must be an integer ≥ 6, got ${p.hours}`);
}

/** The data set's end (exclusive): start + hours. */
export function endMs(p: DatasetParams): number {
  return p.startMs + p.hours * HOUR;
}

/** Every point, ordered by id, then metric, then time. */
export function points(p: DatasetParams): CompatPoint[] {
  validate(p);
  const out: CompatPoint[] = [];
  const minutes = p.hours * 60;
  for (const spec of ids()) {
    const idIndex = ids().findIndex((s) => s.id === spec.id);
    METRICS.forEach((metric, mi) => {
      const random = prng(p.seed * 1000 + idIndex * 10 + mi);
      const phase = random() * Math.PI * 2;
      // bytes: n01 starts 90 minutes (at ~20 kB/min) below 2^32, so it wraps in the second hour
      let counter = spec.id === 'n01' ? COUNTER_MAX - 1_800_000 : Math.floor(random() * 1e9);
      const resetMinute = spec.id === 's02' ? 150 : -1;
      for (let m = 0; m < minutes; m++) {
        const hour = Math.floor(m / 60);
        const jitter = Math.floor(random() * 7) - 3; // drawn every minute, so gaps do not shift the rest
        const noise = random() - 0.5;
        const step = 10_000 + Math.floor(random() * 20_000);
        counter += step;
        if (m === resetMinute) counter = step;
        if (counter >= COUNTER_MAX) counter -= COUNTER_MAX;
        if (missesHour(spec, hour)) continue;
        const ts = p.startMs + m * MINUTE + (spec.offsetSec + jitter) * 1000;
        const dayAngle = ((ts - p.startMs) / (24 * HOUR)) * Math.PI * 2 + phase;
        const value =
          metric === 'temp'
            ? round2(15 + spec.n + 6 * Math.sin(dayAngle) + noise)
            : metric === 'hum'
              ? round2(55 + 20 * Math.cos(dayAngle) + 3 * noise)
              : counter;
        out.push({ metric, timestamp: ts, value, tags: { site: spec.site, id: spec.id } });
      }
    });
  }
  return out;
}

/** The same points as our service's events. */
export function events(p: DatasetParams): CompatEvent[] {
  return points(p).map((x) => ({ id: x.tags.id, ts: x.timestamp, metric: x.metric, value: x.value, tags: { site: x.tags.site } }));
}

/** Points per metric: what a raw `none` query over the whole set must count. */
export function countsByMetric(p: DatasetParams): Record<CompatMetric, number> {
  const c: Record<CompatMetric, number> = { temp: 0, hum: 0, bytes: 0 };
  for (const x of points(p)) c[x.metric]++;
  return c;
}
