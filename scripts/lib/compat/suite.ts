// Pure: the query suite of the side-by-side check against OpenTSDB 2.4.1. Each query is ONE request
// (POST body or GET query string) sent unchanged to both sides' /api/query; `shape` groups queries in
// the latency report. Windows are placed on the data set (dataset.ts) so the suite works for any size
// of at least 6 hours: `w6` an aligned 6 h window, `w2` the two hours holding n01's rollover, s02's
// reset and whole missing hours of n02/n04, `w1` one hour of it, `full` the whole set.
import { COUNTER_MAX, METRICS, endMs, type DatasetParams } from './dataset.ts';

const HOUR = 3_600_000;

export const SHAPES = ['raw', 'downsample', 'group-by', 'aggregate', 'filter', 'fill', 'calendar', 'rate', 'time-form', 'output-form', 'get', 'error'] as const;
export type Shape = (typeof SHAPES)[number];

export interface CompatQuery {
  readonly name: string;
  readonly shape: Shape;
  readonly method: 'POST' | 'GET';
  /** path with its query string: `/api/query`, `/api/query?arrays=true`, `/api/query?start=…&m=…` */
  readonly path: string;
  /** the POST body (JSON), absent for GET */
  readonly body?: Readonly<Record<string, unknown>>;
  /** an error answer expected (compared on status and error.code only) */
  readonly expectError: boolean;
}

interface Window {
  readonly start: number;
  readonly end: number;
}

export function windows(p: DatasetParams): { full: Window; w6: Window; w2: Window; w1: Window } {
  const a = p.startMs + Math.min(2, p.hours - 6) * HOUR;
  return {
    full: { start: p.startMs, end: endMs(p) },
    w6: { start: a, end: a + 6 * HOUR },
    w2: { start: p.startMs + HOUR, end: p.startMs + 3 * HOUR },
    w1: { start: p.startMs + HOUR, end: p.startMs + 2 * HOUR },
  };
}

type Filter = { type: string; tagk: string; filter: string; groupBy: boolean };
const f = (type: string, tagk: string, filter: string, groupBy = false): Filter => ({ type, tagk, filter, groupBy });
const id = (v: string): Filter => f('literal_or', 'id', v);
const site = (v: string, groupBy = false): Filter => f('literal_or', 'site', v, groupBy);
const allIds = f('wildcard', 'id', '*', true);

interface Sub {
  aggregator: string;
  metric: string;
  downsample?: string;
  rate?: boolean;
  rateOptions?: Record<string, unknown>;
  filters?: Filter[];
  tags?: Record<string, string>;
}

/** A POST's sub-queries, or them with more top-level fields of its body (after start and end) and a query string. */
type PostAsk = Sub[] | { readonly queries: Sub[]; readonly extra?: Record<string, unknown>; readonly query?: string };

function post(name: string, shape: Shape, w: Window, ask: PostAsk): CompatQuery {
  const o: Exclude<PostAsk, Sub[]> = Array.isArray(ask) ? { queries: ask } : ask;
  const { queries, extra = {}, query = '' } = o;
  return { name, shape, method: 'POST', path: `/api/query${query}`, body: { start: w.start, end: w.end, ...extra, queries }, expectError: false };
}

/** A GET's m parameter, or it with more of the query string. */
function get(name: string, shape: Shape, w: Window, ask: string | { readonly m: string; readonly extra: string }): CompatQuery {
  const { m, extra } = typeof ask === 'string' ? { m: ask, extra: '' } : ask;
  return { name, shape, method: 'GET', path: `/api/query?start=${w.start}&end=${w.end}&m=${encodeURIComponent(m)}${extra}`, expectError: false };
}

const AGGREGATES = ['sum', 'avg', 'max', 'min', 'count', 'zimsum', 'mimmin', 'mimmax', 'dev'] as const;

/** The whole suite, for the data set `p`. Names are unique and stable: recordings are keyed by them. */
export function suite(p: DatasetParams): CompatQuery[] {
  const { full, w6, w2, w1 } = windows(p);
  const unaligned = { start: w6.start + 7 * 60_000 + 13_000, end: w6.end - 11 * 60_000 };
  const q: CompatQuery[] = [
    post('id-raw', 'raw', w6, [{ aggregator: 'sum', metric: 'temp', filters: [id('n01')] }]),
    post('id-1h-avg', 'downsample', full, [{ aggregator: 'sum', metric: 'temp', downsample: '1h-avg', filters: [id('n02')] }]),
    post('id-1d-max', 'downsample', full, [{ aggregator: 'sum', metric: 'hum', downsample: '1d-max', filters: [id('s03')] }]),
    post('site-group-by-id', 'group-by', w6, [{ aggregator: 'sum', metric: 'temp', downsample: '10m-avg', filters: [site('north'), allIds] }]),
    post('site-group-by-id-raw', 'group-by', w1, [{ aggregator: 'avg', metric: 'hum', filters: [site('south'), allIds] }]),
    post('group-by-site', 'group-by', w6, [{ aggregator: 'avg', metric: 'temp', downsample: '30m-avg', filters: [f('wildcard', 'site', '*', true)] }]),
    ...AGGREGATES.map((agg, i) => post(`site-${agg}`, 'aggregate', w2, [{ aggregator: agg, metric: i % 2 === 0 ? 'temp' : 'hum', filters: [site('north')] }])),
    post('site-sum-bytes', 'aggregate', w2, [{ aggregator: 'sum', metric: 'bytes', filters: [site('west')] }]),
    post('site-avg-5m', 'aggregate', w6, [{ aggregator: 'avg', metric: 'temp', downsample: '5m-avg', filters: [site('west')] }]),
    post('agg-none', 'aggregate', w6, [{ aggregator: 'none', metric: 'hum', downsample: '1h-avg', filters: [site('north')] }]),
    // first, last and diff across series take the series in 2.4.1's scan order (salt bucket, then the
    // TSD's UIDs: tsd-order.ts), which we cannot know: a documented divergence (`order-*` values).
    // `tsuids-none` gives every series' tsuid, so the recorded answers are checked in the TSD's order.
    post('order-first-by-site', 'aggregate', w6, [{ aggregator: 'first', metric: 'temp', downsample: '10m-avg', filters: [f('wildcard', 'site', '*', true)] }]),
    post('order-last-by-site', 'aggregate', w6, [{ aggregator: 'last', metric: 'hum', downsample: '10m-avg', filters: [f('wildcard', 'site', '*', true)] }]),
    post('order-first-all', 'aggregate', w6, [{ aggregator: 'first', metric: 'temp', downsample: '10m-avg' }]),
    post('order-last-all', 'aggregate', w6, [{ aggregator: 'last', metric: 'hum', downsample: '10m-avg' }]),
    post('order-diff-all', 'aggregate', w6, [{ aggregator: 'diff', metric: 'temp', downsample: '10m-avg' }]),
    post('tsuids-none', 'aggregate', w6, {
      queries: METRICS.map((metric) => ({ aggregator: 'none', metric, downsample: '0all-count' })),
      extra: { showTSUIDs: true },
    }),
    post('filter-wildcard', 'filter', full, [{ aggregator: 'max', metric: 'temp', downsample: '2h-max', filters: [f('wildcard', 'id', '*1', true)] }]),
    post('filter-wildcard-prefix', 'filter', w6, [{ aggregator: 'sum', metric: 'hum', downsample: '1h-avg', filters: [f('wildcard', 'id', 's0*')] }]),
    post('filter-regexp', 'filter', full, [{ aggregator: 'avg', metric: 'temp', downsample: '1h-max', filters: [f('regexp', 'id', '0[23]', true)] }]),
    post('filter-iliteral_or', 'filter', w6, [
      { aggregator: 'avg', metric: 'hum', downsample: '1h-avg', filters: [f('iliteral_or', 'site', 'NORTH|West', true)] },
    ]),
    post('filter-not_literal_or', 'filter', w6, [
      { aggregator: 'sum', metric: 'temp', downsample: '1h-avg', filters: [f('not_literal_or', 'site', 'north', true)] },
    ]),
    post('filter-no-match', 'filter', w6, [{ aggregator: 'sum', metric: 'temp', filters: [f('wildcard', 'id', 'zz*')] }]),
    post('fill-5m-sum-zero', 'fill', w6, [{ aggregator: 'sum', metric: 'temp', downsample: '5m-sum-zero', filters: [id('n02')] }]),
    post('fill-1h-avg-nan', 'fill', full, [{ aggregator: 'sum', metric: 'temp', downsample: '1h-avg-nan', filters: [id('n04')] }]),
    post('fill-1h-avg-null', 'fill', full, [{ aggregator: 'sum', metric: 'hum', downsample: '1h-avg-null', filters: [id('s04')] }]),
    post('fill-1h-max-none', 'fill', full, [{ aggregator: 'sum', metric: 'temp', downsample: '1h-max-none', filters: [id('w02')] }]),
    post('fill-nan-site-sum', 'fill', w6, [
      { aggregator: 'sum', metric: 'temp', downsample: '15m-avg-nan', filters: [site('north'), f('literal_or', 'id', 'n02|n04', true)] },
    ]),
    post('all-count', 'downsample', full, [{ aggregator: 'sum', metric: 'temp', downsample: '0all-count', filters: [site('north'), allIds] }]),
    post('calendar-1dc-sum-tz', 'calendar', full, {
      queries: [{ aggregator: 'sum', metric: 'temp', downsample: '1dc-sum', filters: [id('n01')] }],
      extra: { timezone: 'Asia/Shanghai' },
    }),
    post('calendar-1h-use-calendar', 'calendar', w6, {
      queries: [{ aggregator: 'sum', metric: 'hum', downsample: '1h-avg', filters: [id('w01')] }],
      extra: { timezone: 'Asia/Kolkata', useCalendar: true },
    }),
    post('rate-counter', 'rate', w2, [{ aggregator: 'sum', metric: 'bytes', rate: true, rateOptions: { counter: true }, filters: [id('n01')] }]),
    post('rate-counter-max', 'rate', w2, [
      { aggregator: 'sum', metric: 'bytes', rate: true, rateOptions: { counter: true, counterMax: COUNTER_MAX }, filters: [id('n01')] },
    ]),
    post('rate-counter-reset-value', 'rate', w2, [
      { aggregator: 'sum', metric: 'bytes', rate: true, rateOptions: { counter: true, counterMax: COUNTER_MAX, resetValue: 100_000 }, filters: [id('s02')] },
    ]),
    post('rate-drop-resets', 'rate', w2, [
      { aggregator: 'sum', metric: 'bytes', rate: true, rateOptions: { counter: true, dropResets: true }, filters: [f('literal_or', 'id', 'n01|s02', true)] },
    ]),
    post('rate-gauge-downsample', 'rate', w6, [{ aggregator: 'avg', metric: 'temp', downsample: '10m-avg', rate: true, filters: [site('south')] }]),
    post(
      'time-ms',
      'time-form',
      { start: w1.start + 1500, end: w1.end - 500 },
      {
        queries: [{ aggregator: 'sum', metric: 'temp', filters: [id('n03')] }],
        extra: { msResolution: true },
      },
    ),
    post('time-seconds', 'time-form', { start: w1.start / 1000, end: w1.end / 1000 }, [{ aggregator: 'sum', metric: 'temp', filters: [id('n03')] }]),
    post('time-unaligned-start', 'time-form', unaligned, [{ aggregator: 'sum', metric: 'temp', downsample: '5m-avg', filters: [id('n01')] }]),
    post('output-arrays', 'output-form', full, {
      queries: [{ aggregator: 'sum', metric: 'temp', downsample: '1h-avg-null', filters: [id('n02')] }],
      query: '?arrays=true',
    }),
    post('output-show-query', 'output-form', w6, {
      queries: [
        { aggregator: 'avg', metric: 'temp', downsample: '1h-avg', filters: [site('north'), allIds] },
        { aggregator: 'sum', metric: 'bytes', rate: true, rateOptions: { counter: true, counterMax: COUNTER_MAX }, filters: [id('n01')] },
      ],
      extra: { showQuery: true },
    }),
    post('output-two-subqueries', 'output-form', w6, [
      { aggregator: 'max', metric: 'temp', downsample: '1h-max', filters: [site('west')] },
      { aggregator: 'min', metric: 'hum', downsample: '1h-min', filters: [site('west')] },
    ]),
    post('legacy-tags', 'filter', w6, [{ aggregator: 'sum', metric: 'temp', downsample: '1h-avg', tags: { site: 'south', id: '*' } }]),
    get('get-m', 'get', full, 'avg:1h-avg:temp{id=n01}'),
    get('get-m-group-filters', 'get', w6, 'sum:10m-avg:hum{id=*}{site=north}'),
    get('get-m-rate', 'get', w2, { m: `sum:rate{counter,${COUNTER_MAX}}:bytes{id=n01}`, extra: '&ms' }),
    get('get-m-arrays', 'get', w6, { m: 'max:1h-max-nan:temp{id=n04}', extra: '&arrays=false' }),
    { ...post('error-unknown-metric', 'error', w6, [{ aggregator: 'sum', metric: 'nosuchmetric' }]), expectError: true },
    { ...post('error-unknown-aggregator', 'error', w6, [{ aggregator: 'bogus', metric: 'temp' }]), expectError: true },
    { ...post('error-unknown-tagv', 'error', w6, [{ aggregator: 'sum', metric: 'temp', filters: [id('zz99')] }]), expectError: true },
    { ...post('error-bad-downsample', 'error', w6, [{ aggregator: 'sum', metric: 'temp', downsample: '1x-avg' }]), expectError: true },
  ];
  const names = new Set<string>();
  for (const x of q) {
    if (names.has(x.name)) throw new Error(`suite: duplicate query name ${x.name}`);
    names.add(x.name);
  }
  return q;
}
