/**
 * Rollup window sizes as durations ("15m", "1h", "1d") and the column family, one per size, that
 * holds their summaries in the rollup table (docs/RETENTION.md).
 * Design notes: docs/DECISIONS.md#rollup-families
 */
import { MAX_WINDOW_SEC } from './rollup-key.ts';

const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;
const UNITS_LARGEST_FIRST = ['d', 'h', 'm', 's'] as const;

/** The seconds of a duration like 15m, 1h or 1d; undefined when it is not one (or is too long for a window). */
export function durationSeconds(text: string): number | undefined {
  const m = /^([1-9][0-9]*)([smhd])$/.exec(text);
  if (m === null) return undefined;
  const seconds = Number(m[1]) * UNIT_SECONDS[m[2] as keyof typeof UNIT_SECONDS];
  return Number.isSafeInteger(seconds) && seconds <= MAX_WINDOW_SEC ? seconds : undefined;
}

/** The family of the summaries of one window size, e.g. 3600 → "r1h". */
export function rollupWindowFamily(windowSec: number): string {
  for (const unit of UNITS_LARGEST_FIRST) {
    const n = UNIT_SECONDS[unit];
    if (windowSec % n === 0) return `r${windowSec / n}${unit}`;
  }
  return `r${windowSec}s`;
}

/** Whether a family name has the form of a window size's family (`r` + a duration). */
export function isRollupWindowFamily(name: string): boolean {
  return name.startsWith('r') && durationSeconds(name.slice(1)) !== undefined;
}
