// Pure: what one rollup job run (job.ts) did, and its one line for logs and `tsingest rollup run`.
// Every count says what it counts: the salt buckets worked, the marked windows found, the windows a
// summary was written for, and the marked windows whose marker row was found re-marked when the run
// went to delete it (left for the next run; a count of markers, not of windows computed twice).

export interface SizeReport {
  readonly window: string;
  /** closed marked windows found (one per id cell of a marker row) */
  pending: number;
  /** of those, marked by ingest less than rollup.markerSettleMs ago: left for a later run */
  settling: number;
  /** windows recomputed with a summary row written */
  written: number;
  /** windows recomputed without data (nothing written, marker removed) */
  empty: number;
  /**
   * windows recomputed whose marker row was found re-marked at its checked delete (marked again
   * after the run read it, or removed by another runner first): the row stays, and the next run
   * recomputes them with what came since
   */
  remarked: number;
  errors: number;
}

export interface RunReport {
  readonly startedAt: number;
  readonly durationMs: number;
  /** salt buckets this run worked on (those it owned at its start; all of them without an ownership), ascending */
  readonly buckets: readonly number[];
  /** salt buckets of the key space (keys.saltBuckets) */
  readonly saltBuckets: number;
  readonly sizes: readonly SizeReport[];
  readonly written: number;
  readonly remarked: number;
  readonly errors: number;
  /** stopped early by the AbortSignal (markers left for the next run) */
  readonly aborted: boolean;
  /** no errors and not aborted */
  readonly ok: boolean;
}

/** Two runs of one runner as one (`tsingest rollup run` over a changed assignment): counts added, buckets of both. */
export function mergeReports(a: RunReport, b: RunReport): RunReport {
  const sizes = b.sizes.map((s) => {
    const p = a.sizes.find((x) => x.window === s.window);
    return p === undefined
      ? s
      : {
          window: s.window,
          pending: p.pending + s.pending,
          settling: s.settling,
          written: p.written + s.written,
          empty: p.empty + s.empty,
          remarked: p.remarked + s.remarked,
          errors: p.errors + s.errors,
        };
  });
  const errors = a.errors + b.errors;
  return {
    startedAt: a.startedAt,
    durationMs: b.startedAt + b.durationMs - a.startedAt,
    buckets: [...new Set([...a.buckets, ...b.buckets])].sort((x, y) => x - y),
    saltBuckets: b.saltBuckets,
    sizes,
    written: a.written + b.written,
    remarked: a.remarked + b.remarked,
    errors,
    aborted: b.aborted,
    ok: errors === 0 && !b.aborted,
  };
}

/** Ascending bucket numbers as runs: [0, 1, 2, 3, 7, 9, 10] → "0-3 7 9-10"; "none" when empty. */
export function bucketRuns(buckets: readonly number[]): string {
  const runs: string[] = [];
  for (let i = 0; i < buckets.length;) {
    const from = buckets[i] as number;
    let j = i;
    while (j + 1 < buckets.length && buckets[j + 1] === (buckets[j] as number) + 1) j++;
    const to = buckets[j] as number;
    runs.push(to === from ? String(from) : `${from}-${to}`);
    i = j + 1;
  }
  return runs.length === 0 ? 'none' : runs.join(' ');
}

const total = (r: RunReport, k: 'pending' | 'settling' | 'empty'): number => r.sizes.reduce((n, s) => n + s[k], 0);

/**
 * One line for logs and `tsingest rollup run`, e.g. `rollup run: buckets worked 16 of 16 (0-15),
 * marked windows found 40, windows written 37 (1h 30, 1d 7), windows without data 1, markers found
 * re-marked 2 (left for the next run), errors 0, duration 1.20s`.
 */
export function formatRunReport(r: RunReport): string {
  const per = r.sizes.map((s) => `${s.window} ${s.written}`).join(', ');
  const settling = total(r, 'settling');
  return [
    `rollup run: buckets worked ${r.buckets.length} of ${r.saltBuckets} (${bucketRuns(r.buckets)})`,
    `marked windows found ${total(r, 'pending')}${settling > 0 ? ` (${settling} left to settle, rollup.markerSettleMs)` : ''}`,
    `windows written ${r.written}${per === '' ? '' : ` (${per})`}`,
    `windows without data ${total(r, 'empty')}`,
    `markers found re-marked ${r.remarked}${r.remarked > 0 ? ' (left for the next run)' : ''}`,
    `errors ${r.errors}`,
    `duration ${(r.durationMs / 1000).toFixed(2)}s${r.aborted ? ', stopped early' : ''}`,
  ].join(', ');
}
