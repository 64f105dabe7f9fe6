// What a burst of late events did to the ingest, read from the watch's per-second record
// (live-watch.ts): the seconds before it as the baseline, its worst seconds, and how long the lag took
// to come back to 0 once it had risen.
import type { PerSecond } from './live-watch.ts';

export interface BurstFigures {
  /** the second of the watch the burst began */
  readonly startSecond: number;
  /** the per-second event-loop p99 of the watch's seconds before the burst (earlier bursts included): its worst (ms) */
  readonly beforeMaxP99Ms: number | null;
  /** from the burst until the lag was back to 0 (or the watch's end), MIN_SECONDS at least */
  readonly worstP99Ms: number | null;
  readonly worstMaxMs: number | null;
  /** seconds whose p99 was over 50 ms (the bound) */
  readonly secondsOver50: number;
  /** the most lag from the burst until it was back to 0 */
  readonly lagMax: number;
  /** from the burst's start to the first second with lag 0 after it rose; null: not back by the watch's end */
  readonly secondsToLagZero: number | null;
}

/** how soon after the burst's first send its backlog must show in the lag to be counted as its own */
const RISE_SECONDS = 15;
/** the seconds from the burst's start whose loop figures count at least (a backlog drained between two scrapes still costs the loop) */
const MIN_SECONDS = 5;

const worst = (xs: readonly (number | null)[]): number | null => {
  const seen = xs.filter((x): x is number => x !== null);
  return seen.length === 0 ? null : Math.max(...seen);
};

export function burstFigures(s: PerSecond, startSecond: number): BurstFigures {
  const lag = s.lag.map((x) => x ?? 0);
  // the burst's backlog: the first second with lag within RISE_SECONDS of its start (none: drained
  // between two scrapes), and the first second read with lag 0 after it (a second that did not answer
  // is not a lag of 0)
  const rose = lag.slice(startSecond, startSecond + RISE_SECONDS).findIndex((x) => x > 0);
  let zero: number | null = rose === -1 ? startSecond : null;
  for (let i = startSecond + rose; zero === null && i < lag.length; i++) if (s.lag[i] === 0) zero = i;
  const end = Math.max(zero ?? lag.length, startSecond + MIN_SECONDS - 1);
  const p99 = s.loopP99Ms.slice(startSecond, end + 1);
  return {
    startSecond,
    beforeMaxP99Ms: worst(s.loopP99Ms.slice(0, startSecond)),
    worstP99Ms: worst(p99),
    worstMaxMs: worst(s.loopMaxMs.slice(startSecond, end + 1)),
    secondsOver50: p99.filter((x) => x !== null && x > 50).length,
    lagMax: Math.max(0, ...lag.slice(startSecond, end + 1)),
    secondsToLagZero: zero === null ? null : zero - startSecond,
  };
}
