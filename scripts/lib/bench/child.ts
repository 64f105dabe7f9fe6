// The service under benchmark as its own process (`node src/cli.ts run`), so its memory and CPU are
// its own: RSS sampled from /proc/<pid>/status every 200 ms (plus the kernel's VmHWM high-water
// mark), CPU time from /proc/<pid>/stat, progress and histograms from its /metrics endpoint.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { projectRoot } from '../stack/config.ts';

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** Prometheus text exposition → samples (comments and blank lines skipped). */
export function parseMetrics(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([A-Za-z_:][\w:]*)(\{(.*)\})?\s+(\S+)/.exec(line);
    if (m === null) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[3] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1] ?? ''] = (l[2] ?? '').replace(/\\(.)/g, '$1');
    const raw = m[4] ?? '';
    out.push({ name: m[1] ?? '', labels, value: raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw) });
  }
  return out;
}

export const sumOf = (samples: readonly Sample[], name: string, match: Readonly<Record<string, string>> = {}): number =>
  samples.filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v)).reduce((a, s) => a + s.value, 0);

/** CPU time (user + system) of a process in ms, from /proc/<pid>/stat (clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10; // utime, stime are fields 14 and 15
}

/** VmRSS and VmHWM (peak RSS since start) of a process in bytes. */
export function memory(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
}

export interface ServiceChild {
  readonly pid: number;
  /** the service's /metrics, or only the named metrics */
  scrape(names?: readonly string[]): Promise<Sample[]>;
  written(): Promise<number>;
  /** highest VmRSS seen by the 200 ms sampler and the kernel's VmHWM, in bytes */
  peak(): { sampled: number; hwm: number };
  /** resets the sampled peak (VmHWM cannot be reset) */
  resetPeak(): void;
  cpuMs(): number;
  /** SIGTERM (the service drains), wait for exit; resolves with the exit code */
  stop(): Promise<number | null>;
  /** SIGKILL (kill -9: no drain), wait for exit */
  kill(): Promise<void>;
}

export async function startServiceChild(o: {
  env: NodeJS.ProcessEnv;
  sets: readonly string[];
  port: number;
  cpuProfDir?: string;
  /** node / V8 flags on the command line (some, --single-threaded-gc among them, are refused in NODE_OPTIONS) */
  nodeFlags?: readonly string[];
  say: (m: string) => void;
}): Promise<ServiceChild> {
  const nodeArgs = ['--disable-warning=TimeoutNegativeWarning', ...(o.nodeFlags ?? [])];
  if (o.cpuProfDir !== undefined) nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${o.cpuProfDir}`);
  const args = [...nodeArgs, 'src/cli.ts', 'run', ...[...o.sets, `http.port=${o.port}`, 'http.host=127.0.0.1'].flatMap((s) => ['--set', s])];
  const child: ChildProcess = spawn(process.execPath, args, { cwd: projectRoot, env: o.env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (b: Buffer) => {
    stderr = (stderr + b.toString()).slice(-8000);
  });
  const exited = new Promise<number | null>((res) => {
    child.once('exit', (code) => {
      res(code);
    });
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start the service process');
  let sampled = 0;
  const sample = (): void => {
    try {
      sampled = Math.max(sampled, memory(pid).rss);
    } catch {
      // exited
    }
  };
  const sampler = setInterval(sample, 200);
  void exited.then(() => {
    clearInterval(sampler);
  });
  // `names`: only those metrics (?name=…): the progress polls every 100 ms would otherwise run the
  // service's every collect hook ten times a second, a load no Prometheus scrape interval puts on it.
  const scrape = async (names: readonly string[] = []): Promise<Sample[]> => {
    const query = names.map((n) => `name=${encodeURIComponent(n)}`).join('&');
    const res = await fetch(`http://127.0.0.1:${o.port}/metrics${query === '' ? '' : `?${query}`}`, { signal: AbortSignal.timeout(5000) });
    return parseMetrics(await res.text());
  };
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited ${child.exitCode} during start-up:\n${stderr}`);
    try {
      await scrape();
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`service did not answer on :${o.port} within 120 s:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  return {
    pid,
    scrape,
    written: async () => sumOf(await scrape(['tsingest_events_total']), 'tsingest_events_total', { outcome: 'written' }),
    peak: () => {
      sample();
      let hwm = NaN;
      try {
        hwm = memory(pid).hwm;
      } catch {
        // exited
      }
      return { sampled, hwm };
    },
    resetPeak: () => {
      sampled = 0;
    },
    cpuMs: () => cpuMs(pid),
    stop: async () => {
      child.kill('SIGTERM');
      const code = await exited;
      if (code !== 0) o.say(`service exited ${String(code)}; last stderr:\n${stderr.slice(-2000)}`);
      return code;
    },
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
