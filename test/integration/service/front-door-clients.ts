// The real clients of the front-door suite (front-door.test.ts): raw HTTPS requests over node:tls,
// curl, the certificate the port serves, a query that holds its concurrency slot, and Debian's
// Prometheus scraping the port with a bearer token file.
import { execFile, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect as tlsConnect, type PeerCertificate } from 'node:tls';
import { freePort, waitFor } from '../../support/service-harness.ts';

export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

/** How raw sends its request: headers, method (GET), body, a client certificate. */
export interface RawRequest {
  readonly headers?: Record<string, string>;
  readonly method?: string;
  readonly body?: string;
  readonly cert?: { cert: string; key: string };
}

/** A raw HTTPS request: the path goes on the wire exactly as given (no URL normalisation). */
export function raw(port: number, ca: string, path: string, opts: RawRequest = {}): Promise<Answer> {
  const headers = opts.headers ?? {};
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, ca, servername: 'localhost', ...(opts.cert ?? {}) }, () => {
      const lines = [
        `${opts.method ?? 'GET'} ${path} HTTP/1.1`,
        'host: localhost',
        'connection: close',
        ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      ];
      if (opts.body !== undefined) lines.push(`content-length: ${Buffer.byteLength(opts.body)}`);
      // write, not end: the server drops a connection the client half-closes before the answer
      socket.write(`${lines.join('\r\n')}\r\n\r\n${opts.body ?? ''}`);
    });
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const h: Record<string, string> = {};
      for (const l of headerLines) {
        const i = l.indexOf(':');
        if (i > 0) h[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1] ?? 0), headers: h, text: rest.join('\r\n\r\n') });
    });
  });
}

export function curl(args: readonly string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    execFile('curl', ['-sS', '-o', '-', '-w', '\n%{http_code}', '--max-time', '20', ...args], (err, stdout, stderr) => {
      if (err !== null) {
        reject(new Error(`curl ${args.join(' ')}: ${err.message} ${stderr}`));
        return;
      }
      const at = stdout.lastIndexOf('\n');
      resolve({ status: Number(stdout.slice(at + 1)), body: stdout.slice(0, at) });
    });
  });
}

export const basic = (user: string, pw: string): string => `Basic ${Buffer.from(`${user}:${pw}`).toString('base64')}`;

export function servedCert(port: number, ca: string): Promise<PeerCertificate> {
  return new Promise((resolve, reject) => {
    const s = tlsConnect({ host: '127.0.0.1', port, ca, servername: 'localhost' }, () => {
      const c = s.getPeerCertificate();
      s.end();
      resolve(c);
    });
    s.on('error', reject);
  });
}

/** A query that holds its concurrency slot: a POST /api/query with a body that never finishes. */
export function holdQuery(port: number, ca: string, authorization: string): Promise<{ destroy(): void }> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, ca, servername: 'localhost' }, () => {
      socket.write(
        `POST /api/query HTTP/1.1\r\nhost: localhost\r\nauthorization: ${authorization}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"start":`,
      );
      // the guard admits before the body is read: give it a moment
      setTimeout(() => {
        resolve({ destroy: () => socket.destroy() });
      }, 300);
    });
    socket.on('error', reject);
  });
}

export interface Scraper {
  query(expr: string): Promise<{ value: [number, string] }[]>;
}

/** Debian's Prometheus with two jobs on the service's port: the right token file and a wrong one, both checking the test CA. */
export async function startScraper(
  defer: (fn: () => unknown) => void,
  dir: string,
  target: { readonly port: number; readonly caFile: string; readonly token: string },
): Promise<Scraper> {
  const { port, caFile, token } = target;
  const good = join(dir, 'prom-token');
  const wrong = join(dir, 'wrong-token');
  writeFileSync(good, token);
  writeFileSync(wrong, 'not-the-token');
  const job = (name: string, tokenFile: string): string[] => [
    `  - job_name: ${name}`,
    '    scheme: https',
    '    authorization:',
    '      type: Bearer',
    `      credentials_file: ${tokenFile}`,
    '    tls_config:',
    `      ca_file: ${caFile}`,
    '      server_name: localhost',
    '    static_configs:',
    `      - targets: ["127.0.0.1:${port}"]`,
  ];
  const configFile = join(dir, 'prometheus.yml');
  writeFileSync(
    configFile,
    ['global:', '  scrape_interval: 1s', '  scrape_timeout: 900ms', 'scrape_configs:', ...job('good', good), ...job('wrong', wrong), ''].join('\n'),
  );
  const webPort = await freePort();
  const child = spawn(
    'prometheus',
    [`--config.file=${configFile}`, `--storage.tsdb.path=${join(dir, 'prom-data')}`, `--web.listen-address=127.0.0.1:${webPort}`, '--log.level=warn'],
    { stdio: 'ignore' },
  );
  defer(() => {
    child.kill('SIGKILL');
  });
  const url = `http://127.0.0.1:${webPort}`;
  await waitFor('Prometheus ready', 60_000, async () => (await fetch(`${url}/-/ready`).catch(() => undefined))?.ok === true, 500);
  return {
    query: async (expr) => {
      const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`);
      return ((await res.json()) as { data: { result: { value: [number, string] }[] } }).data.result;
    },
  };
}
