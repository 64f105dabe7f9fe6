// Where the local (Docker-free) stack keeps things and which ports it uses. One place, read by
// scripts/stack.ts, scripts/test.ts and scripts/start.ts.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { readFileSync } from 'node:fs';

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
