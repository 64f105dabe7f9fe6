// Backfill progress: the numbers, the ETA (from units — buckets or ids — done plus the position inside
// the current unit), one rendered line, and a reporter that redraws a bar on a TTY or logs a line
// every few seconds otherwise. The arithmetic is the toolkit's (src/toolkit/progress-math.ts).
import { etaOf, formatDuration, fractionOf, ratePerSec, type ProgressSink } from '../toolkit/progress-math.ts';

export interface BackfillProgress {
  readonly rowsScanned: number;
  readonly windowsWritten: number;
  readonly unitsDone: number;
  readonly unitsTotal: number;
  /** estimated position inside the current unit, 0…1 */
  readonly unitFraction: number;
  /** ms since this (resumed) run started */
  readonly elapsedMs: number;
  /** rows scanned by this run (a resumed run starts at 0) — for the rate */
  readonly rowsThisRun: number;
  /** fraction done when this run started (a resumed run starts above 0) */
  readonly startFraction: number;
}

export function fractionDone(p: BackfillProgress): number {
  return fractionOf(p.unitsDone, Math.min(1, Math.max(0, p.unitFraction)), p.unitsTotal);
}

/** ms left, estimated from the progress this run made so far; undefined before any. */
export function etaMs(p: BackfillProgress): number | undefined {
  return etaOf(p.startFraction, fractionDone(p), p.elapsedMs) ?? undefined;
}

/** Where in [lo, hi) a key sits, from the first bytes after their common prefix (an estimate). */
export function keyFraction(key: Buffer, lo: Buffer, hi: Buffer): number {
  let i = 0;
  while (i < lo.length && i < hi.length && lo[i] === hi[i]) i++;
  const num = (b: Buffer): number => {
    let n = 0;
    for (let k = 0; k < 6; k++) n = n * 256 + (b[i + k] ?? 0);
    return n;
  };
  const span = (hi.length === 0 ? 256 ** 6 : num(hi)) - num(lo);
  return span <= 0 ? 0 : Math.min(1, Math.max(0, (num(key) - num(lo)) / span));
}

export function formatProgress(p: BackfillProgress, barWidth = 20): string {
  const f = fractionDone(p);
  const filled = Math.round(f * barWidth);
  const rate = Math.round(ratePerSec(p.rowsThisRun, p.elapsedMs));
  const pct = `${(f * 100).toFixed(1)}%`.padStart(6);
  return `[${'#'.repeat(filled)}${'.'.repeat(barWidth - filled)}] ${pct} rows ${p.rowsScanned} | windows ${p.windowsWritten} | ${rate} rows/s | ETA ${formatDuration(etaMs(p))}`;
}

/** Redraws a bar at most every 200 ms on a TTY; otherwise writes a line every `logEveryMs`. */
export class ProgressReporter {
  readonly #sink: ProgressSink;
  readonly #everyMs: number;
  readonly #now: () => number;
  #lastAt = -Infinity;
  #drawn = false;

  constructor(sink: ProgressSink, opts: { logEveryMs?: number; now?: () => number } = {}) {
    this.#sink = sink;
    this.#everyMs = sink.isTTY === true ? 200 : (opts.logEveryMs ?? 5000);
    this.#now = opts.now ?? Date.now;
  }

  update(p: BackfillProgress): void {
    const now = this.#now();
    if (now - this.#lastAt < this.#everyMs) return;
    this.#lastAt = now;
    if (this.#sink.isTTY === true) {
      this.#sink.write(`\r${formatProgress(p)}\u001b[K`);
      this.#drawn = true;
    } else {
      this.#sink.write(`backfill: ${formatProgress(p, 10)}\n`);
    }
  }

  /** Ends the bar's line (TTY). */
  done(): void {
    if (this.#drawn) this.#sink.write('\n');
    this.#drawn = false;
  }
}
