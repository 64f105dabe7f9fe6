// Pure: our computation answering a suite request without a server, for unit tests against the
// recorded 2.4.1 answers. The request is parsed as the API parses it (parse-query.ts, parse-m.ts),
// each sub-query's series are picked from the data set by metric and filters, computed
// (compute/compute.ts) and rendered as OpenTSDB renders them: seconds or ms keys, object or arrays
// dps, NaN as "NaN". Unknown metrics and literal tag values are 400s, as the TSD's UID lookups make
// them. Not rendered: the showQuery echo (only `query.index`, so series keys match). The series of a
// sub-query go to compute in name order, or in a given TSD's order (`orderOf`, tsd-order.ts).
import { computeSubQuery, type ComputeOptions, type SeriesOrder } from '../../../src/series-compute/index.ts';
import { matches, parseQueryBody, parseQueryString, TsdbQueryError, type RawSeries } from '../../../src/series-language/index.ts';
import type { Answer } from './compare.ts';
import type { CompatPoint } from './dataset.ts';
import type { CompatQuery } from './suite.ts';

export interface OfflineStore {
  readonly byMetric: ReadonlyMap<string, readonly RawSeries[]>;
  readonly tagValues: ReadonlySet<string>;
}

/** The data set's points as stored series (one per metric + tags), points ascending. */
export function storeOf(points: readonly CompatPoint[]): OfflineStore {
  const acc = new Map<string, { metric: string; tags: Record<string, string>; ts: number[]; values: number[] }>();
  for (const p of points) {
    const k = `${p.metric}|${p.tags.site}|${p.tags.id}`;
    let s = acc.get(k);
    if (s === undefined) {
      s = { metric: p.metric, tags: { ...p.tags }, ts: [], values: [] };
      acc.set(k, s);
    }
    s.ts.push(p.timestamp);
    s.values.push(p.value);
  }
  const byMetric = new Map<string, RawSeries[]>();
  for (const s of acc.values()) {
    for (let i = 1; i < s.ts.length; i++)
      if ((s.ts[i] ?? 0) <= (s.ts[i - 1] ?? 0)) throw new Error(`${s.metric} ${JSON.stringify(s.tags)}: points not ascending`);
    byMetric.set(s.metric, [...(byMetric.get(s.metric) ?? []), { kind: 'raw', tags: s.tags, ts: s.ts, values: s.values }]);
  }
  return { byMetric, tagValues: new Set([...acc.values()].flatMap((s) => Object.values(s.tags))) };
}

const error400 = (message: string): Answer => ({ status: 400, body: { error: { code: 400, message } } });

export function answerOffline(
  store: OfflineStore,
  q: CompatQuery,
  options: ComputeOptions,
  at: { readonly nowMs?: number; readonly orderOf?: ((metric: string) => SeriesOrder) | undefined } = {},
): Answer {
  const { nowMs = Date.now(), orderOf } = at;
  const url = new URL(`http://offline${q.path}`);
  let tq;
  try {
    tq = q.method === 'GET' ? parseQueryString(url.searchParams, nowMs) : parseQueryBody(q.body, url.searchParams, nowMs);
  } catch (err) {
    if (err instanceof TsdbQueryError) return error400(err.message);
    throw err;
  }
  const out: unknown[] = [];
  const key = (t: number): number => (tq.msResolution ? t : Math.floor(t / 1000));
  const val = (v: number | null): number | string | null => (v === null ? null : Number.isNaN(v) ? 'NaN' : v);
  for (const sub of tq.queries) {
    const all = store.byMetric.get(sub.metric);
    if (all === undefined) return error400(`No such name for 'metrics': '${sub.metric}'`);
    for (const f of sub.filters) {
      if (f.type !== 'literal_or') continue;
      const unknown = f.filter.split('|').find((v) => !store.tagValues.has(v));
      if (unknown !== undefined) return error400(`No such name for 'tagv': '${unknown}'`);
    }
    const picked = all.filter((s) => sub.filters.every((f) => matches(f, s.tags[f.tagk])));
    const order = orderOf?.(sub.metric);
    for (const r of computeSubQuery(
      sub,
      { startMs: tq.startMs, endMs: tq.endMs },
      picked,
      order === undefined ? options : { ...options, seriesOrder: order },
    )) {
      const dps = tq.arrays ? r.dps.map(([t, v]) => [key(t), val(v)]) : Object.fromEntries(r.dps.map(([t, v]) => [String(key(t)), val(v)]));
      out.push({ metric: r.metric, tags: r.tags, aggregateTags: r.aggregateTags, dps, ...(tq.showQuery ? { query: { index: sub.index } } : {}) });
    }
  }
  return { status: 200, body: out };
}
