// Kills, freezes and restarts processes of the local stack (pid files under <stack>/run, see
// scripts/lib/services.ts) for outage tests. Every disruption registers its own undo with `defer`
// right where it happens, so a failing test still leaves the stack whole for the next one.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NODE_BIN, REPO_ROOT, waitFor } from './service-harness.ts';

export type StackProcess = 'hbase' | 'rest' | 'kafka';
type Defer = (fn: () => unknown) => void;

export function stackDir(): string {
  return process.env['TSI_STACK_DIR'] ?? join(REPO_ROOT, '.stack');
}

export function stackPid(name: StackProcess): number {
  const pidFile = join(stackDir(), 'run', `${name}.pid`);
  if (!existsSync(pidFile)) throw new Error(`no ${name} process to control: ${pidFile} does not exist (set TSI_STACK_DIR to the local stack directory)`);
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  if (!Number.isSafeInteger(pid) || pid <= 0) throw new Error(`${pidFile} holds no pid`);
  return pid;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `node scripts/stack.ts up` with this environment: restarts what is down and waits until it answers. */
export async function startStack(): Promise<void> {
  const child = spawn(NODE_BIN, ['scripts/stack.ts', 'up'], { cwd: REPO_ROOT, env: { ...process.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (b: Buffer) => { out += b.toString(); });
  child.stderr.on('data', (b: Buffer) => { out += b.toString(); });
  const code = await new Promise<number | null>((res) => { child.once('exit', (c) => { res(c); }); });
  if (code !== 0) throw new Error(`scripts/stack.ts up exited ${String(code)}:\n${out.slice(-4000)}`);
}

export interface Disruption {
  /** undo now (restart / continue) and wait until the stack answers; later calls do nothing */
  restore(): Promise<void>;
}

/** SIGKILLs a stack process; `restore()` (also registered with `defer`) starts it again. */
export async function killStackProcess(defer: Defer, name: StackProcess): Promise<Disruption> {
  const pid = stackPid(name);
  let restored: Promise<void> | undefined;
  const restore = (): Promise<void> => (restored ??= startStack());
  defer(restore);
  process.kill(pid, 'SIGKILL');
  await waitFor(`${name} (pid ${pid}) to exit`, 30_000, () => !alive(pid), 100);
  return { restore };
}

/** SIGSTOPs a stack process (it holds its connections but answers nothing); `restore()` SIGCONTs it. */
export function freezeStackProcess(defer: Defer, name: StackProcess): Disruption {
  const pid = stackPid(name);
  let restored: Promise<void> | undefined;
  const restore = (): Promise<void> => (restored ??= Promise.resolve().then(() => { if (alive(pid)) process.kill(pid, 'SIGCONT'); }));
  defer(restore);
  process.kill(pid, 'SIGSTOP');
  return { restore };
}

/** Kills the REST gateway of the local stack (SIGKILL on the pid in <stack>/run/rest.pid). */
export function stopRestGateway(): number {
  const pid = stackPid('rest');
  process.kill(pid, 'SIGKILL');
  return pid;
}

/** Restarts what is down (the REST gateway after stopRestGateway) and waits until REST answers. */
export const startRestGateway = startStack;
