// Where the local (Docker-free) stack keeps things and which ports it uses. One place, read by
// scripts/stack.ts, scripts/test.ts and scripts/start.ts.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { readPid } from './proc.ts';

export const projectRoot = resolve(import.meta.dirname, '..', '..', '..');

function port(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new Error(`${name}=${raw} is not a TCP port`);
  return n;
}

export interface StackLayout {
  readonly stackDir: string;
  readonly dataDir: string;
  readonly logDir: string;
  readonly runDir: string;
  readonly cacheDir: string;
  readonly endpointsFile: string;
  readonly ports: {
    readonly rest: number;
    readonly zk: number;
    readonly master: number;
    readonly regionServer: number;
    readonly kafka: number;
    readonly kafkaController: number;
  };
}

export function stackLayout(): StackLayout {
  const stackDir = process.env['TSI_STACK_DIR'] ?? join(projectRoot, '.stack');
  const cacheRoot = process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache');
  return {
    stackDir,
    dataDir: join(stackDir, 'data'),
    logDir: join(stackDir, 'logs'),
    runDir: join(stackDir, 'run'),
    // Downloads outlive a checkout: CI's fresh clone on the same machine reuses them.
    cacheDir: process.env['TSI_STACK_CACHE'] ?? join(cacheRoot, 'ts-hbase-ingest'),
    endpointsFile: join(stackDir, 'run', 'endpoints.json'),
    ports: {
      rest: port('TSI_STACK_REST_PORT', 8080),
      zk: port('TSI_STACK_ZK_PORT', 2181),
      master: port('TSI_STACK_MASTER_PORT', 16000),
      regionServer: port('TSI_STACK_RS_PORT', 16020),
      kafka: port('TSI_STACK_KAFKA_PORT', 9092),
      kafkaController: port('TSI_STACK_KAFKA_CONTROLLER_PORT', 9093),
    },
  };
}

/** The local stack's three processes, each with a pid file in <stack>/run. */
export type StackProcess = 'hbase' | 'rest' | 'kafka';

export function stackPidFile(name: StackProcess, runDir: string = stackLayout().runDir): string {
  return join(runDir, `${name}.pid`);
}

/** The pid a local stack process was started with, if its pid file holds one. */
export function stackPid(name: StackProcess, runDir?: string): number | undefined {
  return readPid(stackPidFile(name, runDir));
}

/** stackPid, or an error naming the pid file (a phase or test that must signal the process). */
export function requireStackPid(name: StackProcess, runDir?: string): number {
  const file = stackPidFile(name, runDir);
  const pid = readPid(file);
  if (pid === undefined) {
    throw new Error(
      existsSync(file) ? `${file} holds no pid` : `no ${name} process of the local stack: ${file} does not exist (TSI_STACK_DIR names the stack directory)`,
    );
  }
  return pid;
}

/** Versions are declared once, in the Maven poms that fetch the jars. */
export function pinnedVersions(): { hbase: string; hbaseRest: string; kafka: string } {
  const hbasePom = readFileSync(join(projectRoot, 'deploy/local/hbase/pom.xml'), 'utf8');
  const kafkaPom = readFileSync(join(projectRoot, 'deploy/local/kafka/pom.xml'), 'utf8');
  const tag = (xml: string, name: string): string => {
    const m = new RegExp(`<${name}>([^<]+)</${name}>`).exec(xml);
    if (m?.[1] === undefined) throw new Error(`missing <${name}> in pom`);
    return m[1];
  };
  return { hbase: tag(hbasePom, 'hbase.version'), hbaseRest: tag(hbasePom, 'hbase.rest.version'), kafka: tag(kafkaPom, 'kafka.version') };
}

/** What the tests and the service need to reach a running stack. */
export interface StackEndpoints {
  readonly restUrl: string;
  readonly kafkaBrokers: string;
  readonly zkQuorum: string;
  /** argv prefix that runs deploy/admin's TableAdmin against this stack */
  readonly adminCommand: readonly string[];
}

/**
 * The running stack's endpoints as `npm run stack:up` wrote them: `file`, else the local stack's
 * run/endpoints.json; an error says how to fix a missing one.
 */
export function readEndpoints(file?: string): StackEndpoints {
  const path = file ?? stackLayout().endpointsFile;
  if (!existsSync(path))
    throw new Error(`no stack endpoints at ${path}: start the local stack (npm run stack:up) or pass --endpoints <…/.stack/run/endpoints.json>`);
  const ep = JSON.parse(readFileSync(path, 'utf8')) as Partial<Record<keyof StackEndpoints, unknown>>;
  const { restUrl, kafkaBrokers, zkQuorum, adminCommand } = ep;
  if (
    typeof restUrl !== 'string' ||
    typeof kafkaBrokers !== 'string' ||
    typeof zkQuorum !== 'string' ||
    !Array.isArray(adminCommand) ||
    adminCommand.length === 0
  ) {
    throw new Error(`${path}: expected restUrl, kafkaBrokers, zkQuorum and adminCommand`);
  }
  return { restUrl, kafkaBrokers, zkQuorum, adminCommand: adminCommand.map(String) };
}

/**
 * The stack named by the environment (TSI_HBASE_REST_URL + TSI_KAFKA_BROKERS, with TSI_ADMIN_COMMAND
 * as a JSON argv and TSI_HBASE_ZK when set), or undefined when either of the first two is missing.
 * The test processes read their stack this way; stackEnv writes it.
 */
export function endpointsFromEnv(env: NodeJS.ProcessEnv = process.env): StackEndpoints | undefined {
  const restUrl = env['TSI_HBASE_REST_URL'];
  const kafkaBrokers = env['TSI_KAFKA_BROKERS'];
  if (restUrl === undefined || restUrl === '' || kafkaBrokers === undefined || kafkaBrokers === '') return undefined;
  const admin = env['TSI_ADMIN_COMMAND'];
  return {
    restUrl,
    kafkaBrokers,
    zkQuorum: env['TSI_HBASE_ZK'] ?? '',
    adminCommand: admin === undefined || admin === '' ? [] : (JSON.parse(admin) as string[]),
  };
}

/** The environment that names a stack (endpointsFromEnv reads it back). */
export function stackEnv(ep: StackEndpoints): Record<'TSI_HBASE_REST_URL' | 'TSI_KAFKA_BROKERS' | 'TSI_ADMIN_COMMAND' | 'TSI_HBASE_ZK', string> {
  return { TSI_HBASE_REST_URL: ep.restUrl, TSI_KAFKA_BROKERS: ep.kafkaBrokers, TSI_ADMIN_COMMAND: JSON.stringify(ep.adminCommand), TSI_HBASE_ZK: ep.zkQuorum };
}

/** pids of the local stack's HBase process and REST gateway (a benchmark reads their CPU). */
export function stackPids(runDir?: string): { hbase?: number; rest?: number } {
  const hbase = stackPid('hbase', runDir);
  const rest = stackPid('rest', runDir);
  return { ...(hbase === undefined ? {} : { hbase }), ...(rest === undefined ? {} : { rest }) };
}
