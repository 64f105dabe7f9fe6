/**
 * Metrics of the read side: the rollup job and the query layer. Created on the same prom-client `Registry`
 * as the ingest metrics (`createReadMetrics(metrics.registry)`); names are fixed like METRIC_NAMES.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { ROLLUP_ERROR_STAGES } from '../rollup/meters.ts';

export const READ_METRIC_NAMES = {
  rollupPendingMarkers: 'tsingest_rollup_pending_markers',
  rollupLag: 'tsingest_rollup_lag_seconds',
  rollupWindowsWritten: 'tsingest_rollup_windows_written_total',
  rollupMarkersRemarked: 'tsingest_rollup_markers_remarked_total',
  rollupBucketsWorked: 'tsingest_rollup_buckets_worked',
  rollupRuns: 'tsingest_rollup_runs_total',
  rollupRunDuration: 'tsingest_rollup_run_duration_seconds',
  rollupErrors: 'tsingest_rollup_errors_total',
  rollupBucketOwned: 'tsingest_rollup_bucket_owned',
  rollupBucketLag: 'tsingest_rollup_bucket_lag_seconds',
  queryDuration: 'tsingest_query_duration_seconds',
  queryDangling: 'tsingest_query_dangling_total',
  queryRepaired: 'tsingest_query_repaired_total',
} as const;

export interface ReadMetrics {
  /** closed windows with a marker, seen by the last run, per window size */
  readonly rollupPendingMarkers: Gauge<'window'>;
  /** now − end of the oldest closed window still marked (0 when none), per window size */
  readonly rollupLag: Gauge<'window'>;
  /** windows a summary row was written for, per window size */
  readonly rollupWindowsWritten: Counter<'window'>;
  /** marked windows recomputed whose marker row was re-marked after the read: left for the next run */
  readonly rollupMarkersRemarked: Counter<'window'>;
  /** salt buckets the last run worked on */
  readonly rollupBucketsWorked: Gauge;
  readonly rollupRuns: Counter<'outcome'>;
  readonly rollupRunDuration: Histogram;
  readonly rollupErrors: Counter<'stage'>;
  /** 1 for each salt bucket whose markers this instance's rollup job works on, 0 for the others */
  readonly rollupBucketOwned: Gauge<'bucket'>;
  /** rollupLag per owned bucket, as measured at the start of each run (no series for other buckets) */
  readonly rollupBucketLag: Gauge<'window' | 'bucket'>;
  readonly queryDuration: Histogram<'kind'>;
  readonly queryDangling: Counter<'index'>;
  readonly queryRepaired: Counter<'index'>;
}

export function createReadMetrics(registry: Registry, windows: readonly string[] = []): ReadMetrics {
  const registers = [registry];
  const m: ReadMetrics = {
    rollupPendingMarkers: new Gauge({
      name: READ_METRIC_NAMES.rollupPendingMarkers,
      help: 'Closed rollup windows still marked (seen by the last job run), per window size',
      labelNames: ['window'] as const,
      registers,
    }),
    rollupLag: new Gauge({
      name: READ_METRIC_NAMES.rollupLag,
      help: 'Seconds since the end of the oldest closed window not yet rolled up (0 = caught up), per window size',
      labelNames: ['window'] as const,
      registers,
    }),
    rollupWindowsWritten: new Counter({
      name: READ_METRIC_NAMES.rollupWindowsWritten,
      help: 'Rollup windows recomputed with a summary row written (a window without data writes none), per window size',
      labelNames: ['window'] as const,
      registers,
    }),
    rollupMarkersRemarked: new Counter({
      name: READ_METRIC_NAMES.rollupMarkersRemarked,
      help: 'Marked windows recomputed whose marker row was found re-marked when the run went to delete it (marked again after the run read it; with several runners, also a row another runner removed first): the row stays and the next run recomputes them',
      labelNames: ['window'] as const,
      registers,
    }),
    rollupBucketsWorked: new Gauge({
      name: READ_METRIC_NAMES.rollupBucketsWorked,
      help: 'Salt buckets the last rollup run of this instance worked on (those it owned at the start of the run)',
      registers,
    }),
    rollupRuns: new Counter({
      name: READ_METRIC_NAMES.rollupRuns,
      help: 'Rollup job runs by outcome (ok | error)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    rollupRunDuration: new Histogram({
      name: READ_METRIC_NAMES.rollupRunDuration,
      help: 'Duration of one rollup job run, in seconds',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900],
      registers,
    }),
    rollupErrors: new Counter({ name: READ_METRIC_NAMES.rollupErrors, help: 'Rollup job errors by stage', labelNames: ['stage'] as const, registers }),
    rollupBucketOwned: new Gauge({
      name: READ_METRIC_NAMES.rollupBucketOwned,
      help: 'Salt buckets whose rollup markers this instance works on (1) or leaves to another instance (0); max by bucket over the cluster = 0: no owner',
      labelNames: ['bucket'] as const,
      registers,
    }),
    rollupBucketLag: new Gauge({
      name: READ_METRIC_NAMES.rollupBucketLag,
      help: 'Seconds since the end of the oldest closed window not yet rolled up, per owned salt bucket and window size, at the start of the last run',
      labelNames: ['window', 'bucket'] as const,
      registers,
    }),
    queryDuration: new Histogram({
      name: READ_METRIC_NAMES.queryDuration,
      help: 'Read API / query duration by kind, in seconds',
      labelNames: ['kind'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    queryDangling: new Counter({
      name: READ_METRIC_NAMES.queryDangling,
      help: 'Index hits dropped by reads because their data row is missing or no longer carries the tag value',
      labelNames: ['index'] as const,
      registers,
    }),
    queryRepaired: new Counter({
      name: READ_METRIC_NAMES.queryRepaired,
      help: 'Dangling index rows deleted by reads (older than query.danglingGraceMs)',
      labelNames: ['index'] as const,
      registers,
    }),
  };
  // Known label values start at 0 so rate() and alerts see the series from the first scrape.
  for (const outcome of ['ok', 'error']) m.rollupRuns.inc({ outcome }, 0);
  for (const stage of ROLLUP_ERROR_STAGES) m.rollupErrors.inc({ stage }, 0);
  for (const window of windows) {
    m.rollupWindowsWritten.inc({ window }, 0);
    m.rollupMarkersRemarked.inc({ window }, 0);
    m.rollupPendingMarkers.set({ window }, 0);
    m.rollupLag.set({ window }, 0);
  }
  return m;
}
