// The compose stack's port secrets (scripts/lib/images/compose-secrets.ts), made with the openssl CLI
// in a temp dir: one certificate for both services of the roles (ingest and query), signed by the
// stack's CA; made once; a certificate from before the query service (without its name) is made again
// from the same CA while the tokens, passwords and hashed credentials stay.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureComposeSecrets } from '../../../scripts/lib/images/compose-secrets.ts';

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
