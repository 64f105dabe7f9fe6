// Pure part of the storage phase's "after raw retention" stage (storage-retention.ts): the queries our
// series API answers before and after the raw rows expire, which plan each must take, and the
// comparison of two answers. No I/O here.
import type { DatasetPlan } from './storage-plan.ts';

/**
 * The downsamples asked. `10m-avg` is planned raw (no rollup window, 1h or 1d, divides 10 minutes:
 * docs/SERIES-API.md, "The planner"), its windows read from the point blocks; `1h-avg` is planned on
 * the hourly summaries.
 */
export const CHECK_DOWNSAMPLES = [
  { downsample: '10m-avg', plan: 'raw' },
  { downsample: '1h-avg', plan: 'rollup' },
] as const;

export type CheckPlan = (typeof CHECK_DOWNSAMPLES)[number]['plan'];

export interface CheckQuery {
  /** e.g. `avg:10m-avg:temp{site=site-3,id=*}` */
  readonly label: string;
  readonly downsample: string;
  /** the plan the answer must name (X-Tsingest-Plan) */
  readonly plan: CheckPlan;
  /** the POST /api/query body */
  readonly body: unknown;
}

/**
 * One query per metric, site and downsample over the whole day [startTs, endTs), one series per id
 * (grouped by site and id): every series compared on its own, and each answer within series.maxPoints
 * (a dense day of 2,000 ids in one query would read 2.88 million points).
 */
export function checkQueries(plan: Pick<DatasetPlan, 'startTs' | 'endTs' | 'metrics' | 'sites'>): CheckQuery[] {
  return CHECK_DOWNSAMPLES.flatMap(({ downsample, plan: expect }) =>
    plan.metrics.flatMap((metric) =>
      plan.sites.map((site) => ({
        label: `avg:${downsample}:${metric}{site=${site},id=*}`,
        downsample,
        plan: expect,
        body: {
          start: plan.startTs,
          end: plan.endTs - 1,
          queries: [
            {
              aggregator: 'avg',
              metric,
              downsample,
              filters: [
                { type: 'literal_or', tagk: 'site', filter: site, groupBy: true },
                { type: 'wildcard', tagk: 'id', filter: '*', groupBy: true },
              ],
            },
          ],
        },
      })),
    ),
  );
}

/**
 * Whether an X-Tsingest-Plan header is the plan a check query must take: `raw` read from point blocks
 * (`raw;blocks=<n>…`, n > 0), or `rollup` wholly from the hourly summaries (`rollup:3600s;raw-buckets=0`).
 */
export function planMatches(plan: CheckPlan, header: string): boolean {
  if (plan === 'raw') return /^raw;blocks=[1-9]\d*(;|$)/.test(header);
  return /^rollup:3600s;raw-buckets=0(;|$)/.test(header);
}

interface AnsweredSeries {
  readonly key: string;
  readonly dps: ReadonlyMap<string, unknown>;
}

function seriesOf(answer: unknown, what: string): AnsweredSeries[] {
  if (!Array.isArray(answer)) throw new Error(`${what}: not an array of series: ${JSON.stringify(answer).slice(0, 300)}`);
  return (answer as unknown[]).map((raw) => {
    const s = raw as { metric?: unknown; tags?: Record<string, unknown>; aggregateTags?: unknown[]; dps?: Record<string, unknown> };
    const tags = Object.entries(s.tags ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const aggregated = (s.aggregateTags ?? []).map(String).sort();
    return { key: JSON.stringify([s.metric, tags, aggregated]), dps: new Map(Object.entries(s.dps ?? {})) };
  });
}

/** Series and points of an answer. */
export function seriesAndPoints(answer: unknown): { series: number; points: number } {
  const all = seriesOf(answer, 'the answer');
  return { series: all.length, points: all.reduce((n, s) => n + s.dps.size, 0) };
}

export interface Compared {
  /** series and points of the reference answer */
  readonly series: number;
  readonly points: number;
  /** what differs (series missing or extra, points missing, extra or of another value), the first 10 */
  readonly differences: readonly string[];
  readonly differing: number;
}

/** A later answer against a reference: the same series (metric, tags, aggregated tags), each with the same points (timestamp and value, exactly). */
export function compareAnswers(reference: unknown, later: unknown): Compared {
  const ref = seriesOf(reference, 'the reference answer');
  const got = new Map(seriesOf(later, 'the later answer').map((s) => [s.key, s.dps]));
  const differences: string[] = [];
  let differing = 0;
  const differ = (m: string): void => {
    if (differing++ < 10) differences.push(m);
  };
  let points = 0;
  for (const s of ref) {
    points += s.dps.size;
    const other = got.get(s.key);
    got.delete(s.key);
    if (other === undefined) {
      differ(`series ${s.key} missing`);
      continue;
    }
    for (const [ts, v] of s.dps) if (!Object.is(other.get(ts), v)) differ(`series ${s.key} at ${ts}: ${String(v)}, later ${String(other.get(ts))}`);
    for (const ts of other.keys()) if (!s.dps.has(ts)) differ(`series ${s.key} at ${ts}: an extra point`);
  }
  for (const key of got.keys()) differ(`series ${key}: extra`);
  return { series: ref.length, points, differences, differing };
}
