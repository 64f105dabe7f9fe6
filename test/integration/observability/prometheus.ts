// A real Prometheus for integration tests: scrapes its targets (one job) every second with the
// project's rule files, on a free port with a temporary data directory; killed and removed by the registered cleanup.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, freePort, waitFor } from '../../support/service-harness.ts';

export const RULES_DIR = join(REPO_ROOT, 'deploy', 'prometheus', 'rules');

export interface PromSample {
  readonly metric: Readonly<Record<string, string>>;
  readonly value: readonly [number, string];
}

export interface PromRule {
  readonly name: string;
  readonly type: 'recording' | 'alerting';
  /** the rule's PromQL expression */
  readonly query: string;
  readonly health: string;
  readonly lastError?: string;
}

export interface PromRuleGroup {
  readonly name: string;
  readonly file: string;
  readonly rules: readonly PromRule[];
}

export interface PromAlert {
  readonly labels: Readonly<Record<string, string>>;
  readonly state: 'pending' | 'firing';
}

export interface Prometheus {
  readonly url: string;
  /** instant query at "now" (or at `time`, epoch seconds); throws with Prometheus' error text when the query is invalid */
  query(expr: string, time?: number): Promise<PromSample[]>;
  ruleGroups(): Promise<PromRuleGroup[]>;
  alerts(): Promise<PromAlert[]>;
  /** the last lines Prometheus logged */
  output(): string;
}

interface ApiResponse<T> {
  readonly status: 'success' | 'error';
  readonly data?: T;
  readonly error?: string;
}

async function api<T>(url: string): Promise<T> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  const body = (await res.json()) as ApiResponse<T>;
  if (body.status !== 'success' || body.data === undefined) throw new Error(`${url}: ${res.status} ${body.error ?? 'no data'}`);
  return body.data;
}

export interface StartPrometheusOptions {
  readonly job: string;
  /** host:port of each /metrics endpoint to scrape (one job, one `instance` label each) */
  readonly targets: readonly string[];
  readonly defer: (fn: () => unknown) => void;
}

export async function startPrometheus(opts: StartPrometheusOptions): Promise<Prometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'tsi-prom-'));
  opts.defer(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const ruleFiles = readdirSync(RULES_DIR)
    .filter((f) => f.endsWith('.yml'))
    .map((f) => JSON.stringify(join(RULES_DIR, f)));
  const config = [
    'global:',
    '  scrape_interval: 1s',
    '  scrape_timeout: 900ms',
    '  evaluation_interval: 1s',
    'rule_files:',
    ...ruleFiles.map((f) => `  - ${f}`),
    'scrape_configs:',
    `  - job_name: ${JSON.stringify(opts.job)}`,
    '    static_configs:',
    `      - targets: [${opts.targets.map((x) => JSON.stringify(x)).join(', ')}]`,
    '',
  ].join('\n');
  const configFile = join(dir, 'prometheus.yml');
  writeFileSync(configFile, config);
  const port = await freePort();
  const child = spawn(
    'prometheus',
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--storage.tsdb.retention.time=1h',
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  const keep = (b: Buffer): void => {
    out = (out + b.toString()).slice(-8000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((res) => {
    child.once('exit', () => {
      res();
    });
  });
  const spawnError = new Promise<Error>((res) => {
    child.once('error', res);
  });
  opts.defer(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
  });
  const url = `http://127.0.0.1:${port}`;
  let failed: Error | undefined;
  void spawnError.then((err) => {
    failed = err;
  });
  await waitFor(`Prometheus on ${url} to be ready`, 60_000, async () => {
    if (failed !== undefined) throw new Error(`cannot start prometheus (${failed.message}); install Debian's prometheus package or put prometheus on PATH`);
    if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}:\n${out}`);
    try {
      const res = await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      return res.ok;
    } catch {
      return false;
    }
  });
  return {
    url,
    query: (expr, time) =>
      api<{ result: PromSample[] }>(`${url}/api/v1/query?query=${encodeURIComponent(expr)}${time === undefined ? '' : `&time=${time}`}`).then((d) => d.result),
    ruleGroups: () => api<{ groups: PromRuleGroup[] }>(`${url}/api/v1/rules`).then((d) => d.groups),
    alerts: () => api<{ alerts: PromAlert[] }>(`${url}/api/v1/alerts`).then((d) => d.alerts),
    output: () => out,
  };
}
