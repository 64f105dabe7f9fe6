// An extra HBase REST gateway (org.apache.hadoop.hbase.rest.RESTServer) for integration tests: a
// second gateway in front of the same cluster, one with its own TLS (hbase.rest.ssl.*) or one with
// Kerberos (SPNEGO) authentication. It runs from the local stack's jars with the local stack's
// hbase-site.xml (so it finds the same ZooKeeper) plus the test's properties, as its own java child
// process that a test can stop, kill -9 or freeze. Only the local stack has a ZooKeeper this process
// can reach (the container stack publishes the gateway port alone); on another stack this throws.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { resolveJars } from '../../scripts/lib/stack/artifacts.ts';
import { hbaseRestAnswers } from '../../scripts/lib/stack/probes.ts';
import { hbaseConfDir, hbaseJavaArgs } from '../../scripts/lib/stack/services.ts';
import { stackLayout } from '../../scripts/lib/stack/config.ts';
import { supervise, waitReady } from './child-server.ts';
import { freePort } from '../../scripts/lib/stack/probes.ts';

export interface RestGatewayOptions {
  /** config, log; created if missing */
  readonly dir: string;
  /** hbase-site.xml properties set on top of the local stack's (hbase.rest.port is chosen here) */
  readonly site?: Readonly<Record<string, string>>;
  /**
   * core-site.xml properties (written only when given). Hadoop's UserGroupInformation reads
   * hadoop.security.authentication from core-site.xml, not hbase-site.xml; a Kerberos gateway needs it.
   */
  readonly coreSite?: Readonly<Record<string, string>>;
  /** extra JVM -D options (e.g. -Djava.security.krb5.conf=…) */
  readonly jvmProps?: readonly string[];
  /** extra environment (e.g. KRB5_CONFIG) */
  readonly env?: Readonly<Record<string, string>>;
  /** https when the site turns on hbase.rest.ssl.enabled */
  readonly scheme?: 'http' | 'https';
  /** "answers" probe; default: the plain-HTTP stack probe (version, namespace, meta online) */
  readonly ready?: (url: string) => Promise<boolean>;
  readonly startTimeoutMs?: number;
  /** listen on this port (e.g. a gateway restarted on its old URL); default: a free one */
  readonly port?: number;
}

export interface RestGateway {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  readonly logFile: string;
  /** SIGTERM, then SIGKILL after a grace period */
  stop(): Promise<void>;
  /** a signal straight to the JVM (SIGKILL for kill -9, SIGSTOP/SIGCONT to freeze) */
  signal(sig: NodeJS.Signals): void;
}

function xmlEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The local stack's hbase-site.xml with `props` appended (a later property wins in Hadoop's Configuration). */
function siteXml(props: Readonly<Record<string, string>>): string {
  const base = readFileSync(join(hbaseConfDir(stackLayout()), 'hbase-site.xml'), 'utf8');
  const extra = Object.entries(props)
    .map(([k, v]) => `  <property><name>${xmlEscape(k)}</name><value>${xmlEscape(v)}</value></property>\n`)
    .join('');
  const at = base.lastIndexOf('</configuration>');
  if (at < 0) throw new Error('rest gateway: the local stack hbase-site.xml has no </configuration>');
  return `${base.slice(0, at)}${extra}${base.slice(at)}`;
}

function propertiesXml(props: Readonly<Record<string, string>>): string {
  const body = Object.entries(props)
    .map(([k, v]) => `  <property><name>${xmlEscape(k)}</name><value>${xmlEscape(v)}</value></property>\n`)
    .join('');
  return `<?xml version="1.0"?>\n<configuration>\n${body}</configuration>\n`;
}

function tail(file: string, lines = 60): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no gateway log)';
  }
}

export async function startRestGateway(o: RestGatewayOptions): Promise<RestGateway> {
  if (process.env['TSI_STACK_KIND'] === 'docker')
    throw new Error('an extra REST gateway needs the local stack (its ZooKeeper); the container stack publishes only its gateway');
  const layout = stackLayout();
  if (!existsSync(join(hbaseConfDir(layout), 'hbase-site.xml')))
    throw new Error(`rest gateway: no local stack configuration under ${hbaseConfDir(layout)} (start the stack with npm test or npm run stack:up)`);
  const confDir = join(o.dir, 'conf');
  mkdirSync(confDir, { recursive: true });
  const port = o.port ?? (await freePort());
  writeFileSync(join(confDir, 'hbase-site.xml'), siteXml({ 'hbase.rest.port': String(port), 'hbase.rest.info.port': '-1', ...o.site }), { mode: 0o600 });
  if (o.coreSite !== undefined) writeFileSync(join(confDir, 'core-site.xml'), propertiesXml(o.coreSite), { mode: 0o600 });
  const log4j = join(hbaseConfDir(layout), 'log4j2.properties');
  if (existsSync(log4j)) copyFileSync(log4j, join(confDir, 'log4j2.properties'));
  const hbaseLib = await resolveJars(layout.cacheDir, 'hbase', (m) => {
    process.stderr.write(`[rest-gateway] ${m}\n`);
  });
  const logFile = join(o.dir, 'rest.log');
  const argv = hbaseJavaArgs(
    { confDir, logDir: o.dir, hbaseLib },
    { heap: '384m', mainClass: 'org.apache.hadoop.hbase.rest.RESTServer', logName: 'rest.log' },
    o.jvmProps ?? [],
  );
  const fd = openSync(join(o.dir, 'rest.out'), 'a');
  const child = (() => {
    try {
      return spawn('java', argv, { stdio: ['ignore', fd, fd], env: { ...process.env, ...o.env } });
    } finally {
      closeSync(fd);
    }
  })();
  const s = supervise(child, 10_000);
  const url = `${o.scheme ?? 'http'}://127.0.0.1:${port}`;
  const ready = o.ready ?? hbaseRestAnswers;
  await waitReady(`REST gateway on ${url}`, s, {
    ready: () => ready(url),
    timeoutMs: o.startTimeoutMs ?? 120_000,
    everyMs: 250,
    diagnose: () => `${logFile}:\n${tail(logFile)}\n${join(o.dir, 'rest.out')}:\n${tail(join(o.dir, 'rest.out'), 20)}`,
  });
  const pid = child.pid ?? -1;
  return {
    url,
    port,
    pid,
    logFile,
    stop: () => s.stop(),
    signal: (sig) => {
      if (s.exitedWith() === undefined) child.kill(sig);
    },
  };
}

/** hbase-site.xml properties that turn on the gateway's own TLS (RESTServer, HBase 2.6). */
export interface RestTlsSite {
  readonly site: Readonly<Record<string, string>>;
  readonly keystore: string;
  readonly truststore: string;
}

function run(cmd: string, args: readonly string[]): void {
  const res = spawnSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (res.error !== undefined || res.status !== 0)
    throw new Error(`${cmd} ${args[0] ?? ''} failed (${res.error?.message ?? `exit ${String(res.status)}: ${res.stderr.trim()}`})`);
}

/**
 * A PKCS12 keystore with the test server certificate (openssl pkcs12 -export) and a PKCS12 truststore
 * with the test CA (keytool), in `dir`, and the hbase.rest.ssl.* properties naming them. The names
 * are RESTServer's (org.apache.hadoop.hbase.rest.Constants in hbase-rest 2.6.1).
 */
export function restTlsSite(certs: { readonly caFile: string; readonly serverCertFile: string; readonly serverKeyFile: string }, dir: string): RestTlsSite {
  mkdirSync(dir, { recursive: true });
  const password = randomBytes(12).toString('hex');
  const keystore = join(dir, 'rest-keystore.p12');
  const truststore = join(dir, 'rest-truststore.p12');
  run('openssl', [
    'pkcs12',
    '-export',
    '-in',
    certs.serverCertFile,
    '-inkey',
    certs.serverKeyFile,
    '-certfile',
    certs.caFile,
    '-name',
    'rest',
    '-out',
    keystore,
    '-passout',
    `pass:${password}`,
  ]);
  run('keytool', [
    '-importcert',
    '-noprompt',
    '-storetype',
    'PKCS12',
    '-keystore',
    truststore,
    '-storepass',
    password,
    '-alias',
    'test-ca',
    '-file',
    certs.caFile,
  ]);
  return {
    keystore,
    truststore,
    site: {
      'hbase.rest.ssl.enabled': 'true',
      'hbase.rest.ssl.keystore.store': keystore,
      'hbase.rest.ssl.keystore.type': 'PKCS12',
      'hbase.rest.ssl.keystore.password': password,
      'hbase.rest.ssl.keystore.keypassword': password, // PKCS12 keeps one password for the store and its keys
      'hbase.rest.ssl.truststore.store': truststore,
      'hbase.rest.ssl.truststore.type': 'PKCS12',
      'hbase.rest.ssl.truststore.password': password,
    },
  };
}

/** A `ready` probe for an https gateway: /version/cluster and /namespaces/default answer 200 over TLS verified against `caFile`. */
export function httpsRestAnswers(caFile: string): (url: string) => Promise<boolean> {
  const ca = readFileSync(caFile);
  return async (url) => {
    const dispatcher = new Agent({ connect: { ca, rejectUnauthorized: true } });
    try {
      for (const path of ['/version/cluster', '/namespaces/default']) {
        const res = await request(`${url}${path}`, { dispatcher, headers: { accept: 'application/json' }, headersTimeout: 3000, bodyTimeout: 3000 });
        await res.body.text();
        if (res.statusCode !== 200) return false;
      }
      return true;
    } catch {
      return false;
    } finally {
      await dispatcher.close();
    }
  };
}
