// A server run as a child process by a test (nginx, a secured Kafka broker): stopped with SIGTERM
// then SIGKILL after a grace period, killed if the test process dies without its cleanup, and
// waited for until it answers, with its own diagnostics when it exits or never does.
import type { ChildProcess } from 'node:child_process';

export interface Supervised {
  /** set once the child has exited, with how */
  readonly exitedWith: () => string | undefined;
  stop(): Promise<void>;
}

export function supervise(child: ChildProcess, graceMs: number): Supervised {
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  let exitedWith: string | undefined;
  const exit = new Promise<void>((resolve) => {
    const done = (why: string): void => {
      exitedWith = why;
      process.removeListener('exit', killOnExit);
      resolve();
    };
    child.once('error', (err) => {
      done(err.message);
    });
    child.once('exit', (code, signal) => {
      done(`exit ${String(code ?? signal)}`);
    });
  });
  return {
    exitedWith: () => exitedWith,
    async stop() {
      if (exitedWith !== undefined) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
      }, graceMs);
      await exit;
      clearTimeout(timer);
    },
  };
}

/** How waitReady polls: the probe, how long and how often, and what to tell when it gives up. */
export interface ReadyPoll {
  readonly ready: () => Promise<boolean>;
  readonly timeoutMs: number;
  readonly everyMs: number;
  readonly diagnose: () => string;
}

/** Polls `ready` until true; stops the child and throws with `diagnose()` when it exits or the time runs out. */
export async function waitReady(what: string, s: Supervised, poll: ReadyPoll): Promise<void> {
  const { ready, timeoutMs, everyMs, diagnose } = poll;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const exited = s.exitedWith();
    if (exited !== undefined) throw new Error(`${what} exited during start-up (${exited}): ${diagnose()}`);
    if (await ready()) return;
    if (Date.now() > deadline) {
      await s.stop();
      throw new Error(`${what} did not answer within ${timeoutMs} ms: ${diagnose()}`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
