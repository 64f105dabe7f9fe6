// Kills, freezes and restarts processes of the test stack for outage tests: on the local stack
// through its pid files (<stack>/run, scripts/lib/stack/config.ts requireStackPid); on the container stack
// (TSI_STACK_KIND=docker) with `docker exec <container> tsi-ctl NAME kill|start|freeze|thaw`, which
// the images' supervisor understands (deploy/container). Every disruption registers its own undo
// with `defer` right where it happens, so a failing test still leaves the stack whole for the next one.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { NODE_BIN, REPO_ROOT, waitFor } from './service-harness.ts';
import { requireStackPid, type StackProcess } from '../../scripts/lib/stack/config.ts';
import { hbaseRestAnswers, hbaseRestScannerModelFault, kafkaAnswers, untilSound } from '../../scripts/lib/stack/probes.ts';
import { isAlive } from '../../scripts/lib/stack/proc.ts';
import { testEnv } from './env.ts';

export type { StackProcess };
type Defer = (fn: () => unknown) => void;

const onDocker = (): boolean => process.env['TSI_STACK_KIND'] === 'docker';

function containerOf(name: StackProcess): string {
  const id = process.env[name === 'kafka' ? 'TSI_DOCKER_KAFKA' : 'TSI_DOCKER_HBASE'];
  if (id === undefined || id === '') throw new Error(`TSI_STACK_KIND=docker but no container id for ${name} (run through npm run test:docker)`);
  return id;
}

/**
 * `docker exec <container> tsi-ctl NAME ACTION`; returns its output. When it fails, the error carries
 * the container's state (exit code, OOM flag, when it finished) and its last log lines, so a
 * container that stopped under a test says why (the supervisor logs what it saw: supervise.sh).
 */
function tsiCtl(name: StackProcess, action: 'kill' | 'start' | 'freeze' | 'thaw' | 'pid'): string {
  const container = containerOf(name);
  try {
    return execFileSync('docker', ['exec', container, 'tsi-ctl', name, action], { encoding: 'utf8', timeout: 90_000 }).trim();
  } catch (e) {
    throw new Error(`tsi-ctl ${name} ${action} failed: ${e instanceof Error ? e.message : String(e)}\n${containerReport(container)}`, { cause: e });
  }
}

function containerReport(container: string): string {
  // docker logs replays the container's stderr on its own stderr: keep both streams
  const run = (args: string[]): string => {
    const r = spawnSync('docker', args, { encoding: 'utf8', timeout: 30_000 });
    return `${r.stdout}${r.stderr}`.trim() || `(docker ${args[0] ?? ''}: no output, status ${String(r.status)})`;
  };
  const format = 'status={{.State.Status}} exit={{.State.ExitCode}} oom={{.State.OOMKilled}} error={{.State.Error}} finished={{.State.FinishedAt}}';
  return `container ${container.slice(0, 12)}: ${run(['inspect', '-f', format, container])}\nlast log lines:\n${run(['logs', '--tail', '60', container])}`;
}

/**
 * Until the stack answers again: REST for the HBase processes, the broker for Kafka. A gateway that
 * answers but cannot read its scanner model (probes.ts) is restarted, as `scripts/stack.ts up` does
 * on the local stack.
 */
async function waitAnswers(name: StackProcess): Promise<void> {
  const env = testEnv();
  if (name === 'kafka') {
    await waitFor('kafka to answer again', 180_000, () => kafkaAnswers(env.kafkaBrokers), 500);
    return;
  }
  await untilSound({
    what: 'the REST gateway',
    started: () => waitFor(`${name} to answer again`, 180_000, () => hbaseRestAnswers(env.restUrl), 500),
    fault: () => hbaseRestScannerModelFault(env.restUrl),
    restart: () => {
      tsiCtl('rest', 'kill');
      tsiCtl('rest', 'start');
      return Promise.resolve();
    },
  });
}

/** `node scripts/stack.ts up` with this environment: restarts what is down and waits until it answers. */
export async function startStack(): Promise<void> {
  if (onDocker()) {
    for (const name of ['hbase', 'rest', 'kafka'] as const) tsiCtl(name, 'start');
    await waitAnswers('hbase');
    await waitAnswers('kafka');
    return;
  }
  const child = spawn(NODE_BIN, ['scripts/stack.ts', 'up'], { cwd: REPO_ROOT, env: { ...process.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (b: Buffer) => {
    out += b.toString();
  });
  child.stderr.on('data', (b: Buffer) => {
    out += b.toString();
  });
  const code = await new Promise<number | null>((res) => {
    child.once('exit', (c) => {
      res(c);
    });
  });
  if (code !== 0) throw new Error(`scripts/stack.ts up exited ${String(code)}:\n${out.slice(-4000)}`);
}

export interface Disruption {
  /** undo now (restart / continue) and wait until the stack answers; later calls do nothing */
  restore(): Promise<void>;
}

/** SIGKILLs a stack process; `restore()` (also registered with `defer`) starts it again. */
export async function killStackProcess(defer: Defer, name: StackProcess): Promise<Disruption> {
  if (onDocker()) {
    let restored: Promise<void> | undefined;
    const restore = (): Promise<void> =>
      (restored ??= Promise.resolve()
        .then(() => {
          tsiCtl(name, 'start');
        })
        .then(() => waitAnswers(name)));
    defer(restore);
    tsiCtl(name, 'kill');
    return { restore };
  }
  const pid = requireStackPid(name);
  let restored: Promise<void> | undefined;
  const restore = (): Promise<void> => (restored ??= startStack());
  defer(restore);
  process.kill(pid, 'SIGKILL');
  await waitFor(`${name} (pid ${pid}) to exit`, 30_000, () => !isAlive(pid), 100);
  return { restore };
}

/** SIGSTOPs a stack process (it holds its connections but answers nothing); `restore()` SIGCONTs it. */
export function freezeStackProcess(defer: Defer, name: StackProcess): Disruption {
  if (onDocker()) {
    let restored: Promise<void> | undefined;
    const restore = (): Promise<void> =>
      (restored ??= Promise.resolve().then(() => {
        tsiCtl(name, 'thaw');
      }));
    defer(restore);
    tsiCtl(name, 'freeze');
    return { restore };
  }
  const pid = requireStackPid(name);
  let restored: Promise<void> | undefined;
  const restore = (): Promise<void> =>
    (restored ??= Promise.resolve().then(() => {
      if (isAlive(pid)) process.kill(pid, 'SIGCONT');
    }));
  defer(restore);
  process.kill(pid, 'SIGSTOP');
  return { restore };
}

/** Kills the REST gateway (local stack: SIGKILL on <stack>/run/rest.pid; containers: tsi-ctl). */
export function stopRestGateway(): number {
  if (onDocker()) {
    const pid = Number(tsiCtl('rest', 'pid'));
    tsiCtl('rest', 'kill');
    return pid;
  }
  const pid = requireStackPid('rest');
  process.kill(pid, 'SIGKILL');
  return pid;
}

/** Restarts what is down (the REST gateway after stopRestGateway) and waits until REST answers. */
export const startRestGateway = startStack;
