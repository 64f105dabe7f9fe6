// Pure: progress of a verify/rebuild run — units done, the position inside running units, counters,
// rate and ETA (the toolkit's progress arithmetic, src/toolkit/progress-math.ts) — and its one-line rendering
// (a bar on a TTY, a plain log line otherwise).
import { etaOf, formatDuration, fractionOf, ratePerSec } from '../toolkit/progress-math.ts';

export interface ProgressCounters {
  rowsScanned: number;
  indexRowsWritten: number;
  danglingDeleted: number;
  dangling: number;
  missing: number;
}

export interface ProgressSnapshot {
  readonly unitsTotal: number;
  readonly unitsDone: number;
  /** Overall completion, 0..1 (done units plus the position inside running ones). */
  readonly fraction: number;
  readonly elapsedMs: number;
  /** Rows scanned per second by this run. */
  readonly ratePerSec: number;
  /** Estimated time left, null until this run has made progress. */
  readonly etaMs: number | null;
  readonly counters: Readonly<ProgressCounters>;
}

export class ProgressTracker {
  readonly counters: ProgressCounters = { rowsScanned: 0, indexRowsWritten: 0, danglingDeleted: 0, dangling: 0, missing: 0 };
  readonly #total: number;
  readonly #startedAt: number;
  readonly #running = new Map<string, number>();
  #done = 0;
  /** Completion when this run started (units finished by an earlier, checkpointed run). */
  #baseline = 0;

  constructor(unitsTotal: number, startedAt: number) {
    if (!Number.isSafeInteger(unitsTotal) || unitsTotal < 0) throw new RangeError(`unitsTotal must be a non-negative integer, got ${unitsTotal}`);
    this.#total = unitsTotal;
    this.#startedAt = startedAt;
  }

  /** Units an earlier run completed: they count as done but not towards this run's rate and ETA. */
  alreadyDone(n: number): void {
    this.#done += n;
    this.#baseline = this.fraction();
  }

  advance(unitId: string, position: number): void {
    this.#running.set(unitId, Math.min(1, Math.max(0, position)));
  }

  unitDone(unitId: string): void {
    this.#running.delete(unitId);
    this.#done++;
  }

  add(delta: Partial<ProgressCounters>): void {
    for (const [k, v] of Object.entries(delta) as [keyof ProgressCounters, number][]) this.counters[k] += v;
  }

  fraction(): number {
    let partial = 0;
    for (const p of this.#running.values()) partial += p;
    return fractionOf(this.#done, partial, this.#total);
  }

  snapshot(now: number): ProgressSnapshot {
    const elapsedMs = Math.max(0, now - this.#startedAt);
    const fraction = this.fraction();
    return {
      unitsTotal: this.#total,
      unitsDone: this.#done,
      fraction,
      elapsedMs,
      ratePerSec: ratePerSec(this.counters.rowsScanned, elapsedMs),
      etaMs: etaOf(this.#baseline, fraction, elapsedMs),
      counters: { ...this.counters },
    };
  }
}

const fmt = new Intl.NumberFormat('en-US');

/** e.g. `37% 3/8 units · 12,000 rows scanned · 40 written · 2 deleted · 950 rows/s · ETA 1m05s`. */
export function formatProgress(p: ProgressSnapshot): string {
  const c = p.counters;
  return [
    `${Math.floor(p.fraction * 100)}% ${p.unitsDone}/${p.unitsTotal} units`,
    `${fmt.format(c.rowsScanned)} rows scanned`,
    `${fmt.format(c.indexRowsWritten)} written`,
    `${fmt.format(c.danglingDeleted)} deleted`,
    `${fmt.format(Math.round(p.ratePerSec))} rows/s`,
    `ETA ${formatDuration(p.etaMs)}`,
  ].join(' · ');
}

/** `[#######-------------] ` + formatProgress, for a terminal. */
export function formatProgressBar(p: ProgressSnapshot, width = 24): string {
  const filled = Math.round(p.fraction * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${formatProgress(p)}`;
}
