// Debian's nginx as an authenticating TLS proxy in front of the HBase REST gateway, the way Apache
// Knox is deployed: TLS 1.2+ with test/support/tls.ts certificates, optional HTTP Basic auth and
// client-certificate checks, everything else passed through unchanged (statuses such as the 304 of
// a failed check-and-put included). One nginx child process per proxy, all of its files under `dir`.
// nginx comes from scripts/lib/stack/ensure-tools.ts (`npm test` installs it).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { freePort } from '../../scripts/lib/stack/probes.ts';
import { supervise, waitReady } from './child-server.ts';
import type { TestCerts } from './tls.ts';

export interface NginxProxyOptions {
  /** where requests go, e.g. http://127.0.0.1:8080 (the REST gateway) */
  readonly upstream: string;
  readonly certs: TestCerts;
  /** require HTTP Basic auth with this user/password (htpasswd file written with `openssl passwd -apr1`) */
  readonly basicAuth?: { readonly user: string; readonly password: string };
  /** require a client certificate signed by certs.caFile (ssl_verify_client on) */
  readonly requireClientCert?: boolean;
  /** working dir for the conf, pid, logs, temp paths */
  readonly dir: string;
}
export interface NginxProxy {
  /** https://127.0.0.1:<port> */
  readonly url: string;
  readonly port: number;
  /** Replaces the Basic auth user file; nginx reads it on every request, so it applies at once (a rotated secret). */
  setBasicAuth(user: string, password: string): void;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 10_000;
const STOP_GRACE_MS = 5_000;

function htpasswdLine(user: string, password: string): string {
  const res = spawnSync('openssl', ['passwd', '-apr1', '-stdin'], { input: password, encoding: 'utf8' });
  if (res.error !== undefined || res.status !== 0) throw new Error(`openssl passwd -apr1 failed (${res.error?.message ?? res.stderr.trim()})`);
  return `${user}:${res.stdout.trim()}\n`;
}

/** `http://host:port` → `host:port` for an nginx upstream block; only an origin is accepted. */
function upstreamServer(upstream: string): string {
  const u = new URL(upstream);
  if (u.protocol !== 'http:' || (u.pathname !== '/' && u.pathname !== '') || u.search !== '') {
    throw new Error(`nginx proxy upstream must be a plain http origin such as http://127.0.0.1:8080, got ${upstream}`);
  }
  return `${u.hostname}:${u.port === '' ? '80' : u.port}`;
}

function config(o: NginxProxyOptions, port: number): string {
  const q = (p: string): string => JSON.stringify(p); // nginx accepts double-quoted strings with \" escapes
  const tmp = (name: string): string => q(join(o.dir, 'temp', name));
  const auth = o.basicAuth === undefined ? [] : ['auth_basic "HBase REST";', `auth_basic_user_file ${q(join(o.dir, 'htpasswd'))};`];
  const clientCert = o.requireClientCert === true ? [`ssl_client_certificate ${q(o.certs.caFile)};`, 'ssl_verify_client on;'] : [];
  return `${process.getuid?.() === 0 ? 'user root;\n' : ''}worker_processes 1;
pid ${q(join(o.dir, 'nginx.pid'))};
error_log ${q(join(o.dir, 'error.log'))} notice;
events { worker_connections 256; }
http {
  access_log ${q(join(o.dir, 'access.log'))};
  client_body_temp_path ${tmp('client_body')};
  proxy_temp_path ${tmp('proxy')};
  fastcgi_temp_path ${tmp('fastcgi')};
  uwsgi_temp_path ${tmp('uwsgi')};
  scgi_temp_path ${tmp('scgi')};
  upstream tsi_upstream { server ${upstreamServer(o.upstream)}; keepalive 32; }
  server {
    listen 127.0.0.1:${port} ssl;
    ssl_certificate ${q(o.certs.serverCertFile)};
    ssl_certificate_key ${q(o.certs.serverKeyFile)};
    ssl_protocols TLSv1.2 TLSv1.3;
    ${[...clientCert, ...auth].join('\n    ')}
    client_max_body_size 256m;
    location / {
      proxy_pass http://tsi_upstream;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_request_buffering off;
      proxy_read_timeout 120s;
    }
  }
}
`;
}

function tlsAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port, rejectUnauthorized: false, timeout: 1_000 });
    const done = (ok: boolean): void => {
      s.destroy();
      resolve(ok);
    };
    s.once('secureConnect', () => {
      done(true);
    });
    s.once('error', () => {
      done(false);
    });
    s.once('timeout', () => {
      done(false);
    });
  });
}

function readLog(file: string): string {
  try {
    return readFileSync(file, 'utf8').slice(-4000);
  } catch {
    return '(no error log)';
  }
}

export async function startNginxProxy(o: NginxProxyOptions): Promise<NginxProxy> {
  mkdirSync(join(o.dir, 'temp'), { recursive: true });
  if (o.basicAuth !== undefined) writeFileSync(join(o.dir, 'htpasswd'), htpasswdLine(o.basicAuth.user, o.basicAuth.password));
  const port = await freePort();
  const conf = join(o.dir, 'nginx.conf');
  const errorLog = join(o.dir, 'error.log');
  writeFileSync(conf, config(o, port));
  const child = spawn('nginx', ['-p', `${o.dir}/`, '-c', conf, '-e', errorLog, '-g', 'daemon off;'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (b: Buffer): void => {
    output = (output + b.toString()).slice(-4000);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const s = supervise(child, STOP_GRACE_MS);
  const stop = (): Promise<void> => s.stop();
  await waitReady(`nginx on 127.0.0.1:${port}`, s, {
    ready: () => tlsAnswers(port),
    timeoutMs: START_TIMEOUT_MS,
    everyMs: 100,
    diagnose: () => `${output.trim()}\n${readLog(errorLog)}`,
  });
  const setBasicAuth = (user: string, password: string): void => {
    if (o.basicAuth === undefined) throw new Error('setBasicAuth: the proxy was started without basicAuth');
    writeFileSync(join(o.dir, 'htpasswd'), htpasswdLine(user, password));
  };
  return { url: `https://127.0.0.1:${port}`, port, setBasicAuth, stop };
}
