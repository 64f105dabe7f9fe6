// A real single-node Kafka broker (KRaft, broker + controller in one JVM) with a SASL_SSL listener,
// for integration tests of the service's Kafka security settings. It runs from the same jars as the
// local stack (deploy/local/kafka/pom.xml, fetched by scripts/lib/stack/artifacts.ts) and offers:
//   SASL_SSL  — TLS with the test/support/tls.ts server certificate, SASL PLAIN, SCRAM-SHA-256/512
//               (credentials written at format time with `StorageTool format --add-scram`) and
//               OAUTHBEARER with Kafka's default unsecured validator (alg-none JWTs, see unsecuredJwt);
//               optionally mTLS (ssl.client.auth=required, the test CA as truststore);
//   INTERNAL  — PLAINTEXT on 127.0.0.1 for the test's own admin/producer/consumer;
//   CONTROLLER — PLAINTEXT, KRaft only.
// Everything (config, keystores, data, log) lives under `dir`. One java child process per broker.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { kafkaClasspath, resolveJars } from '../../scripts/lib/stack/artifacts.ts';
import { kraftSingleNode } from '../../scripts/lib/stack/services.ts';
import { projectRoot, stackLayout } from '../../scripts/lib/stack/config.ts';
import { freePort } from '../../scripts/lib/stack/probes.ts';
import { supervise, waitReady } from './child-server.ts';
import type { TestCerts } from './tls.ts';

export interface SecureKafkaOptions {
  readonly dir: string; // data, config, logs; created if missing
  readonly certs: TestCerts; // from makeTestCerts
  /** SCRAM-SHA-256 and SCRAM-SHA-512 credentials (both mechanisms for every user), created at format time with `StorageTool format --add-scram` */
  readonly scramUsers: readonly { readonly user: string; readonly password: string }[];
  /** PLAIN credentials (JAAS user_<name>="<password>" on the listener) */
  readonly plainUsers?: readonly { readonly user: string; readonly password: string }[];
  /** ssl.client.auth=required on the SASL_SSL listener (mTLS); truststore = the test CA */
  readonly requireClientCert?: boolean;
}
export interface SecureKafka {
  /** host:port of the SASL_SSL listener (what the service under test connects to) */
  readonly saslSslBroker: string;
  /** host:port of a PLAINTEXT listener on 127.0.0.1 for the test's own admin/producer/consumer (topic creation, producing events, reading offsets) */
  readonly plainBroker: string;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 10_000;

/** Runs a short command to completion; rejects with its output on a non-zero exit. */
function exec(cmd: string, args: readonly string[], what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const collect = (b: Buffer): void => {
      out += b.toString();
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('error', (err) => {
      reject(new Error(`${what}: ${err.message}`));
    });
    child.once('close', (code) => {
      if (code === 0) resolve(out);
      else reject(new Error(`${what} failed (exit ${String(code)}):\n${out.slice(-4000)}`));
    });
  });
}

function tail(file: string, lines = 60): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no broker log)';
  }
}

// StorageTool splits an --add-scram argument on ',' and strips one pair of surrounding quotes from a
// value; JAAS values are double-quoted with backslash escapes; a JAAS option name (user_<name>) is a
// word token. Refuse what these cannot carry instead of producing a broker that rejects the user.
function checkScram(u: { user: string; password: string }): void {
  for (const [what, v] of [
    ['user', u.user],
    ['password', u.password],
  ] as const) {
    if (v === '' || v.includes(',') || v !== v.trim() || v.startsWith('"') || (what === 'user' && v.includes('='))) {
      throw new Error(
        `secure kafka: SCRAM ${what} ${JSON.stringify(v)} cannot be passed to StorageTool --add-scram (no ',', no surrounding blanks or quotes${what === 'user' ? ", no '='" : ''})`,
      );
    }
  }
}
function checkPlain(u: { user: string; password: string }): void {
  if (!/^[A-Za-z][A-Za-z0-9_-]*$/.test(u.user))
    throw new Error(`secure kafka: PLAIN user ${JSON.stringify(u.user)} must match [A-Za-z][A-Za-z0-9_-]* (it becomes the JAAS option user_<name>)`);
  if (/["\\\n\r]/.test(u.password)) throw new Error('secure kafka: a PLAIN password must not contain a double quote, backslash or line break (JAAS quoting)');
}

interface Ports {
  readonly sasl: number;
  readonly internal: number;
  readonly controller: number;
}
interface Stores {
  readonly keystore: string;
  readonly truststore?: string;
  readonly password: string;
}

function serverProperties(o: SecureKafkaOptions, dataDir: string, p: Ports, stores: Stores): string {
  const plainUsers = o.plainUsers ?? [{ user: `unused_${randomBytes(4).toString('hex')}`, password: randomBytes(12).toString('hex') }];
  const plainJaas = plainUsers.map((u) => `user_${u.user}="${u.password}"`).join(' ');
  const l = 'listener.name.sasl_ssl.';
  const clientAuth =
    o.requireClientCert === true
      ? [
          // KIP-684: on a SASL_SSL listener ssl.client.auth counts only with the listener prefix.
          `${l}ssl.client.auth=required`,
          `${l}ssl.truststore.type=PKCS12`,
          `${l}ssl.truststore.location=${stores.truststore ?? ''}`,
          `${l}ssl.truststore.password=${stores.password}`,
        ]
      : [];
  return [
    ...kraftSingleNode(dataDir, p.controller),
    `listeners=SASL_SSL://127.0.0.1:${p.sasl},INTERNAL://127.0.0.1:${p.internal},CONTROLLER://127.0.0.1:${p.controller}`,
    `advertised.listeners=SASL_SSL://127.0.0.1:${p.sasl},INTERNAL://127.0.0.1:${p.internal}`,
    'listener.security.protocol.map=SASL_SSL:SASL_SSL,INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'inter.broker.listener.name=INTERNAL',
    // TLS on the SASL_SSL listener
    `${l}ssl.keystore.type=PKCS12`,
    `${l}ssl.keystore.location=${stores.keystore}`,
    `${l}ssl.keystore.password=${stores.password}`,
    `${l}ssl.key.password=${stores.password}`,
    ...clientAuth,
    // SASL on the SASL_SSL listener: one JAAS entry per mechanism
    `${l}sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER`,
    `${l}plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required ${plainJaas};`,
    `${l}scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;`,
    `${l}scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;`,
    // No server callback handler: Kafka then validates OAUTHBEARER tokens with its unsecured (alg none) validator.
    `${l}oauthbearer.sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="broker";`,
    '',
  ].join('\n');
}

async function makeStores(o: SecureKafkaOptions): Promise<Stores> {
  const password = randomBytes(12).toString('hex');
  const keystore = join(o.dir, 'keystore.p12');
  await exec(
    'openssl',
    [
      'pkcs12',
      '-export',
      '-in',
      o.certs.serverCertFile,
      '-inkey',
      o.certs.serverKeyFile,
      '-certfile',
      o.certs.caFile,
      '-name',
      'kafka',
      '-out',
      keystore,
      '-passout',
      `pass:${password}`,
    ],
    'openssl pkcs12 -export (broker keystore)',
  );
  if (o.requireClientCert !== true) return { keystore, password };
  const truststore = join(o.dir, 'truststore.p12');
  await exec(
    'keytool',
    ['-importcert', '-noprompt', '-storetype', 'PKCS12', '-keystore', truststore, '-storepass', password, '-alias', 'test-ca', '-file', o.certs.caFile],
    'keytool -importcert (broker truststore)',
  );
  return { keystore, truststore, password };
}

/** A Kafka cluster id: 16 random bytes, base64url without padding, not starting with '-' (like Uuid.randomUuid). */
function clusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

async function answers(broker: string): Promise<boolean> {
  const admin = new Kafka({ brokers: [broker], logLevel: logLevel.NOTHING, connectionTimeout: 2000, retry: { retries: 0 } }).admin();
  try {
    await admin.connect();
    await admin.listTopics();
    return true;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

export async function startSecureKafka(o: SecureKafkaOptions): Promise<SecureKafka> {
  o.scramUsers.forEach(checkScram);
  (o.plainUsers ?? []).forEach(checkPlain);
  const dataDir = join(o.dir, 'data');
  mkdirSync(dataDir, { recursive: true });
  const libDir = await resolveJars(stackLayout().cacheDir, 'kafka', (m) => {
    process.stderr.write(`[secure-kafka] ${m}\n`);
  });
  const cp = kafkaClasspath(libDir);
  const log4j = `-Dlog4j.configuration=file:${join(projectRoot, 'deploy/local/kafka/log4j.properties')}`;
  const ports: Ports = { sasl: await freePort(), internal: await freePort(), controller: await freePort() };
  const stores = await makeStores(o);
  const props = join(o.dir, 'server.properties');
  writeFileSync(props, serverProperties(o, dataDir, ports, stores), { mode: 0o600 });

  const scram = o.scramUsers.flatMap((u) => ['SCRAM-SHA-256', 'SCRAM-SHA-512'].flatMap((m) => ['--add-scram', `${m}=[name=${u.user},password=${u.password}]`]));
  await exec('java', ['-Xmx256m', log4j, '-cp', cp, 'kafka.tools.StorageTool', 'format', '-t', clusterId(), '-c', props, ...scram], 'kafka StorageTool format');

  const logFile = join(o.dir, 'kafka.log');
  const fd = openSync(logFile, 'a');
  const child = (() => {
    try {
      return spawn('java', ['-Xmx384m', log4j, '-Djava.net.preferIPv4Stack=true', '-cp', cp, 'kafka.Kafka', props], { stdio: ['ignore', fd, fd] });
    } finally {
      closeSync(fd);
    }
  })();
  const s = supervise(child, STOP_GRACE_MS);
  const plainBroker = `127.0.0.1:${ports.internal}`;
  await waitReady(`secure kafka on ${plainBroker}`, s, {
    ready: () => answers(plainBroker),
    timeoutMs: START_TIMEOUT_MS,
    everyMs: 250,
    diagnose: () => `${logFile}:\n${tail(logFile)}`,
  });
  const stop = (): Promise<void> => s.stop();
  return { saslSslBroker: `127.0.0.1:${ports.sasl}`, plainBroker, stop };
}

// ---- unsecured OAUTHBEARER tokens ----
//
// Kafka 3.9's OAuthBearerUnsecuredJws decodes the JWT sections with the *standard* Base64 decoder
// (KAFKA-17089, fixed after 3.9.1), while the SASL initial response only allows [-_.a-zA-Z0-9] in a
// token. A section therefore has to be base64url made of letters and digits only: no '-' or '_'
// (which the standard decoder rejects) and no '+', '/' or '=' (which the SASL grammar rejects).
// The JSON is built from pieces with equivalent spellings (optional blanks between tokens, a
// character or its \u escape) and a depth-first search picks spellings whose every 3-byte group
// encodes to letters and digits.
// Note for tests of rejected tokens: kafkajs 2.2.4 does not see an OAUTHBEARER rejection as one. The
// broker answers a bad token (expired, undecodable) with an error challenge and waits for the
// client's %x01 reply; kafkajs takes the answer for success and sends its next request, and the
// broker closes the connection ("Unexpected Kafka request of type METADATA during SASL
// authentication" in the broker log; a connection error / "No brokers in the broker pool" in
// kafkajs, not KafkaJSSASLAuthenticationError).

const ALNUM = /^[A-Za-z0-9]*$/;
type Pieces = (readonly string[])[];

function jsonString(s: string): Pieces {
  const pieces: Pieces = [['"']];
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    const hex = code.toString(16).padStart(4, '0');
    const escapes = [`\\u${hex}`, `\\u${hex.toUpperCase()}`];
    const ch = s.charAt(i);
    if (ch === '"' || ch === '\\') pieces.push([`\\${ch}`, ...escapes]);
    else if (code >= 0x20 && code < 0x7f) pieces.push([ch, ...escapes]);
    else pieces.push(escapes);
  }
  pieces.push(['"']);
  return pieces;
}

function jsonObject(members: readonly (readonly [string, string | number])[]): Pieces {
  const ws = ['', ' ', '\n', '  ', '\t'];
  const pieces: Pieces = [['{']];
  members.forEach(([k, v], i) => {
    if (i > 0) pieces.push([',']);
    pieces.push(ws, ...jsonString(k), ws, [':'], ws, ...(typeof v === 'number' ? [[String(v)]] : jsonString(v)), ws);
  });
  pieces.push(['}']);
  return pieces;
}

function alnumBase64url(pieces: Pieces): string {
  let budget = 1_000_000;
  const search = (i: number, prefix: string): string | undefined => {
    if (--budget < 0) return undefined;
    if (i === pieces.length) {
      const enc = Buffer.from(prefix, 'latin1').toString('base64url');
      return ALNUM.test(enc) ? enc : undefined;
    }
    const checked = prefix.length - (prefix.length % 3); // every full group before this is clean
    for (const alt of pieces[i] ?? []) {
      const next = prefix + alt;
      const full = next.length - (next.length % 3);
      if (full > checked && !ALNUM.test(Buffer.from(next.slice(checked, full), 'latin1').toString('base64url'))) continue;
      const found = search(i + 1, next);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  const found = search(0, '');
  if (found === undefined) throw new Error('unsecuredJwt: found no spelling of the JWT that Kafka 3.9 can decode');
  return found;
}

/** An unsecured JWT (alg none) that Kafka's default OAUTHBEARER unsecured validator accepts: sub = user, exp = now + ttlMs */
export function unsecuredJwt(user: string, ttlMs = 3_600_000): string {
  const exp = Math.floor((Date.now() + ttlMs) / 1000);
  const header = alnumBase64url(jsonObject([['alg', 'none']]));
  const claims = alnumBase64url(
    jsonObject([
      ['sub', user],
      ['exp', exp],
    ]),
  );
  return `${header}.${claims}.`;
}
