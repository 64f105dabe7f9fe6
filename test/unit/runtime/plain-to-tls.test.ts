// Plain HTTP to the service's HTTPS port (src/runtime/plain-to-tls.ts) gets a 400 in plain HTTP that
// says to use https, where the TLS server alone would close the connection without a word; TLS
// clients on the same port are served as before (large bodies, and Node's own 431 for an overlong header).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHttpServer } from '../../../src/runtime/http.ts';
import { httpsRequiredAnswer } from '../../../src/runtime/plain-to-tls.ts';
import { Lifecycle } from '../../../src/runtime/lifecycle.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { createMetrics } from '../../../src/metrics/ingest-metrics.ts';
import { makeTestCerts } from '../../support/tls.ts';

const log = createLogger({ level: 'silent' });

/** Answers every request with the number of body bytes it received. */
const echoBytes = (req: IncomingMessage, res: ServerResponse): Promise<boolean> =>
  new Promise((resolve) => {
    let bytes = 0;
    req.on('data', (b: Buffer) => (bytes += b.length));
    req.on('end', () => {
      res.end(JSON.stringify({ bytes }));
      resolve(true);
    });
  });

async function tlsServer(t: import('node:test').TestContext): Promise<{ port: number; ca: Buffer }> {
  const dir = mkdtempSync(join(tmpdir(), 'tsi-plain-tls-'));
  t.after(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const certs = makeTestCerts(dir);
  const metrics = createMetrics();
  const lifecycle = new Lifecycle({ log, metrics });
  const context = { cert: readFileSync(certs.serverCertFile), key: readFileSync(certs.serverKeyFile) };
  const tls = { context, requestCert: false, rejectUnauthorized: false };
  const server = await startHttpServer({ host: '127.0.0.1', port: 0, registry: metrics.registry, lifecycle, log, tls, routes: echoBytes });
  t.after(() => server.close());
  return { port: server.port, ca: readFileSync(certs.caFile) };
}

void test('plain HTTP to the HTTPS port: a 400 saying to use https on that port', async (t) => {
  const { port } = await tlsServer(t);
  const answer = await new Promise<{ status: number | undefined; body: string }>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/api/v1/ids/x/latest' }, (res) => {
      let body = '';
      res.on('data', (b: Buffer) => (body += b.toString()));
      res.on('end', () => {
        resolve({ status: res.statusCode, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
  assert.equal(answer.status, 400);
  assert.deepEqual(JSON.parse(answer.body), {
    error: 'https_required',
    message: `this port speaks HTTPS only: use https://<host>:${port}/ (with the CA that signed the service's certificate, e.g. curl --cacert)`,
  });
});

void test('TLS clients on the same port: answered as before, small and large bodies', async (t) => {
  const { port, ca } = await tlsServer(t);
  for (const size of [0, 3_000_000]) {
    const body = await new Promise<string>((resolve, reject) => {
      const req = httpsRequest({ host: '127.0.0.1', port, path: '/echo', method: 'POST', ca, servername: 'localhost' }, (res) => {
        let text = '';
        res.on('data', (b: Buffer) => (text += b.toString()));
        res.on('end', () => {
          resolve(text);
        });
      });
      req.on('error', reject);
      req.end(Buffer.alloc(size, 0x61));
    });
    assert.deepEqual(JSON.parse(body), { bytes: size });
  }
});

void test('a connection reset before its handshake does no harm: the port answers the next one', async (t) => {
  const { port } = await tlsServer(t);
  const reset = connect(port, '127.0.0.1');
  await new Promise((resolve) => reset.once('connect', resolve));
  reset.resetAndDestroy();
  // the server still answers afterwards
  const again = await new Promise<string>((resolve, reject) => {
    const c = connect(port, '127.0.0.1', () => c.write('HEAD / HTTP/1.1\r\nHost: localhost\r\n\r\n'));
    let text = '';
    c.on('data', (b: Buffer) => (text += b.toString()));
    c.on('close', () => {
      resolve(text);
    });
    c.on('error', reject);
  });
  assert.match(again, /^HTTP\/1\.1 400 Bad Request\r\n/);
  assert.match(again, /use https:\/\/<host>:\d+\//);
});

void test("TLS clients keep Node's own answers to bad requests: an overlong header is a 431", async (t) => {
  const { port, ca } = await tlsServer(t);
  const text = await new Promise<string>((resolve, reject) => {
    const c = tlsConnect({ host: '127.0.0.1', port, ca, servername: 'localhost' }, () => {
      c.write(`GET /healthz HTTP/1.1\r\nHost: localhost\r\nx-pad: ${'a'.repeat(20_000)}\r\n\r\n`);
    });
    let got = '';
    c.on('data', (b: Buffer) => (got += b.toString()));
    c.on('close', () => {
      resolve(got);
    });
    c.on('error', reject);
  });
  assert.match(text, /^HTTP\/1\.1 431 /);
});

void test('httpsRequiredAnswer: a complete HTTP/1.1 answer', () => {
  const [head, body] = httpsRequiredAnswer(9464).split('\r\n\r\n');
  assert.match(head ?? '', /^HTTP\/1\.1 400 Bad Request\r\n/);
  assert.match(head ?? '', new RegExp(`content-length: ${Buffer.byteLength(body ?? '')}`));
  assert.match(body ?? '', /https:\/\/<host>:9464\//);
});
