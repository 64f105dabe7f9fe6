// The nginx TLS proxy test support (test/support/nginx.ts, tls.ts) against the real REST gateway:
// Basic auth and client-certificate checks are enforced, a trusted client gets the gateway's answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { deferrer, testEnv } from '../../support/env.ts';
import { startNginxProxy } from '../../support/nginx.ts';
import { makeTestCerts, type TestCerts } from '../../support/tls.ts';

type Defer = (fn: () => unknown) => void;

function setup(t: { after(fn: () => Promise<void>): void }): { defer: Defer; certs: TestCerts; dir: string } {
  const defer = deferrer(t);
  const dir = mkdtempSync(join(tmpdir(), 'tsi-nginx-'));
  defer(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  return { defer, certs: makeTestCerts(dir), dir };
}

function agent(defer: Defer, connect: { ca?: Buffer; cert?: Buffer; key?: Buffer }): Agent {
  const a = new Agent({ connect });
  defer(() => a.close());
  return a;
}

async function get(url: string, dispatcher: Agent, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const res = await request(url, { dispatcher, headers: { accept: 'text/plain', ...headers } });
  return { status: res.statusCode, body: await res.body.text() };
}

const basic = (user: string, password: string): Record<string, string> => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });

test('Basic auth over TLS: right credentials reach the gateway, wrong or none → 401, untrusted CA fails', async (t) => {
  const { defer, certs, dir } = setup(t);
  const password = randomBytes(12).toString('base64url');
  const proxy = await startNginxProxy({ upstream: testEnv().restUrl, certs, dir, basicAuth: { user: 'ingest', password } });
  defer(() => proxy.stop());
  const trusted = agent(defer, { ca: readFileSync(certs.caFile) });
  const version = `${proxy.url}/version/cluster`;

  const ok = await get(version, trusted, basic('ingest', password));
  assert.equal(ok.status, 200, ok.body);
  assert.match(ok.body.trim(), /^\d+\.\d+\.\d+/);

  assert.equal((await get(version, trusted)).status, 401);
  assert.equal((await get(version, trusted, basic('ingest', `${password}x`))).status, 401);

  await assert.rejects(get(version, agent(defer, {}), basic('ingest', password)), (e: unknown) => {
    const code = (e as { code?: unknown }).code;
    assert.ok(typeof code === 'string' && /CERT|UNABLE_TO_VERIFY/.test(code), `expected a certificate error, got ${String(e)}`);
    return true;
  });
});

test('client certificate required: with the CA-signed client cert → 200, without → 400', async (t) => {
  const { defer, certs, dir } = setup(t);
  const proxy = await startNginxProxy({ upstream: testEnv().restUrl, certs, dir, requireClientCert: true });
  defer(() => proxy.stop());
  const ca = readFileSync(certs.caFile);
  const version = `${proxy.url}/version/cluster`;

  const withCert = await get(version, agent(defer, { ca, cert: readFileSync(certs.clientCertFile), key: readFileSync(certs.clientKeyFile) }));
  assert.equal(withCert.status, 200, withCert.body);
  assert.match(withCert.body.trim(), /^\d+\.\d+\.\d+/);

  const without = await get(version, agent(defer, { ca }));
  assert.equal(without.status, 400);
  assert.match(without.body, /No required SSL certificate was sent/);
});
