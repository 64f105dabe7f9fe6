// Shared pieces of the command modules: usage errors, output, flag parsing (integers, times, rates).
import { ServiceError, type CauseOptions } from '../errors.ts';
import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { parseTimeParam } from '../events/timestamp.ts';
import { loadConfig, type Config } from '../runtime/config.ts';

/** A wrong command line: printed as `tsingest: <message>`, exit code 2. */
export class UsageError extends ServiceError<'USAGE'> {
  override readonly name = 'UsageError';

  constructor(message: string, options: CauseOptions = {}) {
    super({ code: 'USAGE', message, cause: options.cause });
  }
}

export function out(line: string): void {
  process.stdout.write(`${line}\n`);
}

export const COMMON_OPTIONS = {
  config: { type: 'string' },
  set: { type: 'string', multiple: true },
} as const satisfies ParseArgsOptionsConfig;

export type FlagValues = Readonly<Record<string, string | boolean | (string | boolean)[] | undefined>>;

/** parseArgs over one command's own options plus --config/--set; unknown flags are a UsageError. */
export function parseCommand(argv: readonly string[], options: ParseArgsOptionsConfig): { values: FlagValues; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({ args: [...argv], allowPositionals: true, options: { ...COMMON_OPTIONS, ...options } });
    return { values, positionals };
  } catch (err) {
    throw new UsageError((err as Error).message, { cause: err });
  }
}

/** The validated configuration from --config / TSI_* env / --set. */
export function configOf(values: FlagValues): Config {
  const file = values['config'];
  const sets = values['set'];
  return loadConfig({
    file: typeof file === 'string' ? file : undefined,
    env: process.env,
    sets: Array.isArray(sets) ? sets.filter((s): s is string => typeof s === 'string') : [],
  });
}

export function stringFlag(values: FlagValues, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

export function requiredString(values: FlagValues, name: string): string {
  const v = stringFlag(values, name);
  if (v === undefined || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

export function intFlag(name: string, raw: string | undefined, fallback?: number): number {
  if (raw === undefined) {
    if (fallback === undefined) throw new UsageError(`--${name} is required`);
    return fallback;
  }
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isSafeInteger(n)) throw new UsageError(`--${name} must be an integer, got "${raw}"`);
  return n;
}

/** `--rate ROWS_PER_S` of the resumable tools (rollup backfill, index rebuild); undefined = not throttled. */
export function rateFlag(values: FlagValues): number | undefined {
  const raw = stringFlag(values, 'rate');
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n <= 0) throw new UsageError(`--rate must be a positive number of rows per second, got "${raw}"`);
  return n;
}

/** The time flag `--name` (events/timestamp.ts parseTimeParam), or `fallback`; a usage error naming the flag. */
export function timeFlag(values: FlagValues, name: string, fallback?: number): number {
  const raw = stringFlag(values, name);
  if (raw === undefined) {
    if (fallback === undefined) throw new UsageError(`--${name} is required`);
    return fallback;
  }
  const t = parseTimeParam(`--${name}`, raw);
  if (!t.ok) throw new UsageError(t.message);
  return t.ms;
}

/** The text of `--file FILE` (`-` = stdin); an unreadable file is a UsageError naming it. */
export function readFileFlag(file: string): string {
  try {
    return readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    throw new UsageError(`--file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
  }
}

/** An AbortSignal that fires on the first SIGINT/SIGTERM while `fn` runs. */
export async function interruptible<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ac = new AbortController();
  const stop = (): void => {
    process.stderr.write('\nstopping after the current chunks…\n');
    ac.abort();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    return await fn(ac.signal);
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}
