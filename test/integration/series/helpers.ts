// The series API's integration tests share this: harness tables with rollups that summarise at once,
// the compat data set (scripts/lib/compat/dataset.ts) through Kafka into the real service, and the
// wait until every closed hour is summarised (the X-Tsingest-Plan header of an hourly mean says so).
import type { Service } from '../../../src/service/service.ts';
import { events, type DatasetParams } from '../../../scripts/lib/compat/dataset.ts';
import { uniqueName } from '../../support/env.ts';
import { createHarness, produceEvents, startInProcess, waitFor, waitForEvents, type Harness } from '../../support/service-harness.ts';

export const SERIES_SETS = [
  'rollup.windows=["1h","1d"]',
  'rollup.graceMs=0',
  'rollup.markerSettleMs=0',
  'rollup.intervalMs=2000',
  'index.tags=["site"]',
  'series.catalogRefreshMs=2000',
] as const;

export async function post(port: number, path: string, body: unknown): Promise<{ status: number; headers: Headers; body: unknown }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

/** One site's hourly mean of `temp` over the first 6 h of the data set (an exact rollup query). */
export function hourlyMean(dataset: DatasetParams, site = 'north'): Record<string, unknown> {
  return {
    start: dataset.startMs,
    end: dataset.startMs + 6 * 3_600_000 - 1,
    queries: [{ aggregator: 'avg', metric: 'temp', downsample: '1h-avg', filters: [{ type: 'literal_or', tagk: 'site', filter: site, groupBy: false }] }],
  };
}

/** A harness and a service holding the data set, its closed hours summarised by the rollup job. */
export async function serviceWithDataset(
  t: { after(fn: () => Promise<void>): void },
  prefix: string,
  dataset: DatasetParams,
): Promise<{ h: Harness; svc: Service; count: number; groupId: string }> {
  const h = await createHarness(t, { prefix, partitions: 2, sets: [...SERIES_SETS] });
  const data = events(dataset).map((e) => ({ id: e.id, ts: e.ts, metric: e.metric, value: e.value, tags: e.tags }));
  const groupId = uniqueName(`it-${prefix}`);
  const svc = await startInProcess(h, [`kafka.groupId=${groupId}`, 'http.port=0']);
  await produceEvents(h, data);
  await waitForEvents(svc, data.length, 180_000);
  await waitFor(
    'the rollup job summarised the data set',
    180_000,
    async () => /^rollup:3600s;raw-buckets=0(;|$)/.test((await post(svc.httpPort, '/api/query', hourlyMean(dataset))).headers.get('x-tsingest-plan') ?? ''),
    1000,
  );
  return { h, svc, count: data.length, groupId };
}
