// The pure parts of the service's front door: scopes per path, the credentials document, the
// authenticator (Bearer, Basic, client certificate, anonymous), the concurrency caps, and the config
// rule that a non-loopback port needs credentials.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { ANONYMOUS, Authenticator, decodeBasic, missingScopes } from '../../../src/front-door/authenticate.ts';
import { hashPassword, hashToken, parseCredentials } from '../../../src/front-door/credentials.ts';
import { QueryLimits } from '../../../src/front-door/limits.ts';
import { scopesFor } from '../../../src/front-door/scopes.ts';
import { isLoopback, loadConfig } from '../../../src/runtime/config.ts';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

async function creds(): Promise<ReturnType<typeof parseCredentials>> {
  return parseCredentials({
    tokens: [
      { name: 'prom', sha256: hashToken('tok-prom'), scopes: ['metrics'] },
      { name: 'ops', sha256: hashToken('tok-ops'), scopes: ['read', 'admin'] },
    ],
    users: [{ name: 'grafana', scrypt: await hashPassword('pw-grafana'), scopes: ['read'] }],
    clients: [{ name: 'batch', cn: 'batch.example', scopes: ['read', 'ui'] }],
  });
}

test('scopesFor: probes open, /metrics metrics, /ui ui, everything else read; the path as sent counts too', () => {
  assert.deepEqual(scopesFor('/healthz'), []);
  assert.deepEqual(scopesFor('/readyz'), []);
  assert.deepEqual(scopesFor('/metrics'), ['metrics']);
  assert.deepEqual(scopesFor('/ui'), ['ui']);
  assert.deepEqual(scopesFor('/ui/data.json'), ['ui']);
  assert.deepEqual(scopesFor('/api/v1/ids/a/latest'), ['read']);
  assert.deepEqual(scopesFor('/api/query'), ['read']);
  assert.deepEqual(scopesFor('/nowhere'), ['read']);
  // normalised /metrics, sent as /ui/../metrics: both scopes
  assert.deepEqual(new Set(scopesFor('/metrics', '/ui/%2e%2e/metrics')), new Set(['metrics', 'ui']));
  // a probe path reached by traversal is not open
  assert.deepEqual(scopesFor('/healthz', '/api/v1/%2e%2e/%2e%2e/healthz'), ['read']);
  assert.deepEqual(scopesFor('/healthz', '/healthz?x=1'), []);
});

test('parseCredentials: hashes only, known scopes, unique names; errors name the entry, never a value', async () => {
  const c = await creds();
  assert.equal(c.tokens.length, 2);
  assert.equal(c.users[0]?.name, 'grafana');
  assert.throws(
    () => parseCredentials({ tokens: [{ name: 'x', token: 'plain-secret', scopes: ['read'] }] }),
    (err: Error) => /tokens\.0/.test(err.message) && !err.message.includes('plain-secret'),
  );
  assert.throws(() => parseCredentials({ tokens: [{ name: 'x', sha256: 'not-a-hash', scopes: ['read'] }] }), /tokens\.0\.sha256: the hex SHA-256/);
  assert.throws(
    () => parseCredentials({ users: [{ name: 'u', password: 'hunter2', scopes: ['read'] }] }),
    (err: Error) => !err.message.includes('hunter2'),
  );
  assert.throws(() => parseCredentials({ tokens: [{ name: 'x', sha256: hashToken('a'), scopes: ['write'] }] }), /scopes/);
  assert.throws(() => parseCredentials({ tokens: [{ name: 'x', sha256: hashToken('a'), scopes: [] }] }), /scopes/);
  assert.throws(
    () => parseCredentials({ tokens: [{ name: 'x', sha256: hashToken('a'), scopes: ['read'] }], clients: [{ name: 'x', cn: 'x', scopes: ['read'] }] }),
    /given twice/,
  );
  assert.equal(hashToken('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
});

test('Authenticator: Bearer and Basic against hashes, client certificates by CN, one reason for every wrong credential', async () => {
  const auth = new Authenticator(await creds(), { anonymous: false });
  assert.equal(auth.required, true);
  const ok = async (authorization: string | undefined, peer?: { authorized: boolean; cn: string | undefined }): Promise<string> => {
    const r = await auth.authenticate({ authorization, peer });
    assert.ok(r.ok, `expected acceptance of ${String(authorization)}`);
    return `${r.identity.name}/${r.identity.via}/${[...r.identity.scopes].join(',')}`;
  };
  assert.equal(await ok('Bearer tok-prom'), 'prom/token/metrics');
  assert.equal(await ok('bearer   tok-ops'), 'ops/token/read,admin');
  assert.equal(await ok(basic('grafana', 'pw-grafana')), 'grafana/basic/read');
  assert.equal(await ok(basic('grafana', 'pw-grafana')), 'grafana/basic/read', 'again, from the cache of verified pairs');
  assert.equal(await ok(undefined, { authorized: true, cn: 'batch.example' }), 'batch/cert/read,ui');
  const rejected = async (authorization: string | undefined, peer?: { authorized: boolean; cn: string | undefined }): Promise<string> => {
    const r = await auth.authenticate({ authorization, peer });
    assert.ok(!r.ok);
    assert.equal(r.status, 401);
    return r.reason;
  };
  const same = 'the credentials were not accepted';
  assert.equal(await rejected('Bearer tok-wrong'), same);
  assert.equal(await rejected('Bearer '), same);
  assert.equal(await rejected(basic('grafana', 'wrong')), same, 'a wrong password');
  assert.equal(await rejected(basic('nobody', 'pw-grafana')), same, 'an unknown user: the same reason, and the same scrypt');
  assert.match(await rejected(undefined), /credentials required/);
  assert.match(await rejected('Digest abc'), /unsupported authorization scheme/);
  assert.match(await rejected('Basic %%%'), /malformed/);
  assert.match(
    await rejected(undefined, { authorized: false, cn: 'batch.example' }),
    /credentials required/,
    'a certificate TLS did not verify counts for nothing',
  );
  assert.match(await rejected(undefined, { authorized: true, cn: 'stranger' }), /not one of the known identities/);
});

test('Authenticator: an anonymous port lets callers without a credential in as anonymous (never admin), but still refuses wrong ones', async () => {
  const auth = new Authenticator(await creds(), { anonymous: true });
  assert.equal(auth.required, false);
  const r = await auth.authenticate({});
  assert.ok(r.ok);
  assert.equal(r.identity, ANONYMOUS);
  assert.equal(r.identity.scopes.has('admin'), false);
  assert.equal((await auth.authenticate({ authorization: 'Bearer nope' })).ok, false);
});

test('decodeBasic and missingScopes', () => {
  assert.deepEqual(decodeBasic(Buffer.from('a:b:c').toString('base64')), { user: 'a', password: 'b:c' });
  assert.equal(decodeBasic(Buffer.from(':pw').toString('base64')), undefined);
  assert.equal(decodeBasic('not base64!'), undefined);
  assert.deepEqual(missingScopes(ANONYMOUS, ['read']), []);
  assert.deepEqual(missingScopes(ANONYMOUS, ['metrics', 'admin']), ['admin']);
});

test('QueryLimits: a cap per identity and one in total; releases are idempotent', async () => {
  const limits = new QueryLimits({ total: 3, perIdentity: 2 });
  const a1 = await limits.acquire('a');
  const a2 = await limits.acquire('a');
  assert.ok(a1.ok && a2.ok);
  const a3 = await limits.acquire('a');
  assert.ok(!a3.ok);
  assert.match(a3.reason, /for this identity \(at most 2\)/);
  const b1 = await limits.acquire('b');
  assert.ok(b1.ok);
  const c1 = await limits.acquire('c');
  assert.ok(!c1.ok);
  assert.match(c1.reason, /too many concurrent queries \(at most 3\)/);
  a1.release();
  a1.release();
  assert.equal(limits.inFlight, 2);
  assert.ok((await limits.acquire('c')).ok);
});

test('config: a non-loopback http.host needs credentials or an explicit http.auth.mode none', () => {
  assert.ok(isLoopback('127.0.0.1') && isLoopback('::1') && isLoopback('[::1]') && isLoopback('localhost') && isLoopback('127.3.2.1'));
  assert.ok(!isLoopback('0.0.0.0') && !isLoopback('::') && !isLoopback('10.0.0.1') && !isLoopback('example.org'));
  assert.throws(() => loadConfig({ env: { TSI_HTTP_HOST: '0.0.0.0' } }), /http\.auth\.mode: http\.host is not loopback and no authentication is configured/);
  assert.equal(loadConfig({ env: { TSI_HTTP_HOST: '0.0.0.0', TSI_HTTP_AUTH_MODE: 'none' } }).http.auth.mode, 'none');
  assert.equal(
    loadConfig({ env: { TSI_HTTP_HOST: '0.0.0.0', TSI_HTTP_CREDENTIALS_FILE: '/run/secrets/c.json' } }).http.auth.credentialsFile,
    '/run/secrets/c.json',
  );
  const inline = loadConfig({
    env: { TSI_HTTP_HOST: '0.0.0.0', TSI_HTTP_CREDENTIALS: JSON.stringify({ tokens: [{ name: 'p', sha256: hashToken('x'), scopes: ['metrics'] }] }) },
  });
  assert.ok(inline.http.auth.credentials !== null);
  assert.throws(() => loadConfig({ env: { TSI_HTTP_TLS_CERT_FILE: '/c.pem' } }), /http\.tls\.keyFile: certFile and keyFile go together/);
  assert.throws(() => loadConfig({ env: { TSI_HTTP_TLS_CLIENT_CA_FILE: '/ca.pem' } }), /client certificates need TLS/);
  assert.equal(loadConfig({ env: {} }).http.host, '127.0.0.1', 'the default stays loopback, anonymous');
});

test('tsingest auth hash: the secret from stdin, an entry the credentials file takes, never the secret', async () => {
  const cli = (args: string[], input: string): { status: number | null; stdout: string; stderr: string } =>
    spawnSync(process.execPath, ['src/cli.ts', 'auth', 'hash', ...args], { cwd: ROOT, input, encoding: 'utf8' });
  const token = cli(['--token', '--name', 'prom', '--scopes', 'metrics'], 'tok-123\n');
  assert.equal(token.status, 0, token.stderr);
  assert.ok(!token.stdout.includes('tok-123'));
  const pw = cli(['--password', '--name', 'grafana'], 'pw-456');
  assert.equal(pw.status, 0, pw.stderr);
  assert.ok(!pw.stdout.includes('pw-456'));
  const creds = parseCredentials({ ...(JSON.parse(token.stdout) as object), ...(JSON.parse(pw.stdout) as object) });
  const auth = new Authenticator(creds, { anonymous: false });
  assert.ok((await auth.authenticate({ authorization: 'Bearer tok-123' })).ok);
  assert.ok((await auth.authenticate({ authorization: basic('grafana', 'pw-456') })).ok);
  assert.equal(cli(['--token', '--scopes', 'write'], 'x').status, 2);
  assert.equal(cli(['--token'], '').status, 2);
});
