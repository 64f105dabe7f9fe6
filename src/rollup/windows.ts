// Pure: rollup window sizes from config ("15m", "1h", "1d") and the window arithmetic (epoch-aligned,
// UTC). Windows are nested: each size is a whole multiple of the one before it, so a coarser window
// is exactly a run of finer ones and can be computed from their summaries.
import { ServiceError, type CauseOptions } from '../errors.ts';
import { durationSeconds } from '../keys/index.ts';

export interface WindowSize {
  /** as configured, e.g. "1h" */
  readonly name: string;
  readonly seconds: number;
  readonly ms: number;
}

/** rollup.windows (or a --window flag) that is not a valid list of sizes: a configuration error, exit 3. */
export class WindowConfigError extends ServiceError<'CONFIG'> {
  override readonly name = 'WindowConfigError';

  constructor(message: string, options: CauseOptions = {}) {
    super({ code: 'CONFIG', message, cause: options.cause });
  }
}

export function parseWindow(text: string): WindowSize {
  if (!/^([1-9][0-9]*)([smhd])$/.test(text)) throw new WindowConfigError(`rollup window "${text}" is not a duration like 15m, 1h or 1d`);
  const seconds = durationSeconds(text);
  if (seconds === undefined) throw new WindowConfigError(`rollup window "${text}" is too long`);
  return { name: text, seconds, ms: seconds * 1000 };
}

/** The configured sizes, finest first; each must be a multiple of the previous one. */
export function parseWindows(texts: readonly string[]): WindowSize[] {
  if (texts.length === 0) throw new WindowConfigError('rollup.windows needs at least one window');
  const sizes = texts.map(parseWindow).sort((a, b) => a.seconds - b.seconds);
  for (let i = 1; i < sizes.length; i++) {
    const finer = sizes[i - 1] as WindowSize;
    const coarser = sizes[i] as WindowSize;
    if (coarser.seconds === finer.seconds) throw new WindowConfigError(`rollup window ${coarser.name} is listed twice (${finer.name})`);
    if (coarser.seconds % finer.seconds !== 0) {
      throw new WindowConfigError(`rollup window ${coarser.name} is not a whole multiple of ${finer.name}: coarser windows are built from finer ones`);
    }
  }
  return sizes;
}

/** Start (ms) of the window of size `w` holding `ts`. */
export function windowStartOf(ts: number, w: WindowSize): number {
  return ts - (ts % w.ms);
}

/** A window is closed once its end plus the grace period has passed. */
export function isClosed(windowStart: number, w: WindowSize, graceMs: number, now: number): boolean {
  return windowStart + w.ms + graceMs <= now;
}

/** The first window start that is not closed at `now`: every window starting before it is closed. */
export function firstOpenStart(w: WindowSize, graceMs: number, now: number): number {
  const lastClosable = now - graceMs - w.ms; // a window starting at or before this is closed
  return lastClosable < 0 ? 0 : windowStartOf(lastClosable, w) + w.ms;
}

/** Finds a window size by its configured name or by its length in seconds. */
export function findWindow(sizes: readonly WindowSize[], nameOrSeconds: string): WindowSize | undefined {
  return sizes.find((w) => w.name === nameOrSeconds || String(w.seconds) === nameOrSeconds || `${w.seconds}s` === nameOrSeconds);
}
