// Pure part of the `storage` phase of `npm run bench:series` (series-storage.ts): its two data sets,
// the figures it records (both stages), and their Markdown tables. No I/O here.
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
  /** every value of the tag `site` (rank or id mod 7 in both sets) */
  readonly sites: readonly string[];
}

const SITES = Array.from({ length: 7 }, (_, i) => `site-${i}`);

/**
 * The day both data sets cover: a whole UTC day, ending at least an hour (and a rollup grace) before
 * `now`, so every point lies in a closed hour and a closed day, as the long-term store holds it (a
 * day cut at another hour leaves the hours after midnight in a day the job has not closed, without
 * their day's summary, pack and block: the footprint would depend on the time of the run).
 */
export function storageDay(now: number): { startTs: number; endTs: number } {
  const endTs = Math.floor((now - HOUR - 10 * 60_000) / DAY) * DAY;
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
    sites: SITES,
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
    sites: SITES,
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
  /** the second stage, ours once the raw rows expired (absent in the results of runs before it existed) */
  readonly afterRawRetention?: RetentionFigures;
}

/**
 * The retention the "after raw retention" stage applies to our tables (`tsingest tables apply`) and
 * restarts our service with: the data and index tables' rows kept an hour (the data set's day ends at
 * least 1 h 10 min before the run, so every raw row is past it), the point blocks for ever.
 */
export const RAW_RETENTION_SETS = ['tables.data.ttlSeconds=3600', 'tables.index.ttlSeconds=3600', 'tables.rollup.pointsTtlSeconds=null'] as const;

/** Queries of one downsample compared, and the series and points of their reference answers. */
export interface CheckCount {
  readonly downsample: string;
  /** the plan every answer took: 'raw' (from point blocks) or 'rollup' */
  readonly plan: 'raw' | 'rollup';
  readonly queries: number;
  readonly series: number;
  readonly points: number;
}

export interface RetentionFigures {
  readonly sets: readonly string[];
  /** what `tsingest tables apply` printed */
  readonly applied: readonly string[];
  /** rows and cells of the data and index tables first read once the TTLs were applied, and the seconds until both read empty */
  readonly visible: { readonly data: RowsCells; readonly index: RowsCells; readonly seconds: number };
  /** events the restarted service consumed (0: it took up at its group's committed offsets) */
  readonly consumedOnRestart: number;
  /** the restarted service's answers, each equal to the one taken before the first stop */
  readonly check: readonly CheckCount[];
  /** X-Tsingest-Plan of each query, before and after */
  readonly plans: readonly { readonly label: string; readonly before: string; readonly after: string }[];
  readonly compactSeconds: number;
  readonly settleSeconds: number;
  readonly ours: SideFigures;
  /** ours after raw retention / the TSD's total (as measured), bytes */
  readonly ratio: number;
}

/** One side's figures from its families' bytes. */
export function sideFigures(families: readonly Omit<FamilyFigures, 'bytesPerPoint'>[], points: number): SideFigures {
  const bytes = families.reduce((a, f) => a + f.bytes, 0);
  return { families: families.map((f) => ({ ...f, bytesPerPoint: f.bytes / points })), bytes, bytesPerPoint: bytes / points };
}

const SETTINGS = ['COMPRESSION', 'DATA_BLOCK_ENCODING', 'BLOOMFILTER', 'VERSIONS'] as const;
const n0 = (x: number): string => Math.round(x).toLocaleString('en-US');
const bold = (x: string): string => `**${x}**`;

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
  if (d.afterRawRetention !== undefined) lines.push('', retentionTable(d, d.afterRawRetention));
  return lines.join('\n');
}

/**
 * The Markdown table of ours after raw retention: each family (its TTL, bytes, and bytes per point then
 * and as first measured), our total against the TSD's (as measured), and the equality check.
 */
export function retentionTable(d: DatasetFigures, r: RetentionFigures): string {
  const first = new Map(d.ours.families.map((f) => [`${f.table} ${f.family}`, f.bytesPerPoint]));
  const lines = [
    `**${d.dataset}, after raw retention** (${r.sets.map((s) => `\`${s}\``).join(', ')} applied with \`tsingest tables apply\`; ours restarted with them, stopped, flushed and major-compacted again)`,
    '',
    '| side | table (role) | family | TTL | files | bytes | bytes per point | bytes per point, all tiers |',
    '|---|---|---|---|---:|---:|---:|---:|',
  ];
  for (const f of r.ours.families) {
    const then = first.get(`${f.table} ${f.family}`);
    lines.push(
      `| ours | ${f.role} | \`${f.family}\` | ${f.settings['TTL'] ?? '?'} | ${f.files} | ${n0(f.bytes)} | ${f.bytesPerPoint.toFixed(1)} | ${then === undefined ? '' : then.toFixed(1)} |`,
    );
  }
  const perPoint = (s: SideFigures): string => bold(s.bytesPerPoint.toFixed(1));
  lines.push(
    `| **ours total** | | | | | ${bold(n0(r.ours.bytes))} | ${perPoint(r.ours)} | ${perPoint(d.ours)} |`,
    `| **OpenTSDB 2.4.1 total** (as measured) | | | | | ${bold(n0(d.tsd.bytes))} | ${perPoint(d.tsd)} | ${perPoint(d.tsd)} |`,
    `| **ours / OpenTSDB** | | | | | | ${bold(`${r.ratio.toFixed(2)}×`)} | ${bold(`${d.ratio.toFixed(2)}×`)} |`,
    '',
    checkText(r),
  );
  return lines.join('\n');
}

/** The equality check in a sentence: queries, series and points compared per downsample. */
function checkText(r: RetentionFigures): string {
  const per = r.check.map((c) => `\`${c.downsample}\` (${c.plan}): ${c.queries} queries, ${n0(c.series)} series, ${n0(c.points)} points`);
  return (
    `The restarted service's answers equal those taken before the first stop: ${per.join('; ')}. ` +
    `Rows / cells first read once the TTLs were applied: data ${n0(r.visible.data.rows)} / ${n0(r.visible.data.cells)}, index ${n0(r.visible.index.rows)} / ${n0(r.visible.index.cells)} (both empty ${r.visible.seconds.toFixed(0)} s later); events consumed on the restart: ${n0(r.consumedOnRestart)}.`
  );
}
