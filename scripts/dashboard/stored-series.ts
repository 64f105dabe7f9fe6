// The tsingest Grafana dashboard "Stored series", built from code: the series stored in HBase, read
// through the service's OpenTSDB-compatible series API with Grafana's built-in OpenTSDB datasource
// (provisioned as uid tsdb-ingest: deploy/grafana/provisioning/datasources/opentsdb.yml). Written to
// deploy/grafana/dashboards/stored-series.json by `npm run dashboard`; a unit test fails when the
// committed JSON differs from what this builds, and test/integration/series/grafana-replay.test.ts
// sends each panel's and variable's request, as Grafana builds it, to the real service.
//
// Targets are written in the exact shape Grafana's OpenTSDB query editor saves them (refId,
// datasource, aggregator, downsampleAggregator, downsampleFillPolicy, metric, downsampleInterval,
// filters [{type, tagk, filter, groupBy}], shouldComputeRate, isCounter, …); the datasource turns a
// target into a sub-query (test/fixtures/grafana-opentsdb/README.md).
import { dashboard, layout, sized, type Json, type JsonObject, type Section } from './grafana.ts';

export const STORED_SERIES_FILE = 'deploy/grafana/dashboards/stored-series.json';
/** The provisioned OpenTSDB datasource (its uid in both provisioning files). */
export const OPENTSDB_DATASOURCE: JsonObject = { type: 'opentsdb', uid: 'tsdb-ingest' };
/** Dashboard variables, in the order Grafana resolves them (site and id depend on metric). */
export const STORED_SERIES_VARIABLES = ['metric', 'site', 'id'] as const;

export interface TsdbFilter {
  readonly type: 'literal_or' | 'iliteral_or' | 'wildcard' | 'regexp' | 'not_literal_or';
  readonly tagk: string;
  readonly filter: string;
  readonly groupBy: boolean;
}

export interface TsdbTargetOptions {
  readonly aggregator: string;
  /** e.g. "1h"; absent = the panel's interval (Grafana's auto interval) */
  readonly downsampleInterval?: string;
  readonly downsampleAggregator: string;
  readonly downsampleFillPolicy: 'none' | 'nan' | 'null' | 'zero';
  /** raw points: no downsample in the request */
  readonly disableDownsampling?: boolean;
  readonly filters: readonly TsdbFilter[];
  /** legend text, e.g. "$tag_site" */
  readonly alias?: string;
}

/** One target as the query editor saves it (key order: the editor's creation order, then each edit). */
export function tsdbTarget(refId: string, o: TsdbTargetOptions): JsonObject {
  return {
    refId,
    datasource: OPENTSDB_DATASOURCE,
    aggregator: o.aggregator,
    downsampleAggregator: o.downsampleAggregator,
    downsampleFillPolicy: o.downsampleFillPolicy,
    metric: '$metric',
    ...(o.downsampleInterval === undefined ? {} : { downsampleInterval: o.downsampleInterval }),
    disableDownsampling: o.disableDownsampling === true,
    filters: o.filters.map((f) => ({ type: f.type, tagk: f.tagk, filter: f.filter, groupBy: f.groupBy })),
    shouldComputeRate: false,
    isCounter: false,
    ...(o.alias === undefined ? {} : { alias: o.alias }),
  };
}

interface PanelText {
  readonly title: string;
  readonly description: string;
  readonly unit: string;
}

function fieldConfig(unit: string, custom: JsonObject, color: JsonObject): JsonObject {
  return {
    defaults: { unit, color, custom, thresholds: { mode: 'absolute', steps: [{ color: 'green', value: null }] }, mappings: [] },
    overrides: [],
  };
}

function timeSeries(p: PanelText & { readonly targets: readonly JsonObject[]; readonly points?: boolean }): JsonObject {
  return {
    type: 'timeseries',
    title: p.title,
    description: p.description,
    datasource: OPENTSDB_DATASOURCE,
    fieldConfig: fieldConfig(
      p.unit,
      {
        drawStyle: 'line',
        lineWidth: 1,
        fillOpacity: 0,
        showPoints: p.points === true ? 'always' : 'never',
        pointSize: 3,
        spanNulls: false,
        lineInterpolation: 'linear',
        stacking: { mode: 'none', group: 'A' },
        thresholdsStyle: { mode: 'off' },
      },
      { mode: 'palette-classic' },
    ),
    options: {
      legend: { showLegend: true, displayMode: 'table', placement: 'right', calcs: ['mean', 'min', 'max'] },
      tooltip: { mode: 'multi', sort: 'desc' },
    },
    targets: [...p.targets],
  };
}

/** Bars of one number per series, largest first: reduce each series to its total, sort, keep the top `top`. */
function topBars(p: PanelText & { readonly targets: readonly JsonObject[]; readonly top: number }): JsonObject {
  return {
    type: 'bargauge',
    title: p.title,
    description: p.description,
    datasource: OPENTSDB_DATASOURCE,
    fieldConfig: fieldConfig(p.unit, {}, { mode: 'continuous-GrYlRd' }),
    options: {
      reduceOptions: { values: true, calcs: ['lastNotNull'], fields: '/^Total$/' },
      orientation: 'horizontal',
      displayMode: 'gradient',
      valueMode: 'color',
      namePlacement: 'left',
      showUnfilled: true,
      sizing: 'auto',
      minVizWidth: 8,
      minVizHeight: 16,
      maxVizHeight: 300,
    },
    transformations: [
      { id: 'reduce', options: { mode: 'seriesToRows', reducers: ['sum'], includeTimeField: false } },
      { id: 'sortBy', options: { sort: [{ field: 'Total', desc: true }] } },
      { id: 'limit', options: { limitField: p.top } },
    ],
    targets: [...p.targets],
  };
}

const SITE_FILTER: TsdbFilter = { type: 'literal_or', tagk: 'site', filter: '$site', groupBy: false };

const sites: Section = {
  title: 'Sites',
  panels: [
    sized(
      24,
      9,
      timeSeries({
        title: 'Hourly mean of $metric by site',
        description:
          'avg of $metric over the ids of each selected site, per hour (downsample 1h-avg, filter literal_or(site=$site) with group by site). ' +
          "Whole hours the rollup job has summarised are read from the rollup table, not from the raw points (the service's X-Tsingest-Plan header and showQuery's rollupTable say which); the current hour is read raw.",
        unit: 'short',
        targets: [
          tsdbTarget('A', {
            aggregator: 'avg',
            downsampleAggregator: 'avg',
            downsampleFillPolicy: 'none',
            downsampleInterval: '1h',
            filters: [{ ...SITE_FILTER, groupBy: true }],
            alias: '$tag_site',
          }),
        ],
      }),
    ),
  ],
};

const oneId: Section = {
  title: 'One id',
  panels: [
    sized(
      24,
      8,
      timeSeries({
        title: '$metric of $id (raw points)',
        description:
          'Every stored point of $metric for the id chosen above (variable id: tag_values($metric, id)), no downsampling: the values as ingested, one dot per event. ' +
          'Over long ranges prefer the hourly panels: raw points are read from the data table.',
        unit: 'short',
        points: true,
        targets: [
          tsdbTarget('A', {
            aggregator: 'avg',
            downsampleAggregator: 'avg',
            downsampleFillPolicy: 'none',
            disableDownsampling: true,
            filters: [{ type: 'literal_or', tagk: 'id', filter: '$id', groupBy: false }],
            alias: '$tag_id',
          }),
        ],
      }),
    ),
  ],
};

const hottest: Section = {
  title: 'Hottest ids',
  panels: [
    sized(
      12,
      10,
      topBars({
        title: 'Busiest ids: $metric events in the range',
        description:
          'Points stored per id over the dashboard range, the 10 largest: sum of the hourly counts (downsample 1h-count, answered from the rollups for summarised hours) ' +
          'per id (filter wildcard(id=*) with group by id) in the selected sites, reduced to their total and sorted.',
        unit: 'short',
        top: 10,
        targets: [
          tsdbTarget('A', {
            aggregator: 'sum',
            downsampleAggregator: 'count',
            downsampleFillPolicy: 'none',
            downsampleInterval: '1h',
            filters: [SITE_FILTER, { type: 'wildcard', tagk: 'id', filter: '*', groupBy: true }],
            alias: '$tag_id',
          }),
        ],
      }),
    ),
    sized(
      12,
      10,
      timeSeries({
        title: 'Events per hour, by id',
        description:
          'The same hourly counts over time (sum of 1h-count per id, selected sites): an id that stops reporting drops to nothing, a burst shows as a peak.',
        unit: 'short',
        targets: [
          tsdbTarget('A', {
            aggregator: 'sum',
            downsampleAggregator: 'count',
            downsampleFillPolicy: 'none',
            downsampleInterval: '1h',
            filters: [SITE_FILTER, { type: 'wildcard', tagk: 'id', filter: '*', groupBy: true }],
            alias: '$tag_id',
          }),
        ],
      }),
    ),
  ],
};

function variable(name: string, label: string, query: string, o: { readonly multi: boolean; readonly current: Json }): JsonObject {
  return {
    name,
    label,
    type: 'query',
    datasource: OPENTSDB_DATASOURCE,
    definition: query,
    query,
    refresh: 1,
    sort: 1,
    multi: o.multi,
    includeAll: o.multi,
    current: o.current,
    hide: 0,
    regex: '',
    options: [],
  };
}

function templating(): JsonObject {
  return {
    list: [
      variable('metric', 'Metric', 'metrics()', { multi: false, current: { selected: true, text: 'temp', value: 'temp' } }),
      // All = every value joined by | (Grafana's pipe format), which literal_or accepts.
      variable('site', 'Site', 'tag_values($metric, site)', { multi: true, current: { selected: true, text: ['All'], value: ['$__all'] } }),
      variable('id', 'Id', 'tag_values($metric, id)', { multi: false, current: {} }),
    ],
  };
}

export function buildStoredSeriesDashboard(): JsonObject {
  return dashboard({
    uid: 'tsingest-stored-series',
    title: 'tsingest: stored series',
    description:
      'The time series stored in HBase, read through the query service\'s OpenTSDB-compatible series API (docs/SERIES-API.md) with Grafana\'s built-in OpenTSDB datasource "tsingest series": ' +
      'hourly means by site (from the rollups), the raw points of one id, and the busiest ids. Generated by scripts/dashboard (npm run dashboard): do not edit the JSON by hand.',
    tags: ['tsingest', 'opentsdb', 'series'],
    version: 1,
    from: 'now-24h',
    refreshIntervals: ['1m', '5m', '15m', '1h'],
    refresh: '5m',
    templating: templating(),
    panels: layout([sites, oneId, hottest]),
  });
}

/** The file's exact text: 2-space JSON and a final newline. */
export function renderStoredSeriesDashboard(): string {
  return `${JSON.stringify(buildStoredSeriesDashboard(), null, 2)}\n`;
}
