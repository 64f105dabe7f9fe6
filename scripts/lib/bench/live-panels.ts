// Pure: the dashboard of `npm run bench:series -- --phases live` (BENCHMARKS.md, "The live dashboard"):
// the panels a user opens over a metric's every id and a site's, each range ending now, as Grafana's
// OpenTSDB datasource sends them (one POST per refresh of a panel, epoch ms, filters with groupBy,
// msResolution on so that answers compare point by point). The first six are the panels the issue
// measured against OpenTSDB 2.4.1 (issue 37's table); the others add the 1 h / 6 h / 7 d ranges at
// 1m / 5m / 1h downsampling.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export interface PanelQuery {
  readonly aggregator: string;
  readonly metric: string;
  readonly downsample?: string;
  readonly filters: readonly { readonly type: string; readonly tagk: string; readonly filter: string; readonly groupBy: boolean }[];
}

export interface Panel {
  readonly name: string;
  /** how far back the range reaches from its end */
  readonly rangeMs: number;
  readonly queries: readonly PanelQuery[];
  readonly showQuery?: boolean;
}

export interface LiveData {
  /** the metric every panel charts (the generator's metrics: temp, hum, load) */
  readonly metric: string;
  /** a site's name (tag site) */
  readonly site: string;
  /** the busiest ids, most events first */
  readonly busiest: readonly string[];
  /** an id of middling traffic */
  readonly oneId: string;
}

const everySite = { type: 'wildcard', tagk: 'site', filter: '*', groupBy: true } as const;

export function livePanels(d: LiveData): Panel[] {
  const bySite = (aggregator: string, downsample: string): PanelQuery => ({ aggregator, metric: d.metric, downsample, filters: [everySite] });
  const ofSite = (aggregator: string, metric: string, downsample: string): PanelQuery => ({
    aggregator,
    metric,
    downsample,
    filters: [{ type: 'literal_or', tagk: 'site', filter: d.site, groupBy: false }],
  });
  return [
    { name: 'site-1h-avg-24h', rangeMs: DAY, queries: [bySite('avg', '1h-avg')] },
    { name: 'site-1h-count-24h', rangeMs: DAY, queries: [bySite('sum', '1h-count')] },
    { name: 'site-0all-avg-24h', rangeMs: DAY, queries: [bySite('avg', '0all-avg')] },
    {
      name: 'one-site-4-subqueries-1h-avg-24h',
      rangeMs: DAY,
      showQuery: true,
      queries: [ofSite('avg', 'temp', '1h-avg'), ofSite('avg', 'hum', '1h-avg'), ofSite('avg', 'load', '1h-avg'), ofSite('max', 'temp', '1h-max')],
    },
    {
      name: 'busiest-5-1m-avg-2h',
      rangeMs: 2 * HOUR,
      queries: [
        {
          aggregator: 'avg',
          metric: d.metric,
          downsample: '1m-avg',
          filters: [{ type: 'literal_or', tagk: 'id', filter: d.busiest.slice(0, 5).join('|'), groupBy: true }],
        },
      ],
    },
    {
      name: 'one-id-raw-24h',
      rangeMs: DAY,
      queries: [{ aggregator: 'sum', metric: d.metric, filters: [{ type: 'literal_or', tagk: 'id', filter: d.oneId, groupBy: false }] }],
    },
    { name: 'site-1h-max-7d', rangeMs: 7 * DAY, queries: [bySite('max', '1h-max')] },
    { name: 'site-1m-avg-1h', rangeMs: HOUR, queries: [bySite('avg', '1m-avg')] },
    { name: 'site-5m-avg-6h', rangeMs: 6 * HOUR, queries: [bySite('avg', '5m-avg')] },
  ];
}

/** The /api/query body of a panel over [end − range, end] (OpenTSDB's end is inclusive). */
export function panelBody(p: Panel, endMs: number): Record<string, unknown> {
  return {
    start: endMs - p.rangeMs,
    end: endMs,
    msResolution: true,
    globalAnnotations: true,
    ...(p.showQuery === true ? { showQuery: true } : {}),
    queries: p.queries.map((q) => ({ ...q, filters: q.filters.map((f) => ({ ...f })) })),
  };
}
