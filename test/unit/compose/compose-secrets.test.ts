// The compose stack's port secrets (scripts/lib/images/compose-secrets.ts), made with the openssl CLI
// in a temp dir: one certificate for both services of the roles (ingest and query), signed by the
// stack's CA; made once; a certificate from before the query service (without its name) is made again
// from the same CA while the tokens, passwords and hashed credentials stay.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVICE_UID, ensureComposeSecrets } from '../../../scripts/lib/images/compose-secrets.ts';
import { ensureSecretFiles } from '../../../scripts/lib/images/compose.ts';
import { projectRoot } from '../../../scripts/lib/stack/config.ts';

function openssl(args: readonly string[]): string {
  const res = spawnSync('openssl', args, { encoding: 'utf8' });
  assert.equal(res.status, 0, res.stderr);
  return res.stdout;
}

const names = (crt: string): string => openssl(['x509', '-in', crt, '-noout', '-ext', 'subjectAltName']);

void test('compose secrets: one certificate for ingest and query; an older one without query is made again, the credentials kept', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tsi-secrets-'));
  t.after(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const p = (f: string): string => join(dir, f);
  const made = await ensureComposeSecrets(dir);
  assert.ok(made.includes('http-tls.crt') && made.includes('http-credentials.json'), made.join(', '));
  assert.match(names(p('http-tls.crt')), /DNS:ingest, DNS:query, DNS:localhost, IP Address:127\.0\.0\.1/);
  assert.match(openssl(['verify', '-CAfile', p('http-ca.crt'), p('http-tls.crt')]), /: OK/);
  assert.deepEqual(await ensureComposeSecrets(dir), [], 'made once');

  const credentials = readFileSync(p('http-credentials.json'), 'utf8');
  const token = readFileSync(p('operator-token'), 'utf8');
  rmSync(p('http-tls.crt'));
  copyFileSync(p('http-ca.crt'), p('http-tls.crt')); // a certificate without the name query
  assert.deepEqual(await ensureComposeSecrets(dir), ['http-tls.crt', 'http-tls.key']);
  assert.match(names(p('http-tls.crt')), /DNS:query/);
  assert.match(openssl(['verify', '-CAfile', p('http-ca.crt'), p('http-tls.crt')]), /: OK/, 'signed by the same CA: clients keep their CA file');
  const key = openssl(['pkey', '-in', p('http-tls.key'), '-pubout']);
  assert.equal(openssl(['x509', '-in', p('http-tls.crt'), '-noout', '-pubkey']), key, 'the key of the new certificate');
  assert.equal(readFileSync(p('http-credentials.json'), 'utf8'), credentials, 'the hashed credentials stay');
  assert.equal(readFileSync(p('operator-token'), 'utf8'), token, 'the tokens stay');
});

void test("compose secrets: the server key is 0600 and the containers' user's (uid 1000); the clients' files 0444; an older 0444 key is tightened", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tsi-secrets-'));
  t.after(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const p = (f: string): string => join(dir, f);
  await ensureComposeSecrets(dir);
  const mode = (f: string): number => statSync(p(f)).mode & 0o777;
  // run as root (or as uid 1000) the key can be the containers' user's alone; as anyone else it cannot
  const owner = process.getuid?.() === 0 || process.getuid?.() === SERVICE_UID;
  assert.equal(mode('http-tls.key').toString(8), (owner ? 0o600 : 0o444).toString(8));
  if (owner) assert.equal(statSync(p('http-tls.key')).uid, SERVICE_UID);
  for (const f of ['http-ca.crt', 'http-tls.crt', 'http-credentials.json', 'prometheus-token', 'operator-token', 'grafana-password']) {
    assert.equal(mode(f).toString(8), '444', f);
  }
  assert.equal(mode('http-ca.key').toString(8), '400');
  chmodSync(p('http-tls.key'), 0o444); // as an earlier version left it
  assert.deepEqual(await ensureComposeSecrets(dir), [], 'nothing made');
  assert.equal(mode('http-tls.key').toString(8), (owner ? 0o600 : 0o444).toString(8), 'the existing key tightened');
});

void test("npm run compose -- secrets (ensureSecretFiles) makes every secret file docker-compose.yml names, Grafana's admin password too", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tsi-secrets-'));
  t.after(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const compose = readFileSync(join(projectRoot, 'docker-compose.yml'), 'utf8');
  const named = [...compose.slice(compose.indexOf('\nsecrets:\n')).matchAll(/^ {4}file: \.\/secrets\/(\S+)$/gm)].map((m) => m[1] ?? '');
  assert.ok(named.includes('grafana-admin-password') && named.length >= 7, named.join(', '));
  const said: string[] = [];
  await ensureSecretFiles(dir, (m) => said.push(m));
  for (const name of named) assert.ok(existsSync(join(dir, name)), `secrets/${name} made`);
  assert.match(said.join('\n'), /Grafana admin password generated/);
  const password = readFileSync(join(dir, 'grafana-admin-password'), 'utf8');
  await ensureSecretFiles(dir, (m) => said.push(m));
  assert.equal(readFileSync(join(dir, 'grafana-admin-password'), 'utf8'), password, 'an existing password is kept');
});
