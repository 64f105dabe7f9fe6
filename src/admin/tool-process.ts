// The admin tool as a process: one request per process (runTool), or a session that keeps one
// process and its HBase connection for many requests, one JSON line each way (ToolSession; the
// tool's side is deploy/admin/Session.java). Both bound the time and the output of each request.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Socket } from 'node:net';
import { TableAdminError } from './table-admin-port.ts';

export interface ToolSpec {
  /** argv that runs the tool (no shell) */
  readonly command: readonly string[];
  /** the tool's environment; default: this process's */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
}

/** What the tool answered to one request. */
export interface ToolAnswer {
  /** the response line, or undefined when the tool ended without one */
  readonly line: string | undefined;
  /** the end of what the tool logged meanwhile, Java stack frames dropped */
  readonly stderrTail: string;
  /** how the tool ended when that is not a clean exit after its answer (`code 1`, `signal SIGKILL`); undefined otherwise */
  readonly exit: string | undefined;
}

const STDOUT_LIMIT_BYTES = 32 * 1024 * 1024;
const STDERR_KEEP_BYTES = 64 * 1024;
const STDERR_TAIL_CHARS = 3_000;
const SESSION_HELLO = '{"op":"session"}';
const CLOSE_GRACE_MS = 5_000;

function spawnTool(spec: ToolSpec): ChildProcessWithoutNullStreams {
  const [program = '', ...args] = spec.command;
  const child = spawn(program, args, { stdio: ['pipe', 'pipe', 'pipe'], env: spec.env ?? process.env });
  // A tool that dies before reading its input must not crash us with EPIPE.
  child.stdin.on('error', () => undefined);
  return child;
}

function program(spec: ToolSpec): string {
  return spec.command[0] ?? '';
}

function exitText(code: number | null, signal: NodeJS.Signals | null): string {
  return signal === null ? `code ${code ?? 'unknown'}` : `signal ${signal}`;
}

/** Keeps the last STDERR_KEEP_BYTES of a stream. */
class StderrTail {
  #buf = Buffer.alloc(0);

  push(chunk: Buffer): void {
    this.#buf = Buffer.concat([this.#buf, chunk]);
    if (this.#buf.length > STDERR_KEEP_BYTES) this.#buf = this.#buf.subarray(this.#buf.length - STDERR_KEEP_BYTES);
  }

  reset(): void {
    this.#buf = Buffer.alloc(0);
  }

  tail(): string {
    return stderrTail(this.#buf.toString('utf8'));
  }
}

function timeoutError(what: string, timeoutMs: number, tail: string): TableAdminError {
  return new TableAdminError('ADMIN_TIMEOUT', withTail(`${what}: admin tool did not answer within ${timeoutMs} ms (killed)`, tail), { stderrTail: tail });
}

function spawnError(what: string, spec: ToolSpec, cause: Error): TableAdminError {
  return new TableAdminError('ADMIN_SPAWN_FAILED', `${what}: cannot run admin tool '${program(spec)}': ${cause.message}`, { cause });
}

function tooMuchError(what: string): TableAdminError {
  return new TableAdminError('ADMIN_PROTOCOL', `${what}: admin tool wrote more than ${STDOUT_LIMIT_BYTES} bytes to stdout`);
}

/** Runs the tool once: feeds it the request, collects bounded output, kills it at the deadline. */
export function runTool(spec: ToolSpec, input: string, timeoutMs: number, what: string): Promise<ToolAnswer> {
  return new Promise<ToolAnswer>((resolve, reject) => {
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    const stderr = new StderrTail();
    let settled = false;
    const child = spawnTool(spec);
    const finish = (fn: () => void): void => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        fn();
      }
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(() => {
        reject(timeoutError(what, timeoutMs, stderr.tail()));
      });
    }, timeoutMs);
    child.on('error', (cause) => {
      finish(() => {
        reject(spawnError(what, spec, cause));
      });
    });
    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > STDOUT_LIMIT_BYTES) {
        child.kill('SIGKILL');
        finish(() => {
          reject(tooMuchError(what));
        });
        return;
      }
      stdout.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr.push(chunk);
    });
    child.on('close', (code, signal) => {
      finish(() => {
        resolve({
          line: lastJsonLine(Buffer.concat(stdout).toString('utf8')),
          stderrTail: stderr.tail(),
          exit: code === 0 && signal === null ? undefined : exitText(code, signal),
        });
      });
    });
    child.stdin.end(input);
  });
}

interface Waiter {
  readonly resolve: (line: string | undefined) => void;
}

/** One running tool in session mode: the process, its response lines as they come, how it ended. */
class SessionProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly stderr = new StderrTail();
  /** set once the process has ended (or failed to start) */
  ended: string | undefined;
  spawnFailure: Error | undefined;
  #partial = '';
  #pendingBytes = 0;
  readonly #lines: string[] = [];
  #waiter: Waiter | undefined;

  constructor(spec: ToolSpec) {
    this.child = spawnTool(spec);
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.#onData(chunk);
    });
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderr.push(chunk);
    });
    this.child.on('error', (cause) => {
      this.spawnFailure = cause;
      this.#end('not started');
    });
    this.child.on('close', (code, signal) => {
      this.#end(exitText(code, signal));
    });
  }

  #onData(chunk: Buffer): void {
    this.#pendingBytes += chunk.length;
    if (this.#pendingBytes > STDOUT_LIMIT_BYTES) {
      this.child.kill('SIGKILL');
      return;
    }
    const parts = (this.#partial + chunk.toString('utf8')).split('\n');
    this.#partial = parts.pop() ?? '';
    for (const raw of parts) {
      const line = raw.trim();
      if (!line.startsWith('{')) continue;
      this.#pendingBytes = this.#partial.length;
      const w = this.#waiter;
      this.#waiter = undefined;
      if (w === undefined) this.#lines.push(line);
      else w.resolve(line);
    }
  }

  #end(how: string): void {
    this.ended ??= how;
    const w = this.#waiter;
    this.#waiter = undefined;
    w?.resolve(undefined);
  }

  /** The next response line; undefined once the process has ended without one. */
  next(): Promise<string | undefined> {
    const line = this.#lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.ended !== undefined) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.#waiter = { resolve };
    });
  }

  /** Lets this process exit without waiting for the tool (idle), or holds it (a request in flight). */
  hold(on: boolean): void {
    // The pipes are sockets (node's child_process); their types say only Readable / Writable.
    const pipes = [this.child.stdin, this.child.stdout, this.child.stderr].map((p) => p as unknown as Socket);
    for (const h of [this.child, ...pipes]) {
      if (on) h.ref();
      else h.unref();
    }
  }
}

/**
 * Many requests through one tool process and its one HBase connection. Requests run one after
 * another. The process starts with the first request and ends with close(), with the end of this
 * process (its stdin closes), or with a failure: a request past its deadline kills it, and the next
 * request starts a new one. While no request is in flight it does not keep this process alive.
 */
export class ToolSession {
  readonly #spec: ToolSpec;
  #proc: SessionProcess | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(spec: ToolSpec) {
    this.#spec = spec;
  }

  request(input: string, timeoutMs: number, what: string): Promise<ToolAnswer> {
    const run = this.#queue.then(() => this.#request(input, timeoutMs, what));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #request(input: string, timeoutMs: number, what: string): Promise<ToolAnswer> {
    const started = this.#proc === undefined || this.#proc.ended !== undefined;
    const proc = started ? new SessionProcess(this.#spec) : (this.#proc as SessionProcess);
    this.#proc = proc;
    proc.hold(true);
    proc.stderr.reset();
    const timers: NodeJS.Timeout[] = [];
    const deadline = (): Promise<'timeout'> =>
      new Promise((resolve) => {
        timers.push(
          setTimeout(() => {
            resolve('timeout');
          }, timeoutMs),
        );
      });
    try {
      // A new process first opens the session, within a deadline of its own: the request's deadline then
      // starts once the tool is up, as the tool's own deadline does (a JVM start under load is seconds).
      if (started) {
        proc.child.stdin.write(`${SESSION_HELLO}\n`);
        const hello = await Promise.race([proc.next(), deadline()]);
        if (hello === 'timeout') throw this.#kill(proc, timeoutError(`${what} (opening a session)`, timeoutMs, proc.stderr.tail()));
        if (proc.spawnFailure !== undefined) throw spawnError(what, this.#spec, proc.spawnFailure);
        if (hello === undefined) return { line: undefined, stderrTail: proc.stderr.tail(), exit: proc.ended };
        if (!isHello(hello))
          throw this.#kill(proc, new TableAdminError('ADMIN_PROTOCOL', `${what}: admin tool did not open a session: ${hello.slice(0, 200)}`));
      }
      proc.child.stdin.write(`${input.replaceAll('\n', ' ')}\n`);
      const line = await Promise.race([proc.next(), deadline()]);
      if (line === 'timeout') throw this.#kill(proc, timeoutError(what, timeoutMs, proc.stderr.tail()));
      // The tool's own deadline answer ends its process (Session.java): the next request needs another.
      if (line !== undefined && isToolTimeout(line) && this.#proc === proc) this.#proc = undefined;
      return { line, stderrTail: proc.stderr.tail(), exit: line === undefined ? proc.ended : undefined };
    } finally {
      for (const t of timers) clearTimeout(t);
      proc.hold(false);
    }
  }

  #kill(proc: SessionProcess, err: TableAdminError): TableAdminError {
    proc.child.kill('SIGKILL');
    if (this.#proc === proc) this.#proc = undefined; // its 'close' comes later: never hand it another request
    return err;
  }

  /** Ends the tool process (its stdin closes, it exits); waits a few seconds for it, then kills it. */
  async close(): Promise<void> {
    await this.#queue;
    const proc = this.#proc;
    this.#proc = undefined;
    if (proc === undefined || proc.ended !== undefined) return;
    const ended = new Promise<void>((resolve) => {
      proc.child.once('close', () => {
        resolve();
      });
    });
    proc.child.stdin.end();
    const t = setTimeout(() => {
      proc.child.kill('SIGKILL');
    }, CLOSE_GRACE_MS);
    await ended;
    clearTimeout(t);
  }
}

/** The envelope fields of a response line, or undefined when it is not JSON. */
function envelopeOf(line: string): { readonly ok?: unknown; readonly op?: unknown; readonly code?: unknown } | undefined {
  try {
    return JSON.parse(line) as { ok?: unknown; op?: unknown; code?: unknown };
  } catch {
    return undefined;
  }
}

function isToolTimeout(line: string): boolean {
  const v = envelopeOf(line);
  return v?.ok === false && v.code === 'TIMEOUT';
}

function isHello(line: string): boolean {
  const v = envelopeOf(line);
  return v?.ok === true && v.op === 'session';
}

/** The response line: the last stdout line that looks like a JSON object. */
function lastJsonLine(stdout: string): string | undefined {
  return stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('{'))
    .at(-1);
}

/** The end of the tool's log, Java stack frames dropped, for error messages. */
export function stderrTail(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l !== '' && !/^\s+at /.test(l) && !/^\s*\.\.\. \d+ more$/.test(l) && !l.startsWith('SLF4J:'));
  const text = lines.slice(-20).join('\n');
  return text.length > STDERR_TAIL_CHARS ? text.slice(text.length - STDERR_TAIL_CHARS) : text;
}

export function withTail(message: string, tail: string): string {
  return tail === '' ? message : `${message}\n--- admin tool stderr (tail) ---\n${tail}`;
}
