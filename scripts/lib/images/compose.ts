// docker-compose.yml driven from the host: images, Kafka + HBase, pre-split tables through the
// table-admin tool inside the hbase container, then topics, the ingest and query services (the two
// roles of `tsingest run`) and Prometheus.
// Used by `npm run compose -- up|down|ps|logs|produce` and the compose smoke test (test/compose/).
// Works with Debian's docker-compose 1.29 and with the compose v2 plugin (`docker compose`).
// `up` checks every port it publishes before it starts anything, and removes what it created when
// it fails; the names and ports come from scripts/lib/images/compose-ports.ts.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  PORT_NAMES,
  PUBLISHED,
  clashMessage,
  portsRefusedBy,
  suggestFreePorts,
  portsToCheck,
  publishedHostPorts,
  type ComposePorts,
  type PortName,
} from './compose-ports.ts';
import { ensureComposeSecrets } from './compose-secrets.ts';
import { buildImages } from './specs.ts';
import { portFree } from '../stack/probes.ts';
import { run, sleep } from '../stack/proc.ts';
import { projectRoot } from '../stack/config.ts';

export interface ComposeProject {
  readonly name: string;
  readonly ports: ComposePorts;
  /** also start Grafana (profile `grafana`: its image comes from a registry) */
  readonly grafana?: boolean;
}

/** The app services by name (profile `app`: all buildable offline); Grafana is profile `grafana`. */
export const APP_SERVICES = ['kafka-init', 'ingest', 'query', 'prometheus'] as const;
/** The services of `tsingest run`: up waits until both are healthy (ready), a failed first up prints their logs. */
export const ROLE_SERVICES = ['ingest', 'query'] as const;
/** The file Grafana's admin password is read from (a compose secret); `up` makes one when it is missing. */
export const GRAFANA_SECRET = join(projectRoot, 'secrets', 'grafana-admin-password');

/** The image docker-compose.yml runs for Grafana (the one taken from a registry); `up --grafana` never pulls it. */
export const GRAFANA_IMAGE = 'grafana/grafana:12.1.1';

/** What to do when GRAFANA_IMAGE is not in the local engine: ways to provide it, none of which `up` does. */
export function missingGrafanaImage(image: string): string {
  const ways: [string, string][] = [
    [`docker pull ${image}`, 'where a registry answers'],
    ['docker load -i grafana.tar', `made elsewhere with: docker save ${image} -o grafana.tar`],
    [`docker tag <a local Grafana image> ${image}`, 'an image built or mirrored here'],
  ];
  const width = Math.max(...ways.map(([command]) => command.length));
  return [
    `Grafana's image ${image} is not in the local Docker engine, and up --grafana does not pull it (a registry may not answer here); nothing was started.`,
    'Provide it, then run up --grafana again:',
    ...ways.map(([command, why]) => `  ${command.padEnd(width)}   (${why})`),
    'or run npm run compose -- up without --grafana (everything else, offline).',
  ].join('\n');
}

/** Refuses `up --grafana` before anything starts when Grafana's image is not in the local engine (`exists`: docker image inspect). */
export async function checkGrafanaImage(p: ComposeProject, exists: (image: string) => Promise<boolean> = imageExists): Promise<void> {
  if (p.grafana === true && !(await exists(GRAFANA_IMAGE))) throw new ComposeRefused(missingGrafanaImage(GRAFANA_IMAGE));
}

/** Whether the local engine holds `image`; an engine that does not answer is an error, not a missing image. */
async function imageExists(image: string): Promise<boolean> {
  return run('docker', ['image', 'inspect', '--format', '{{.Id}}', image], { what: 'docker image inspect' }).then(
    () => true,
    (err: unknown) => {
      if (err instanceof Error && /no such image/i.test(err.message)) return false;
      throw err;
    },
  );
}

/** A refusal before anything starts (a port clash, Grafana's image missing), or a port taken while `up` was starting. */
export class ComposeRefused extends Error {
  override readonly name = 'ComposeRefused';
}

/** argv of the compose command: `docker-compose` (1.29) if present, else `docker compose` (v2). */
export function composeCommand(): string[] {
  try {
    execFileSync('docker-compose', ['version'], { stdio: 'ignore' });
    return ['docker-compose'];
  } catch {
    return ['docker', 'compose'];
  }
}

/** The user's environment with the project's resolved ports (which beat `.env` in docker-compose too). */
export function composeEnv(p: ComposeProject): NodeJS.ProcessEnv {
  return { ...process.env, ...Object.fromEntries(PORT_NAMES.map((n) => [PUBLISHED[n].variable, String(p.ports[n])])) };
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
  return (
    await run('docker', ['inspect', '-f', '{{if .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}{{end}}', id], { what: 'inspect' })
  ).trim();
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
  const out = await run(process.execPath, ['--disable-warning=TimeoutNegativeWarning', 'src/cli.ts', 'tables', 'apply', '--config', 'config/compose.json'], {
    what: 'tsingest tables apply',
    env,
    cwd: projectRoot,
  });
  for (const line of out.trim().split('\n')) log(`tables: ${line}`);
}

/** Fails, naming each taken port and its variable, when a port `up` publishes is in use by something other than this project. */
export async function checkPorts(p: ComposeProject): Promise<void> {
  const own = publishedHostPorts(
    await run('docker', ['ps', '--filter', `label=com.docker.compose.project=${p.name}`, '--format', '{{.Ports}}'], { what: 'docker ps' }),
  );
  const names: PortName[] = ['kafka', 'rest', 'http', 'query', 'prometheus', ...(p.grafana === true ? ['grafana' as const] : [])];
  const taken: PortName[] = [];
  for (const n of portsToCheck(p.ports, names, own)) if (!(await portFree(p.ports[n]))) taken.push(n);
  if (taken.length > 0) throw new ComposeRefused(clashMessage(p.ports, taken, await suggestFreePorts(p.ports, taken, portFree)));
}

/** Grafana's admin password file: made with a random password when missing (never a default password). */
export function ensureGrafanaSecret(log: (m: string) => void, file: string = GRAFANA_SECRET): void {
  if (existsSync(file)) return;
  mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
  writeFileSync(file, randomBytes(18).toString('base64url'), { flag: 'wx' });
  chmodSync(file, 0o444); // Grafana runs as uid 472; a bind-mounted secret keeps the host's mode
  log(`Grafana admin password generated in ${file} (user admin)`);
}

/**
 * Every secret file docker-compose.yml names, made in `dir` when missing: Grafana's admin password
 * and the secrets of the service's port (compose-secrets.ts). Returns the names of the port's files it made.
 */
export async function ensureSecretFiles(dir: string, log: (m: string) => void): Promise<string[]> {
  ensureGrafanaSecret(log, join(dir, 'grafana-admin-password'));
  return ensureComposeSecrets(dir);
}

async function projectExists(p: ComposeProject): Promise<boolean> {
  return (await run('docker', ['ps', '-aq', '--filter', `label=com.docker.compose.project=${p.name}`], { what: 'docker ps' })).trim() !== '';
}

/**
 * Checks Grafana's image (with `grafana`) and the ports, then starts the stack. When it fails after starting something, and the project
 * did not exist before, the logs of its services go to stderr and everything it created is removed
 * (`down -v`): a failed first `up` leaves nothing behind.
 */
export async function composeUp(p: ComposeProject, log: (m: string) => void): Promise<void> {
  await checkGrafanaImage(p);
  await checkPorts(p);
  const made = await ensureSecretFiles(join(projectRoot, 'secrets'), log);
  if (made.length > 0) log(`secrets of the service's port made in secrets/: ${made.join(', ')}`);
  const existed = await projectExists(p);
  try {
    await startStack(p, log);
  } catch (err) {
    if (existed) throw err;
    const message = err instanceof Error ? err.message : String(err);
    const taken = portsRefusedBy(message, p.ports);
    if (taken.length === 0) for (const s of ['kafka', 'hbase', ...ROLE_SERVICES]) await dumpLogs(p, s);
    log(`up failed: removing what it created (down -v): ${message.split('\n')[0] ?? ''}`);
    await composeDown(p, log).catch((e: unknown) => {
      log(`clean-up failed too: ${String(e)}`);
    });
    throw taken.length === 0
      ? err
      : new ComposeRefused(clashMessage(p.ports, taken, await suggestFreePorts(p.ports, taken, portFree), 'during'), { cause: err });
  }
}

async function startStack(p: ComposeProject, log: (m: string) => void): Promise<void> {
  await buildImages({ upstream: process.env['TSI_IMAGES_UPSTREAM'] === '1', force: false, only: ['hbase', 'kafka', 'service', 'prometheus'] }, log);
  log(`compose project ${p.name}: starting kafka and hbase`);
  await compose(p, ['up', '-d', 'kafka', 'hbase'], 'compose up kafka hbase');
  await waitHealthy(p, ['kafka', 'hbase'], 300_000, log);
  await applyTables(p, log);
  const services = [...APP_SERVICES, ...(p.grafana === true ? ['grafana'] : [])];
  log(`compose project ${p.name}: starting ${services.join(', ')}`);
  await compose(p, ['--profile', 'app', ...(p.grafana === true ? ['--profile', 'grafana'] : []), 'up', '-d', ...services], 'compose up app');
  await waitHealthy(p, ROLE_SERVICES, 180_000, log);
}

export async function composeDown(p: ComposeProject, log: (m: string) => void): Promise<void> {
  log(`compose project ${p.name}: down -v`);
  await compose(p, ['--profile', 'app', '--profile', 'grafana', 'down', '-v', '--remove-orphans', '--timeout', '45'], 'compose down');
}

/** Streams `compose logs` of a service to stderr (for a failing run). */
export function dumpLogs(p: ComposeProject, service: string): Promise<void> {
  return new Promise((resolvePromise) => {
    const [cmd, ...rest] = composeArgv(p, 'logs', '--tail', '60', service);
    const child = spawn(cmd ?? 'docker-compose', rest, { stdio: ['ignore', 'inherit', 'inherit'], env: composeEnv(p) });
    child.on('close', () => {
      resolvePromise();
    });
    child.on('error', () => {
      resolvePromise();
    });
  });
}
