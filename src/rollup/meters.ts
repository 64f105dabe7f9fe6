/**
 * What the rollup job reports, declared here by the job itself so that it never imports the metrics:
 * the meters it sets and counts, each with only the calls it makes. The service hands in its
 * Prometheus read metrics (src/metrics/read-metrics.ts, whose gauges, counters and histogram have
 * these calls); a one-shot `tsingest rollup run` hands in `quietRollupMeters()`, which keeps nothing.
 */

/** The stages a rollup error is counted under (`tsingest_rollup_errors_total{stage}`). */
export const ROLLUP_ERROR_STAGES = ['scan_markers', 'compute', 'write', 'delete_marker'] as const;
export type RollupErrorStage = (typeof ROLLUP_ERROR_STAGES)[number];

type Labels<L extends string> = Partial<Record<L, string | number>>;

export interface LabelledGauge<L extends string> {
  set(labels: Labels<L>, value: number): void;
  remove(labels: Labels<L>): void;
}

export interface LabelledCounter<L extends string> {
  inc(labels: Labels<L>, value?: number): void;
}

/** A gauge without labels. */
export interface PlainGauge {
  set(value: number): void;
}

export interface DurationTimer {
  /** Starts timing; the returned function ends it. */
  startTimer(): () => unknown;
}

/**
 * By kind of meter: per window size, the closed windows still marked as the last run saw them
 * (pending) and the seconds since the end of the oldest of them (lag, 0 when none); the windows a run
 * wrote a summary for (windows written) and the marked windows whose marker row it found re-marked at
 * the delete, left for the next run (markers re-marked); the salt buckets the last run worked on;
 * runs by outcome and their duration; errors by stage; per salt bucket, 1 when this runner works on
 * its markers (owned), and the lag of each owned bucket at the start of a run.
 */
export type RollupMeters = Readonly<
  Record<'rollupPendingMarkers' | 'rollupLag', LabelledGauge<'window'>> &
    Record<'rollupWindowsWritten' | 'rollupMarkersRemarked', LabelledCounter<'window'>> &
    Record<'rollupBucketsWorked', PlainGauge> &
    Record<'rollupRuns', LabelledCounter<'outcome'>> &
    Record<'rollupRunDuration', DurationTimer> &
    Record<'rollupErrors', LabelledCounter<'stage'>> &
    Record<'rollupBucketOwned', LabelledGauge<'bucket'>> &
    Record<'rollupBucketLag', LabelledGauge<'window' | 'bucket'>>
>;

/** Every meter of RollupMeters by name (the rollup thread relays their calls: src/toolkit/meter-relay.ts). */
export const ROLLUP_METER_NAMES = [
  'rollupPendingMarkers',
  'rollupLag',
  'rollupWindowsWritten',
  'rollupMarkersRemarked',
  'rollupBucketsWorked',
  'rollupRuns',
  'rollupRunDuration',
  'rollupErrors',
  'rollupBucketOwned',
  'rollupBucketLag',
] as const satisfies readonly (keyof RollupMeters)[];

/** Meters that keep nothing: a run outside the service (its numbers are in the run's report). */
export function quietRollupMeters(): RollupMeters {
  const gauge = { set: (): void => undefined, remove: (): void => undefined };
  const counter = { inc: (): void => undefined };
  return {
    rollupPendingMarkers: gauge,
    rollupLag: gauge,
    rollupWindowsWritten: counter,
    rollupMarkersRemarked: counter,
    rollupBucketsWorked: { set: (): void => undefined },
    rollupRuns: counter,
    rollupRunDuration: { startTimer: () => () => undefined },
    rollupErrors: counter,
    rollupBucketOwned: gauge,
    rollupBucketLag: gauge,
  };
}
