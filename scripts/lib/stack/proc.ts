// Small process helpers for the stack scripts.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, existsSync } from 'node:fs';

export async function run(cmd: string, args: readonly string[], opts: { what: string; env?: NodeJS.ProcessEnv; cwd?: string }): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: opts.env ?? process.env, cwd: opts.cwd });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', (e) => {
      reject(new Error(`${opts.what}: ${e.message}`));
    });
    child.on('close', (code) => {
      if (code === 0) resolvePromise(out);
      else reject(new Error(`${opts.what} failed (exit ${code}):\n${out.slice(-4000)}`));
    });
  });
}

export async function requireCommand(cmd: string, args: readonly string[], hint: string): Promise<void> {
  try {
    await run(cmd, args, { what: cmd });
  } catch {
    throw new Error(`${cmd} not found or not working: ${hint}`);
  }
}

/** Starts a long-running process detached from us, output to a log file; returns its pid. */
export function startDetached(cmd: string, args: readonly string[], logFile: string, cwd: string): number {
  const fd = openSync(logFile, 'a');
  try {
    const child = spawn(cmd, args, { cwd, detached: true, stdio: ['ignore', fd, fd] });
    if (child.pid === undefined) throw new Error(`could not start ${cmd}`);
    child.unref();
    return child.pid;
  } finally {
    closeSync(fd);
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function readPid(file: string): number | undefined {
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface WaitOptions {
  readonly timeoutMs: number;
  /** between probes; 500 ms unless told */
  readonly everyMs?: number;
  /** aborts early when it turns false (the process being waited for died) */
  readonly alive?: () => boolean;
  /** its tail goes into the error */
  readonly logFile?: string;
  /** a probe that throws: 'retry' (counts as not yet, the default) or 'throw' (ends the wait with that error) */
  readonly errors?: 'retry' | 'throw';
}

/**
 * Polls `probe` until it returns true or the deadline passes: the one wait-until-ready loop of the
 * stack scripts and the test support (test/support/service-harness.ts waitFor).
 */
export async function waitFor(what: string, probe: () => Promise<boolean> | boolean, opts: WaitOptions): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  const check =
    opts.errors === 'throw'
      ? async () => probe()
      : async () => {
          try {
            return await probe();
          } catch {
            return false;
          }
        };
  const log = opts.logFile === undefined ? '' : `; see ${opts.logFile}:\n${tail(opts.logFile)}`;
  for (;;) {
    if (await check()) return;
    if (opts.alive !== undefined && !opts.alive()) throw new Error(`${what}: the process exited during start-up${log}`);
    if (Date.now() > deadline) throw new Error(`timed out after ${opts.timeoutMs} ms waiting for ${what}${log}`);
    await sleep(opts.everyMs ?? 500);
  }
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-25).join('\n');
  } catch {
    return '(no log)';
  }
}
