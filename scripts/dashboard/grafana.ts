// Small typed builders for the Grafana dashboard JSON (schemaVersion 39, Grafana 10/11/12): the
// dashboard is generated from code (`npm run dashboard`), never edited by hand. Each builder returns
// the JSON object Grafana stores for that panel type; `layout` numbers panels and places them on the
// 24-column grid, rows first.

export type Json = string | number | boolean | null | readonly Json[] | { readonly [key: string]: Json };
export type JsonObject = { readonly [key: string]: Json };

export const DATASOURCE: JsonObject = { type: 'prometheus', uid: '${datasource}' };

export interface Target {
  readonly expr: string;
  readonly legendFormat: string;
  /** instant query (last value only), e.g. for bar gauges; default: range */
  readonly instant?: boolean;
}

export interface Step {
  readonly color: string;
  /** null = the base step */
  readonly value: number | null;
}

export interface PanelOptions {
  readonly title: string;
  /** shown as the panel's (i) tooltip: say what the panel shows, its metric and how to read it */
  readonly description: string;
  readonly targets: readonly Target[];
  readonly unit?: string;
  readonly decimals?: number;
  readonly min?: number;
  readonly max?: number;
  readonly steps?: readonly Step[];
  readonly mappings?: readonly JsonObject[];
  /** repeat the panel once per selected value of this dashboard variable */
  readonly repeat?: string;
  readonly maxDataPoints?: number;
  /** minimum query step, e.g. "10s" */
  readonly interval?: string;
}

/** A panel before layout: its JSON without id / gridPos, and its size on the grid. */
export interface Sized {
  readonly w: number;
  readonly h: number;
  readonly json: JsonObject;
}

export interface Section {
  readonly title: string;
  readonly panels: readonly Sized[];
}

const GRID_COLUMNS = 24;

/** A JSON value as text: strings as they are, anything else as JSON. */
export function text(value: Json | undefined): string {
  if (value === undefined) return 'undefined';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function targetsJson(targets: readonly Target[]): Json[] {
  return targets.map((t, i) => ({
    datasource: DATASOURCE,
    refId: String.fromCharCode(65 + i),
    expr: t.expr,
    legendFormat: t.legendFormat,
    range: t.instant !== true,
    instant: t.instant === true,
    editorMode: 'code',
    ...(t.instant === true ? { format: 'time_series' } : {}),
  }));
}

function thresholds(steps: readonly Step[] | undefined): JsonObject {
  return { mode: 'absolute', steps: (steps ?? [{ color: 'green', value: null }]).map((s) => ({ color: s.color, value: s.value })) };
}

function defaults(o: PanelOptions, color: JsonObject, custom?: JsonObject): JsonObject {
  return {
    unit: o.unit ?? 'short',
    ...(o.decimals === undefined ? {} : { decimals: o.decimals }),
    ...(o.min === undefined ? {} : { min: o.min }),
    ...(o.max === undefined ? {} : { max: o.max }),
    color,
    ...(custom === undefined ? {} : { custom }),
    thresholds: thresholds(o.steps),
    mappings: [...(o.mappings ?? [])],
  };
}

function panel(type: string, o: PanelOptions, fieldDefaults: JsonObject, options: JsonObject): JsonObject {
  return {
    type,
    title: o.title,
    description: o.description,
    datasource: DATASOURCE,
    ...(o.repeat === undefined ? {} : { repeat: o.repeat, repeatDirection: 'v' }),
    ...(o.maxDataPoints === undefined ? {} : { maxDataPoints: o.maxDataPoints }),
    ...(o.interval === undefined ? {} : { interval: o.interval }),
    fieldConfig: { defaults: fieldDefaults, overrides: [] },
    options,
    targets: targetsJson(o.targets),
  };
}

const LAST_VALUE: JsonObject = { calcs: ['lastNotNull'], fields: '', values: false };

export function stat(o: PanelOptions & { readonly graph?: boolean }): JsonObject {
  return panel('stat', o, defaults(o, { mode: 'thresholds' }), {
    reduceOptions: LAST_VALUE,
    colorMode: 'background',
    graphMode: o.graph === true ? 'area' : 'none',
    justifyMode: 'auto',
    orientation: 'auto',
    textMode: 'auto',
    wideLayout: true,
    showPercentChange: false,
  });
}

export function timeSeries(
  o: PanelOptions & { readonly legendCalcs?: readonly string[]; readonly thresholdLines?: boolean; readonly fill?: number },
): JsonObject {
  const custom: JsonObject = {
    drawStyle: 'line',
    lineWidth: 1,
    fillOpacity: o.fill ?? 0,
    showPoints: 'never',
    spanNulls: false,
    lineInterpolation: 'linear',
    stacking: { mode: 'none', group: 'A' },
    thresholdsStyle: { mode: o.thresholdLines === true ? 'line' : 'off' },
  };
  const calcs = o.legendCalcs ?? [];
  return panel('timeseries', o, defaults(o, { mode: 'palette-classic' }, custom), {
    legend: { showLegend: true, displayMode: calcs.length > 0 ? 'table' : 'list', placement: calcs.length > 0 ? 'right' : 'bottom', calcs: [...calcs] },
    tooltip: { mode: 'multi', sort: 'desc' },
  });
}

export function barGauge(o: PanelOptions & { readonly orientation: 'horizontal' | 'vertical' }): JsonObject {
  return panel('bargauge', o, defaults(o, { mode: 'continuous-GrYlRd' }), {
    reduceOptions: LAST_VALUE,
    orientation: o.orientation,
    displayMode: 'gradient',
    valueMode: 'color',
    namePlacement: 'auto',
    showUnfilled: true,
    sizing: 'auto',
    minVizWidth: 8,
    minVizHeight: 16,
    maxVizHeight: 300,
  });
}

/** One row per series, colour = value per time bucket (by thresholds/mappings). */
export function stateTimeline(o: PanelOptions): JsonObject {
  return panel('state-timeline', o, defaults(o, { mode: 'thresholds' }, { lineWidth: 0, fillOpacity: 80 }), {
    mergeValues: true,
    showValue: 'auto',
    alignValue: 'left',
    rowHeight: 0.9,
    legend: { showLegend: true, displayMode: 'list', placement: 'bottom' },
    tooltip: { mode: 'single', sort: 'none' },
  });
}

/** One row per series, one cell per time step coloured by value on a continuous scheme: a heatmap with named rows. */
export function statusHistory(o: PanelOptions & { readonly scheme: string }): JsonObject {
  return panel('status-history', o, defaults(o, { mode: o.scheme }, { lineWidth: 0, fillOpacity: 90 }), {
    showValue: 'never',
    rowHeight: 0.95,
    colWidth: 1,
    legend: { showLegend: false, displayMode: 'list', placement: 'bottom' },
    tooltip: { mode: 'single', sort: 'none' },
  });
}

export function sized(w: number, h: number, json: JsonObject): Sized {
  return { w, h, json };
}

/** Numbers every panel (ids from 1) and places it: one full-width row per section, then its panels left to right. */
/** What differs between the dashboards this folder generates; the rest of the envelope is shared. */
export interface DashboardSpec {
  readonly uid: string;
  readonly title: string;
  readonly description: string;
  readonly tags: readonly string[];
  readonly version: number;
  readonly from: string;
  readonly refreshIntervals: readonly string[];
  readonly refresh: string;
  readonly templating: JsonObject;
  readonly panels: readonly JsonObject[];
}

/** A whole dashboard: the spec's parts in Grafana's envelope (key order as Grafana exports it). */
export function dashboard(d: DashboardSpec): JsonObject {
  return {
    uid: d.uid,
    title: d.title,
    description: d.description,
    tags: d.tags,
    editable: true,
    graphTooltip: 1,
    schemaVersion: 39,
    version: d.version,
    time: { from: d.from, to: 'now' },
    timepicker: { refresh_intervals: d.refreshIntervals },
    refresh: d.refresh,
    timezone: 'browser',
    fiscalYearStartMonth: 0,
    liveNow: false,
    links: [],
    annotations: {
      list: [
        {
          builtIn: 1,
          datasource: { type: 'grafana', uid: '-- Grafana --' },
          enable: true,
          hide: true,
          iconColor: 'rgba(0, 211, 255, 1)',
          name: 'Annotations & Alerts',
          type: 'dashboard',
        },
      ],
    },
    templating: d.templating,
    panels: d.panels,
  };
}

export function layout(sections: readonly Section[]): JsonObject[] {
  const out: JsonObject[] = [];
  let id = 1;
  let y = 0;
  for (const section of sections) {
    out.push({ type: 'row', id: id++, title: section.title, collapsed: false, gridPos: { h: 1, w: GRID_COLUMNS, x: 0, y }, panels: [] });
    y += 1;
    let x = 0;
    let rowHeight = 0;
    for (const p of section.panels) {
      if (p.w < 1 || p.w > GRID_COLUMNS) throw new RangeError(`panel "${text(p.json['title'])}": width must be 1..${GRID_COLUMNS}, got ${p.w}`);
      if (x + p.w > GRID_COLUMNS) {
        y += rowHeight;
        x = 0;
        rowHeight = 0;
      }
      out.push({ ...p.json, id: id++, gridPos: { h: p.h, w: p.w, x, y } });
      x += p.w;
      rowHeight = Math.max(rowHeight, p.h);
    }
    y += rowHeight;
  }
  return out;
}

export interface PanelQuery {
  readonly panel: string;
  readonly refId: string;
  readonly expr: string;
  readonly instant: boolean;
}

function asObject(value: Json | undefined): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
}

function asArray(value: Json | undefined): readonly Json[] {
  return Array.isArray(value) ? (value as readonly Json[]) : [];
}

/** Every target expression of a dashboard (rows' nested panels included), with its panel title. */
export function panelQueries(dashboard: JsonObject): PanelQuery[] {
  const out: PanelQuery[] = [];
  const visit = (panels: readonly Json[]): void => {
    for (const p of panels) {
      const obj = asObject(p);
      if (obj === undefined) continue;
      for (const t of asArray(obj['targets'])) {
        const target = asObject(t);
        if (target === undefined) continue;
        out.push({ panel: text(obj['title']), refId: text(target['refId']), expr: text(target['expr']), instant: target['instant'] === true });
      }
      visit(asArray(obj['panels']));
    }
  };
  visit(asArray(dashboard['panels']));
  return out;
}
