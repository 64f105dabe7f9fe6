/**
 * Pure: the arithmetic of a walk's progress line — completion from units (salt buckets, ids, tags …)
 * done plus the position inside the running ones, rate and ETA measured on this run only (a run
 * resumed from a checkpoint starts above 0 %), and durations as people read them. The tools render
 * their own lines and bars from these.
 */

/** Where a progress line goes: a bar redrawn in place on a TTY, else log lines (stderr in the CLI). */
export interface ProgressSink {
  readonly isTTY?: boolean | undefined;
  write(text: string): unknown;
}

/** Overall completion in [0, 1]: `partial` = the sum of the running units' positions (each 0..1). */
export function fractionOf(unitsDone: number, partial: number, unitsTotal: number): number {
  if (unitsTotal === 0) return 1;
  return Math.min(1, (unitsDone + partial) / unitsTotal);
}

/**
 * Time left at the pace of this run, in whole ms: elapsed × (1 − f) / (f − f0), where f0 is the
 * completion when the run started. 0 when complete; null before this run has made progress.
 */
export function etaOf(startFraction: number, fraction: number, elapsedMs: number): number | null {
  if (fraction >= 1) return 0;
  const gained = fraction - startFraction;
  if (!(gained > 0) || elapsedMs <= 0) return null;
  return Math.round((elapsedMs * (1 - fraction)) / gained);
}

/** `count` per second over `elapsedMs`; 0 before any time has passed. */
export function ratePerSec(count: number, elapsedMs: number): number {
  return elapsedMs > 0 ? (count * 1000) / elapsedMs : 0;
}

/** `59s`, `1m05s`, `1h02m`; `?` when unknown. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '?';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}
