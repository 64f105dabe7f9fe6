/**
 * The built-in hot-spot page for users without Grafana (GET /ui, /ui/data.json) as route handlers on
 * the service's HTTP port.
 * Design notes: docs/DECISIONS.md#the-hot-spot-page
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Counter, Registry } from 'prom-client';
import type { RegionInfo } from '../load/region-source.ts';
import { HeatmapSampler, regionCountersFromMetrics } from './heatmap-data.ts';
import type { HotIds } from '../load/hot-ids.ts';
import { DOCTOR_OFF, type DoctorSnapshot } from '../doctor/scheduler.ts';
import { renderPage, type UiSnapshot } from './ui-render.ts';

export type { UiSnapshot } from './ui-render.ts';

/**
 * An extra route: answers the request and resolves true, or resolves false to let others try. The
 * third argument is the parsed request URL (as src/runtime/http.ts `routes` passes it) or its pathname.
 */
export type RouteHandler = (req: IncomingMessage, res: ServerResponse, target: URL | string) => Promise<boolean>;

export const UI_PATHS = { page: '/ui', data: '/ui/data.json' } as const;
export const DEFAULT_REFRESH_MS = 5000;

export interface UiRoutesOptions {
  /** The current snapshot; undefined while the service is still starting (503). */
  readonly snapshot: () => UiSnapshot | undefined;
  /** How often the page re-fetches itself; 0 = never. Default 5000 ms. */
  readonly refreshMs?: number;
}

const JSON_TYPE = 'application/json; charset=utf-8';

function send(res: ServerResponse, req: IncomingMessage, status: number, reply: { readonly contentType: string; readonly body: string }): void {
  const { contentType, body } = reply;
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
  res.end(req.method === 'HEAD' ? undefined : body);
}

export function uiRoutes(options: UiRoutesOptions): RouteHandler {
  const refreshMs = options.refreshMs ?? DEFAULT_REFRESH_MS;
  if (!Number.isFinite(refreshMs) || refreshMs < 0) throw new RangeError(`refreshMs must be a number ≥ 0, got ${refreshMs}`);
  return (req, res, target) => {
    const pathname = typeof target === 'string' ? target : target.pathname;
    if (pathname !== UI_PATHS.page && pathname !== UI_PATHS.data && pathname !== `${UI_PATHS.page}/`) return Promise.resolve(false);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      send(res, req, 405, { contentType: JSON_TYPE, body: JSON.stringify({ status: 'method_not_allowed', method: req.method ?? '' }) });
      return Promise.resolve(true);
    }
    if (pathname === `${UI_PATHS.page}/`) {
      res.writeHead(302, { location: '../ui', 'content-length': 0 });
      res.end();
      return Promise.resolve(true);
    }
    const snapshot = options.snapshot();
    if (snapshot === undefined) {
      send(res, req, 503, { contentType: 'text/plain; charset=utf-8', body: 'the service is starting; the page is available once it consumes\n' });
    } else if (pathname === UI_PATHS.data) {
      send(res, req, 200, { contentType: JSON_TYPE, body: JSON.stringify(snapshot) });
    } else {
      send(res, req, 200, { contentType: 'text/html; charset=utf-8', body: renderPage(snapshot, refreshMs) });
    }
    return Promise.resolve(true);
  };
}

export interface StartUiOptions {
  /** The service's prom-client `Registry` and its per-region write counter. */
  readonly metrics: { readonly registry: Registry; readonly regionWrites: Pick<Counter<'table' | 'region' | 'server'>, 'get'> };
  /** The service's region map (RegionMap). */
  readonly regionMap: {
    regions(table: string): readonly RegionInfo[] | undefined;
    locate(table: string, rowKey: Buffer): RegionInfo | undefined;
  };
  /** The data table and its salt bucket count. */
  readonly table: string;
  readonly buckets: number;
  /** The service's hot-ids sketch (src/load/hot-ids.ts): the page shows it, the write path feeds it. */
  readonly hotIds: HotIds;
  /** The service's schema doctor (src/service/doctor-side.ts); without it the section says the doctor is off. */
  readonly doctor?: () => DoctorSnapshot;
  /** Heatmap sampling period (default 5000 ms) and ring length (default 120 samples). */
  readonly sampleMs?: number;
  readonly maxSamples?: number;
  /** Told when a heatmap sample fails (the next one tries again). */
  readonly onError?: (err: unknown) => void;
}

export interface Ui {
  readonly sampler: HeatmapSampler;
  snapshot(): UiSnapshot;
  /** Stops the sampler; idempotent. */
  close(): void;
}

/** Starts the heatmap sampler; the page shows it with the service's hot ids. */
export function startUi(o: StartUiOptions): Ui {
  const { hotIds } = o;
  const doctor = o.doctor ?? ((): DoctorSnapshot => DOCTOR_OFF);
  const sampler = new HeatmapSampler({
    source: regionCountersFromMetrics(o.metrics.regionWrites, o.regionMap, o.table),
    ...(o.sampleMs === undefined ? {} : { sampleMs: o.sampleMs }),
    ...(o.maxSamples === undefined ? {} : { maxSamples: o.maxSamples }),
    ...(o.onError === undefined ? {} : { onError: o.onError }),
  });
  sampler.start();
  let closed = false;
  return {
    sampler,
    snapshot: () => ({ generatedAt: Date.now(), table: o.table, buckets: o.buckets, heatmap: sampler.snapshot(), hotIds: hotIds.snapshot(), doctor: doctor() }),
    close() {
      if (closed) return;
      closed = true;
      sampler.stop();
    },
  };
}
