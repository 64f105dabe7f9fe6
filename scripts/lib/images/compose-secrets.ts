// The secrets of the compose stack's own HTTPS port (docker-compose.yml `secrets:`), made once in
// ./secrets (ignored by git) with the openssl CLI: a private CA, the certificate the ingest and query
// services share for ingest/query/localhost/127.0.0.1, random tokens and passwords for its clients, and
// the credentials file both read, which holds their hashes only, each made by `tsingest auth hash` as
// an operator would make it (docs/SECURITY.md). A certificate made before the query service (no
// DNS:query) is made again from the same CA; the tokens and passwords stay.
//   secrets/http-ca.crt              the CA clients check the port against (curl --cacert, Prometheus, Grafana)
//   secrets/http-tls.crt, .key       http.tls.certFile / keyFile (the key 0600, owned by the containers' uid 1000)
//   secrets/http-credentials.json    http.auth.credentialsFile
//   secrets/prometheus-token         Bearer, scope metrics (deploy/prometheus/prometheus.yml)
//   secrets/grafana-password         Basic user grafana, scope read (the OpenTSDB datasource)
//   secrets/operator-token           Bearer, scopes read, ui, metrics (curl, a browser plugin)
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../stack/config.ts';

function openssl(args: readonly string[]): void {
  const res = spawnSync('openssl', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (res.error !== undefined || res.status !== 0) throw new Error(`openssl ${args[0] ?? ''} failed: ${res.error?.message ?? res.stderr.trim()}`);
}

interface CredentialEntries {
  readonly tokens?: readonly Record<string, unknown>[];
  readonly users?: readonly Record<string, unknown>[];
}

/** `tsingest auth hash --token|--password --name NAME --scopes …` with the secret on stdin: its JSON entry. */
async function authHash(kind: 'token' | 'password', name: string, scopes: readonly string[], secret: string): Promise<CredentialEntries> {
  const child = spawn(process.execPath, ['src/cli.ts', 'auth', 'hash', `--${kind}`, '--name', name, '--scopes', scopes.join(',')], {
    cwd: projectRoot,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (b: Buffer) => {
    out += b.toString();
  });
  child.stderr.on('data', (b: Buffer) => {
    err += b.toString();
  });
  child.stdin.end(secret);
  const code = await new Promise<number | null>((res, rej) => {
    child.once('error', rej);
    child.once('close', res);
  });
  if (code !== 0) throw new Error(`tsingest auth hash --${kind} --name ${name} exited ${String(code)}: ${err.trim()}`);
  return JSON.parse(out) as CredentialEntries;
}

const KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** The names the services' certificate carries: the compose services of both roles, and the host. */
export const SERVER_NAMES = ['DNS:ingest', 'DNS:query', 'DNS:localhost', 'IP:127.0.0.1'] as const;

/** The certificate's subjectAltName as openssl prints it (`DNS:ingest, DNS:query, …, IP Address:127.0.0.1`). */
function subjectAltNames(certFile: string): string {
  const res = spawnSync('openssl', ['x509', '-in', certFile, '-noout', '-ext', 'subjectAltName'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return res.status === 0 ? res.stdout : '';
}

/** uid and gid of the user the service's containers run as (`node`: deploy/service/Dockerfile, deploy/base/node/Dockerfile). */
export const SERVICE_UID = 1000;

/**
 * The server key, mode 0600 and owned by the containers' user: a bind-mounted compose secret keeps
 * the host file's owner and mode, so the key is given to uid 1000 (as root; a user who is uid 1000
 * owns it already). Run as another user, a 0600 key would be unreadable in the containers, so it
 * stays 0444 there (in the 0700 secrets/ folder).
 */
export function protectServerKey(file: string): void {
  const uid = process.getuid?.();
  if (uid === 0) chownSync(file, SERVICE_UID, SERVICE_UID);
  chmodSync(file, uid === 0 || uid === SERVICE_UID ? 0o600 : 0o444);
}

/** http-tls.crt and .key for SERVER_NAMES, signed by the CA in `dir`. */
function issueServerCertificate(p: (name: string) => string): void {
  writeFileSync(
    p('http-tls.ext'),
    `basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=${SERVER_NAMES.join(',')}\n`,
  );
  rmSync(p('http-tls.key'), { force: true });
  rmSync(p('http-tls.crt'), { force: true });
  openssl(['req', '-new', ...KEY, '-keyout', p('http-tls.key'), '-out', p('http-tls.csr'), '-subj', '/CN=ingest']);
  openssl([
    'x509',
    '-req',
    '-in',
    p('http-tls.csr'),
    '-CA',
    p('http-ca.crt'),
    '-CAkey',
    p('http-ca.key'),
    '-set_serial',
    `0x${randomBytes(8).toString('hex')}`,
    '-days',
    '825',
    '-sha256',
    '-extfile',
    p('http-tls.ext'),
    '-out',
    p('http-tls.crt'),
  ]);
  rmSync(p('http-tls.csr'));
  rmSync(p('http-tls.ext'));
  chmodSync(p('http-tls.crt'), 0o444);
  protectServerKey(p('http-tls.key'));
}

/**
 * Makes the secrets in `dir` unless its credentials file exists; a certificate without the query
 * service's name is made again (from the CA kept beside it). Returns the names of the files it wrote.
 */
export async function ensureComposeSecrets(dir: string): Promise<string[]> {
  const p = (name: string): string => join(dir, name);
  if (existsSync(p('http-credentials.json'))) {
    if (existsSync(p('http-tls.key'))) protectServerKey(p('http-tls.key')); // a key made 0444 by an earlier version
    if (subjectAltNames(p('http-tls.crt')).includes('DNS:query') || !existsSync(p('http-ca.key'))) return [];
    issueServerCertificate(p);
    return ['http-tls.crt', 'http-tls.key'];
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  openssl([
    'req',
    '-x509',
    ...KEY,
    '-keyout',
    p('http-ca.key'),
    '-out',
    p('http-ca.crt'),
    '-days',
    '825',
    '-sha256',
    '-subj',
    '/CN=tsingest compose CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  issueServerCertificate(p);
  const secret = (): string => randomBytes(24).toString('base64url');
  const prometheus = secret();
  const operator = secret();
  const grafana = secret();
  writeFileSync(p('prometheus-token'), prometheus);
  writeFileSync(p('operator-token'), operator);
  writeFileSync(p('grafana-password'), grafana);
  const entries = await Promise.all([
    authHash('token', 'prometheus', ['metrics'], prometheus),
    authHash('token', 'operator', ['read', 'ui', 'metrics'], operator),
    authHash('password', 'grafana', ['read'], grafana),
  ]);
  const credentials = { tokens: entries.flatMap((e) => e.tokens ?? []), users: entries.flatMap((e) => e.users ?? []) };
  writeFileSync(p('http-credentials.json'), `${JSON.stringify(credentials, null, 2)}\n`);
  const written = ['http-ca.crt', 'http-tls.crt', 'http-tls.key', 'http-credentials.json', 'prometheus-token', 'operator-token', 'grafana-password'];
  // The clients' files are read in containers of other users (nobody, grafana 472) and a bind mount
  // keeps host modes; the key only by the service (protectServerKey).
  for (const f of written) if (f !== 'http-tls.key') chmodSync(p(f), 0o444);
  chmodSync(p('http-ca.key'), 0o400);
  return written;
}
