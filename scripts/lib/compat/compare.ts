// Pure: one query's two answers (OpenTSDB 2.4.1's, ours) → the differences between them.
// - errors: compared on the HTTP status and `error.code`, never the text;
// - result series matched by metric + tags + aggregateTags (+ query.index under showQuery), order-free
//   as the TSD itself gives no order; series with the same key are paired in their order;
// - points: the same timestamps, values equal within relative 1e-9 (absolute 1e-12 near 0), "NaN"
//   only against NaN, null only against null; at most MAX_POINT_DIFFS mismatches reported per series;
// - dps rendering (object vs [[ts, v]] arrays) and the showQuery echo on the fields that matter.

export interface Answer {
  readonly status: number;
  readonly body: unknown;
}

export const DIFF_KINDS = ['status', 'error-code', 'body-shape', 'series-missing', 'series-extra', 'dps-form', 'timestamps', 'values', 'query-echo'] as const;
export type DiffKind = (typeof DIFF_KINDS)[number];

export interface Difference {
  readonly query: string;
  readonly kind: DiffKind;
  /** the series key (metric{tags} [aggregateTags]) when the difference is inside one series */
  readonly series?: string;
  readonly detail: string;
}

export const MAX_POINT_DIFFS = 5;
const REL = 1e-9;
const ABS = 1e-12;

type Value = number | null | 'NaN';
type Point = readonly [number, Value];

interface Series {
  readonly key: string;
  readonly form: 'object' | 'arrays';
  readonly points: readonly Point[];
  readonly query: Record<string, unknown> | undefined;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function sortedEntries(o: unknown): string {
  if (!isRecord(o)) return '';
  return Object.keys(o)
    .sort()
    .map((k) => `${k}=${String(o[k])}`)
    .join(',');
}

function toValue(v: unknown): Value {
  if (v === null) return null;
  if (v === 'NaN' || (typeof v === 'number' && Number.isNaN(v))) return 'NaN';
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  throw new Error(`not a data point value: ${JSON.stringify(v)}`);
}

function toPoints(dps: unknown): { form: Series['form']; points: Point[] } {
  if (Array.isArray(dps)) {
    return {
      form: 'arrays',
      points: dps.map((p): Point => {
        if (!Array.isArray(p) || p.length !== 2) throw new Error(`not a [ts, value] pair: ${JSON.stringify(p)}`);
        return [Number(p[0]), toValue(p[1])];
      }),
    };
  }
  if (!isRecord(dps)) throw new Error('dps is neither an object nor an array');
  return { form: 'object', points: Object.entries(dps).map(([k, v]): Point => [Number(k), toValue(v)]) };
}

/** The series key: metric{sorted tags} [sorted aggregateTags] (#query.index when echoed). */
export function seriesKey(s: Record<string, unknown>): string {
  const agg = Array.isArray(s['aggregateTags']) ? (s['aggregateTags'] as unknown[]).map(String).sort().join(',') : '';
  const q = s['query'];
  const index = isRecord(q) && q['index'] !== undefined ? ` #${JSON.stringify(q['index'])}` : '';
  return `${String(s['metric'])}{${sortedEntries(s['tags'])}} [${agg}]${index}`;
}

function toSeries(body: unknown): Series[] {
  if (!Array.isArray(body)) throw new Error('the body is not an array of series');
  return body.map((s) => {
    if (!isRecord(s)) throw new Error('a series is not an object');
    const { form, points } = toPoints(s['dps']);
    const q = s['query'];
    return { key: seriesKey(s), form, points, query: isRecord(q) ? q : undefined };
  });
}

export function valuesEqual(a: Value, b: Value): boolean {
  if (a === null || b === null || a === 'NaN' || b === 'NaN') return a === b;
  if (a === b) return true;
  const d = Math.abs(a - b);
  return d <= ABS || d <= REL * Math.max(Math.abs(a), Math.abs(b));
}

const show = (p: Point | undefined): string => (p === undefined ? '—' : `${p[0]}=${JSON.stringify(p[1])}`);

function comparePoints(query: string, key: string, ref: readonly Point[], ours: readonly Point[]): Difference[] {
  const out: Difference[] = [];
  const refTs = ref.map((p) => p[0]);
  const ourTs = ours.map((p) => p[0]);
  if (refTs.length !== ourTs.length || refTs.some((t, i) => t !== ourTs[i])) {
    const lines: string[] = [];
    for (let i = 0; i < Math.max(ref.length, ours.length) && lines.length < MAX_POINT_DIFFS; i++) {
      if (ref[i]?.[0] !== ours[i]?.[0]) lines.push(`#${i}: opentsdb ${show(ref[i])}, ours ${show(ours[i])}`);
    }
    out.push({ query, kind: 'timestamps', series: key, detail: `${ref.length} points vs ${ours.length}; first differing: ${lines.join('; ')}` });
    return out;
  }
  const lines: string[] = [];
  let n = 0;
  ref.forEach((p, i) => {
    const o = ours[i];
    if (o !== undefined && !valuesEqual(p[1], o[1])) {
      n++;
      if (lines.length < MAX_POINT_DIFFS) lines.push(`${p[0]}: opentsdb ${JSON.stringify(p[1])}, ours ${JSON.stringify(o[1])}`);
    }
  });
  if (n > 0) out.push({ query, kind: 'values', series: key, detail: `${n} of ${ref.length} values differ; first: ${lines.join('; ')}` });
  return out;
}

/**
 * The showQuery echo's fields that matter, as OpenTSDB 2.4.1 spells them: aggregator, metric,
 * downsample, rate, index, explicitTags, rateOptions (null without rate), filters as a set (each
 * `{tagk, filter, group_by, type}`: `group_by`, not `groupBy`) and `tags` (the group-by filters as
 * `tagk → type(filter)`). Left out: filterTagKs (UIDs), useMultiGets, rollup and histogram flags.
 */
export function echoDigest(q: Record<string, unknown>): string {
  const filters = Array.isArray(q['filters'])
    ? (q['filters'] as unknown[])
        .filter(isRecord)
        .map((x) => JSON.stringify([x['type'], x['tagk'], x['filter'], x['group_by']]))
        .sort()
    : [];
  const r = q['rateOptions'];
  const rate = isRecord(r)
    ? ['counter', 'counterMax', 'resetValue', 'dropResets'].map((k) => `${k}=${JSON.stringify(r[k])}`).join(',')
    : JSON.stringify(r ?? null);
  return ['aggregator', 'metric', 'downsample', 'rate', 'index', 'explicitTags']
    .map((k) => `${k}=${JSON.stringify(q[k] ?? null)}`)
    .concat([`rateOptions=${rate}`, `filters=${filters.join(';')}`, `tags={${sortedEntries(q['tags'])}}`])
    .join(' ');
}

function errorCode(body: unknown): unknown {
  return isRecord(body) && isRecord(body['error']) ? body['error']['code'] : undefined;
}

/** Every difference of `ours` from `ref` (OpenTSDB's answer) for the query named `query`. */
export function compareAnswers(query: string, ref: Answer, ours: Answer): Difference[] {
  if (ref.status !== ours.status) return [{ query, kind: 'status', detail: `opentsdb ${ref.status}, ours ${ours.status}` }];
  if (ref.status < 200 || ref.status > 299) {
    const [a, b] = [errorCode(ref.body), errorCode(ours.body)];
    return a === b ? [] : [{ query, kind: 'error-code', detail: `opentsdb error.code ${JSON.stringify(a)}, ours ${JSON.stringify(b)}` }];
  }
  const refSeries = toSeries(ref.body);
  let ourSeries: Series[];
  try {
    ourSeries = toSeries(ours.body);
  } catch (err) {
    return [{ query, kind: 'body-shape', detail: `ours: ${err instanceof Error ? err.message : String(err)}` }];
  }
  const pending = new Map<string, Series[]>();
  for (const s of ourSeries) pending.set(s.key, [...(pending.get(s.key) ?? []), s]);
  const out: Difference[] = [];
  for (const r of refSeries) {
    const o = pending.get(r.key)?.shift();
    if (o === undefined) {
      out.push({ query, kind: 'series-missing', series: r.key, detail: `ours lacks the series (${r.points.length} points in opentsdb's)` });
      continue;
    }
    if (r.form !== o.form) out.push({ query, kind: 'dps-form', series: r.key, detail: `opentsdb dps as ${r.form}, ours as ${o.form}` });
    out.push(...comparePoints(query, r.key, r.points, o.points));
    if (r.query !== undefined || o.query !== undefined) {
      const [a, b] = [r.query === undefined ? 'none' : echoDigest(r.query), o.query === undefined ? 'none' : echoDigest(o.query)];
      if (a !== b) out.push({ query, kind: 'query-echo', series: r.key, detail: `opentsdb ${a} | ours ${b}` });
    }
  }
  for (const rest of pending.values()) {
    for (const s of rest) out.push({ query, kind: 'series-extra', series: s.key, detail: `only ours has the series (${s.points.length} points)` });
  }
  return out;
}
