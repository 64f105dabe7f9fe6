// Pure part of the `storage` phase of `npm run bench:series` (series-storage.ts): its two data sets,
// the figures it records, and their Markdown table. No I/O here.
import { generateEvents, prng, type GeneratedEvent } from '../../../src/demo/index.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export type StorageDataset = 'sparse' | 'dense';

export interface DatasetPlan {
  readonly name: StorageDataset;
  readonly describe: string;
  readonly startTs: number;
  /** exclusive */
  readonly endTs: number;
  readonly metrics: readonly string[];
  /** every point, in time order (a new iterator each call: once to Kafka, once to the TSD) */
  readonly events: () => Iterable<GeneratedEvent>;
  /** the TSD is sent seconds (2-byte qualifiers), as a collector sends whole-second points; else milliseconds */
  readonly tsdSeconds: boolean;
}

/** The day both data sets cover: whole hours, ending at least an hour (and a rollup grace) before `now`. */
export function storageDay(now: number): { startTs: number; endTs: number } {
  const endTs = Math.floor((now - HOUR - 10 * 60_000) / HOUR) * HOUR;
  return { startTs: endTs - DAY, endTs };
}

/**
 * `sparse`: the bench's Zipf set as the site and live phases generate it (generate.ts, seed 42, ids
 * Zipf s = 1.1, three metrics in turn, tag site = rank mod 7), `events` spread evenly over the day.
 */
export function sparsePlan(o: { events: number; ids: number; now: number }): DatasetPlan {
  const { startTs, endTs } = storageDay(o.now);
  const gen = { count: o.events, ids: o.ids, startTs, stepMs: Math.floor(DAY / o.events), seed: 42 };
  return {
    name: 'sparse',
    describe: `${o.events} events, ${o.ids} ids (Zipf 1.1, seed 42), one every ${gen.stepMs} ms`,
    startTs,
    endTs,
    metrics: ['temp', 'hum', 'load'],
    events: () => generateEvents(gen),
    tsdSeconds: false,
  };
}

/** `dense`: `series` ids (metric temp, tag site = id mod 7), one point a minute each over the day; values as the generator draws them. */
export function densePlan(o: { series: number; now: number }): DatasetPlan {
  const { startTs, endTs } = storageDay(o.now);
  const minutes = DAY / 60_000;
  return {
    name: 'dense',
    describe: `${o.series} series (metric temp) × one point a minute, uniform values with 2 decimals (seed 42)`,
    startTs,
    endTs,
    metrics: ['temp'],
    events: function* () {
      const random = prng(42);
      for (let m = 0; m < minutes; m++) {
        for (let s = 0; s < o.series; s++) {
          yield {
            id: `sensor-${String(s).padStart(5, '0')}`,
            ts: startTs + m * 60_000,
            metric: 'temp',
            value: Math.round(random() * 10000) / 100,
            tags: { site: `site-${s % 7}` },
          };
        }
      }
    },
    tsdSeconds: true,
  };
}

/** Points, series (metric + id) and occupied series-hours of a plan. */
export function countPlan(plan: DatasetPlan): { points: number; series: number; seriesHours: number } {
  const series = new Set<string>();
  const hours = new Set<string>();
  let points = 0;
  for (const e of plan.events()) {
    points++;
    const s = `${e.metric} ${e.id}`;
    series.add(s);
    hours.add(`${s} ${Math.floor(e.ts / HOUR)}`);
  }
  return { points, series: series.size, seriesHours: hours.size };
}

export interface FamilyFigures {
  readonly table: string;
  /** the table's role: tsdb, tsdb-uid, tsdb-tree, tsdb-meta; data, index, rollup, meta */
  readonly role: string;
  readonly family: string;
  readonly bytes: number;
  readonly files: number;
  readonly bytesPerPoint: number;
  /** the family's settings as the admin tool's describe reports them */
  readonly settings: Readonly<Record<string, string>>;
}

export interface SideFigures {
  readonly families: readonly FamilyFigures[];
  readonly bytes: number;
  readonly bytesPerPoint: number;
}

export interface RowsCells {
  readonly rows: number;
  readonly cells: number;
}

export interface TsdCompaction {
  /** rows and cells of the tsdb table once every point was stored, after the compacting reads, and with the TSD stopped (as measured) */
  readonly before: RowsCells;
  readonly afterReads: RowsCells;
  readonly after: RowsCells;
  /** full-range reads sent until every row held one cell */
  readonly reads: number;
  readonly seconds: number;
  /** the TSD's tsd.compaction.* statistics (/api/stats) after the reads */
  readonly stats: Readonly<Record<string, number>>;
}

export interface DatasetFigures {
  readonly dataset: StorageDataset;
  readonly describe: string;
  readonly from: string;
  readonly to: string;
  readonly points: number;
  readonly series: number;
  readonly seriesHours: number;
  readonly tsdTimestamps: 's' | 'ms';
  readonly oursDrainSeconds: number;
  readonly oursRollupWaitSeconds: number;
  readonly tsdPutSeconds: number;
  readonly tsdCompaction: TsdCompaction;
  readonly compactSeconds: number;
  /** seconds until every store held at most one file after the major compactions (compacted files discharged) */
  readonly settleSeconds: number;
  readonly tsd: SideFigures;
  readonly ours: SideFigures;
  /** ours / TSD, total bytes */
  readonly ratio: number;
}

/** One side's figures from its families' bytes. */
export function sideFigures(families: readonly Omit<FamilyFigures, 'bytesPerPoint'>[], points: number): SideFigures {
  const bytes = families.reduce((a, f) => a + f.bytes, 0);
  return { families: families.map((f) => ({ ...f, bytesPerPoint: f.bytes / points })), bytes, bytesPerPoint: bytes / points };
}

const SETTINGS = ['COMPRESSION', 'DATA_BLOCK_ENCODING', 'BLOOMFILTER', 'VERSIONS'] as const;
const n0 = (x: number): string => Math.round(x).toLocaleString('en-US');

/** The Markdown table of one data set: every family of both sides, each side's total, and the ratio. */
export function storageTable(d: DatasetFigures): string {
  const lines = [
    `**${d.dataset}**: ${n0(d.points)} points, ${n0(d.series)} series, ${(d.points / d.seriesHours).toFixed(1)} points per occupied series-hour (${d.describe}; ${d.from} … ${d.to}; the TSD sent ${d.tsdTimestamps === 's' ? 'seconds' : 'milliseconds'})`,
    '',
    '| side | table (role) | family | settings | files | bytes | bytes per point |',
    '|---|---|---|---|---:|---:|---:|',
  ];
  for (const [side, s] of [
    ['OpenTSDB 2.4.1', d.tsd],
    ['ours', d.ours],
  ] as const) {
    for (const f of s.families) {
      const settings = SETTINGS.map((k) => f.settings[k] ?? '?').join(', ');
      lines.push(`| ${side} | ${f.role} | \`${f.family}\` | ${settings} | ${f.files} | ${n0(f.bytes)} | ${f.bytesPerPoint.toFixed(1)} |`);
    }
    lines.push(`| **${side} total** | | | | | **${n0(s.bytes)}** | **${s.bytesPerPoint.toFixed(1)}** |`);
  }
  lines.push(`| **ours / OpenTSDB** | | | | | | **${d.ratio.toFixed(2)}×** |`);
  const c = d.tsdCompaction;
  lines.push(
    '',
    `OpenTSDB's row compaction: \`tsdb\` held ${n0(c.before.rows)} rows / ${n0(c.before.cells)} cells once every point was stored, ${n0(c.after.rows)} rows / ${n0(c.after.cells)} cells after ${c.reads} full-range reads (TSD stopped).`,
  );
  return lines.join('\n');
}
