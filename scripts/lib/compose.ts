// docker-compose.yml driven from the host: images, Kafka + HBase, pre-split tables through the
// table-admin tool inside the hbase container, then topics, the ingest service and Prometheus.
// Used by `npm run compose -- up|down` and the compose smoke test (test/compose/). Works with
// Debian's docker-compose 1.29 and with the compose v2 plugin (`docker compose`).
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { ensureComposeSecrets } from './compose-secrets.ts';
import { buildImages } from './image-specs.ts';
import { run, sleep } from './proc.ts';
import { projectRoot } from './stack-config.ts';

export interface ComposePorts {
  readonly kafka: number;
  readonly rest: number;
  readonly http: number;
  readonly prometheus: number;
}

export interface ComposeProject {
  readonly name: string;
  readonly ports: ComposePorts;
}

export const DEFAULT_PORTS: ComposePorts = { kafka: 9092, rest: 8080, http: 9464, prometheus: 9090 };
/** Everything but Grafana, whose image comes from a registry (see docker-compose.yml). */
export const APP_SERVICES = ['kafka-init', 'ingest', 'prometheus'] as const;

/** argv of the compose command: `docker-compose` (1.29) if present, else `docker compose` (v2). */
export function composeCommand(): string[] {
  try {
    execFileSync('docker-compose', ['version'], { stdio: 'ignore' });
    return ['docker-compose'];
  } catch {
    return ['docker', 'compose'];
  }
}

function composeEnv(p: ComposeProject): NodeJS.ProcessEnv {
  return {
    ...process.env,
    TSI_COMPOSE_KAFKA_PORT: String(p.ports.kafka),
    TSI_COMPOSE_REST_PORT: String(p.ports.rest),
    TSI_COMPOSE_HTTP_PORT: String(p.ports.http),
    TSI_COMPOSE_PROMETHEUS_PORT: String(p.ports.prometheus),
  };
}

export function composeArgv(p: ComposeProject, ...args: string[]): string[] {
  return [...composeCommand(), '-f', `${projectRoot}/docker-compose.yml`, '-p', p.name, ...args];
}

export async function compose(p: ComposeProject, args: readonly string[], what: string): Promise<string> {
  const [cmd, ...rest] = composeArgv(p, ...args);
  return run(cmd ?? 'docker-compose', rest, { what, env: composeEnv(p) });
}

async function health(p: ComposeProject, service: string): Promise<string> {
  const id = (await compose(p, ['ps', '-q', service], `ps ${service}`)).trim();
  if (id === '') return 'absent';
  return (await run('docker', ['inspect', '-f', '{{if .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}{{end}}', id], { what: 'inspect' })).trim();
}

export async function waitHealthy(p: ComposeProject, services: readonly string[], timeoutMs: number, log: (m: string) => void): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const s of services) {
    let last = '';
    while ((last = await health(p, s)) !== 'healthy') {
      if (Date.now() > deadline) {
        const logs = await compose(p, ['logs', '--tail', '40', s], `logs ${s}`).catch((e: unknown) => String(e));
        throw new Error(`${s} not healthy within ${timeoutMs / 1000} s (last: ${last}):\n${logs}`);
      }
      await sleep(2000);
    }
    log(`${s}: healthy`);
  }
}

/** `tsingest tables apply` from the host, with table-admin run inside the hbase container. */
async function applyTables(p: ComposeProject, log: (m: string) => void): Promise<void> {
  const env = {
    ...process.env,
    TSI_HBASE_REST_URL: `http://127.0.0.1:${p.ports.rest}`,
    TSI_KAFKA_BROKERS: `127.0.0.1:${p.ports.kafka}`,
    TSI_ADMIN_COMMAND: JSON.stringify(composeArgv(p, 'exec', '-T', 'hbase', 'table-admin')),
  };
  const out = await run(process.execPath, ['--disable-warning=TimeoutNegativeWarning', 'src/cli.ts', 'tables', 'apply', '--config', 'config/compose.json'], { what: 'tsingest tables apply', env, cwd: projectRoot });
  for (const line of out.trim().split('\n')) log(`tables: ${line}`);
}

export async function composeUp(p: ComposeProject, log: (m: string) => void): Promise<void> {
  const made = await ensureComposeSecrets(join(projectRoot, 'secrets'));
  if (made.length > 0) log(`secrets of the service's port made in secrets/: ${made.join(', ')}`);
  await buildImages({ upstream: process.env['TSI_IMAGES_UPSTREAM'] === '1', force: false, only: ['hbase', 'kafka', 'service', 'prometheus'] }, log);
  log(`compose project ${p.name}: starting kafka and hbase`);
  await compose(p, ['up', '-d', 'kafka', 'hbase'], 'compose up kafka hbase');
  await waitHealthy(p, ['kafka', 'hbase'], 300_000, log);
  await applyTables(p, log);
  log(`compose project ${p.name}: starting ${APP_SERVICES.join(', ')}`);
  await compose(p, ['--profile', 'app', 'up', '-d', ...APP_SERVICES], 'compose up app');
  await waitHealthy(p, ['ingest'], 180_000, log);
}

export async function composeDown(p: ComposeProject, log: (m: string) => void): Promise<void> {
  log(`compose project ${p.name}: down -v`);
  await compose(p, ['--profile', 'app', 'down', '-v', '--remove-orphans', '--timeout', '45'], 'compose down');
}

/** Streams `compose logs` of a service to stderr (for a failing run). */
export function dumpLogs(p: ComposeProject, service: string): Promise<void> {
  return new Promise((resolvePromise) => {
    const [cmd, ...rest] = composeArgv(p, 'logs', '--tail', '60', service);
    const child = spawn(cmd ?? 'docker-compose', rest, { stdio: ['ignore', 'inherit', 'inherit'], env: composeEnv(p) });
    child.on('close', () => { resolvePromise(); });
    child.on('error', () => { resolvePromise(); });
  });
}
