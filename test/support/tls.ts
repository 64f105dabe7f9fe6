// Throwaway TLS material for tests that talk through a TLS proxy (test/support/nginx.ts): a CA, a
// server certificate for 127.0.0.1/localhost and a client certificate, made with the openssl CLI.
// EC P-256 keys, valid for 2 days; nothing here is meant to outlive the test's temp dir.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestCerts {
  readonly dir: string;
  readonly caFile: string;
  readonly serverCertFile: string;
  readonly serverKeyFile: string;
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
}

const DAYS = '2';
const NEW_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function openssl(args: readonly string[]): void {
  const res = spawnSync('openssl', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (res.error !== undefined || res.status !== 0) {
    const why = res.error?.message ?? `exit ${String(res.status)}: ${res.stderr.trim()}`;
    throw new Error(`openssl ${args.join(' ')} failed (${why})`);
  }
}

/** A key + CSR for `cn`, signed by the CA with the given X.509v3 extensions. */
function issue(dir: string, name: string, cn: string, extensions: readonly string[]): { cert: string; key: string } {
  const key = join(dir, `${name}.key`);
  const cert = join(dir, `${name}.crt`);
  const csr = join(dir, `${name}.csr`);
  const ext = join(dir, `${name}.ext`);
  writeFileSync(ext, `${extensions.join('\n')}\n`);
  openssl(['req', '-new', ...NEW_KEY, '-keyout', key, '-out', csr, '-subj', `/CN=${cn}`]);
  const serial = `0x${Date.now().toString(16)}${Math.floor(Math.random() * 0xffff).toString(16)}`;
  openssl([
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    join(dir, 'ca.crt'),
    '-CAkey',
    join(dir, 'ca.key'),
    '-set_serial',
    serial,
    '-days',
    DAYS,
    '-sha256',
    '-extfile',
    ext,
    '-out',
    cert,
  ]);
  return { cert, key };
}

/** A throwaway CA, a server certificate for 127.0.0.1 and localhost (subjectAltName IP:127.0.0.1, DNS:localhost) and a client certificate, all signed by the CA, made with the openssl CLI in `dir` (created if missing). */
export function makeTestCerts(dir: string): TestCerts {
  mkdirSync(dir, { recursive: true });
  const caFile = join(dir, 'ca.crt');
  openssl([
    'req',
    '-x509',
    ...NEW_KEY,
    '-keyout',
    join(dir, 'ca.key'),
    '-out',
    caFile,
    '-days',
    DAYS,
    '-sha256',
    '-subj',
    '/CN=tsi-test-ca',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  const leaf = ['basicConstraints=critical,CA:FALSE', 'keyUsage=critical,digitalSignature'];
  const server = issue(dir, 'server', 'localhost', [...leaf, 'extendedKeyUsage=serverAuth', 'subjectAltName=IP:127.0.0.1,DNS:localhost']);
  const client = issue(dir, 'client', 'tsi-test-client', [...leaf, 'extendedKeyUsage=clientAuth']);
  return { dir, caFile, serverCertFile: server.cert, serverKeyFile: server.key, clientCertFile: client.cert, clientKeyFile: client.key };
}
