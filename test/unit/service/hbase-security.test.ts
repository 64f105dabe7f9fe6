// REST gateway security settings: the config checks that name the key to fix, the TLS material and
// Authorization header built from them (files read, a rotated token file picked up), and the header
// sent with every request while a refused credential names hbase.auth, never the gateway's page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HBaseError, HBaseRestClient } from '../../../src/hbase/index.ts';
import type { HttpRequest, HttpResponse, HttpTransport } from '../../../src/hbase/index.ts';
import { ConfigError, loadConfig } from '../../../src/runtime/config.ts';
import { assertRefused, tempFiles } from '../../support/config-files.ts';
import { explainHBaseTlsFailure, restAuthTransport, restAuthorization, restTls } from '../../../src/service/hbase-credentials.ts';

const { dir, file } = tempFiles('tsi-sec-');
const refused = assertRefused;

void test('config: every half-set or contradictory security setting is an error naming its key', () => {
  refused(['hbase.tls.caFile=/ca.pem'], /hbase\.tls\.caFile set, but hbase\.restUrl is not https/);
  refused(['hbase.restUrl=https://gw:8443', 'hbase.tls.certFile=/c.pem'], /certFile and hbase\.tls\.keyFile go together/);
  refused(['hbase.restUrl=https://gw:8443', 'hbase.tls.keyPassphraseFile=/p'], /keyPassphraseFile set without hbase\.tls\.keyFile/);
  refused(['hbase.auth.type=basic', 'hbase.auth.password=x'], /hbase\.auth\.username is required/);
  refused(['hbase.auth.type=basic', 'hbase.auth.username=u'], /exactly one of hbase\.auth\.password and hbase\.auth\.passwordFile/);
  refused(['hbase.auth.type=basic', 'hbase.auth.username=u', 'hbase.auth.password=x', 'hbase.auth.passwordFile=/p'], /exactly one of hbase\.auth\.password/);
  refused(['hbase.auth.type=bearer'], /exactly one of hbase\.auth\.token and hbase\.auth\.tokenFile/);
  refused(['hbase.auth.password=x'], /hbase\.auth\.password is set but hbase\.auth\.type is none/);
  refused(['hbase.auth.type=bearer', 'hbase.auth.token=t', 'hbase.auth.username=u'], /hbase\.auth\.username is set but hbase\.auth\.type is bearer/);
  refused(['hbase.auth.type=digest'], /hbase\.auth\.type/);
  refused(['hbase.auth.servicePrincipal=HTTP@gw'], /hbase\.auth\.servicePrincipal is set but hbase\.auth\.type is none/);
  refused(['hbase.auth.type=spnego', 'hbase.auth.servicePrincipal=HTTP'], /hbase\.auth\.servicePrincipal/);
  refused(['hbase.auth.type=spnego', 'hbase.auth.token=t'], /hbase\.auth\.token is set but hbase\.auth\.type is spnego/);
});

void test('config: secrets from the environment stay strings, and the error of a bad one does not print it', () => {
  const cfg = loadConfig({ env: { TSI_HBASE_USERNAME: 'ingest', TSI_HBASE_PASSWORD: '0123456789' }, sets: ['hbase.auth.type=basic'] });
  assert.equal(cfg.hbase.auth.password, '0123456789');
  assert.equal(cfg.hbase.auth.username, 'ingest');
  assert.throws(
    () => loadConfig({ env: { TSI_HBASE_PASSWORD: 's3cr3t-value' }, sets: ['hbase.auth.type=bearer', 'hbase.auth.token=t'] }),
    (e: unknown) => e instanceof Error && !e.message.includes('s3cr3t-value'),
  );
});

void test('TLS material is read from the files; none configured → the system trust store', () => {
  const ca = file('ca.pem', 'CA PEM\n');
  const cfg = loadConfig({
    env: {},
    sets: [
      'hbase.restUrl=https://10.0.0.7:8443',
      `hbase.tls.caFile=${ca}`,
      `hbase.tls.certFile=${file('c.pem', 'CERT')}`,
      `hbase.tls.keyFile=${file('k.pem', 'KEY')}`,
      'hbase.tls.serverName=rest.example',
    ],
  });
  assert.deepEqual(restTls(cfg.hbase), { ca: 'CA PEM', cert: 'CERT', key: 'KEY', servername: 'rest.example' });
  assert.equal(restTls(loadConfig({ env: {}, sets: ['hbase.restUrl=https://gw:8443'] }).hbase), undefined);
  const missing = loadConfig({ env: {}, sets: ['hbase.restUrl=https://gw:8443', `hbase.tls.caFile=${join(dir, 'nope.pem')}`] });
  assert.throws(
    () => restTls(missing.hbase),
    (e: unknown) => e instanceof ConfigError && /hbase\.tls\.caFile: cannot read .*nope\.pem: ENOENT/.test(e.message),
  );
});

void test('Basic from a password file (trailing newline dropped); Bearer from a token file, read again after a rotation', () => {
  const basic = loadConfig({ env: {}, sets: ['hbase.auth.type=basic', 'hbase.auth.username=ingest', `hbase.auth.passwordFile=${file('pw', 'pa:ss\n')}`] });
  assert.equal(restAuthorization(basic.hbase)?.(), `Basic ${Buffer.from('ingest:pa:ss').toString('base64')}`);
  assert.equal(restAuthorization(loadConfig({ env: {} }).hbase), undefined);

  const tokenPath = file('token', 'first\n');
  let now = 0;
  const auth = restAuthorization(loadConfig({ env: {}, sets: ['hbase.auth.type=bearer', `hbase.auth.tokenFile=${tokenPath}`] }).hbase, () => now);
  assert.ok(auth !== undefined);
  assert.equal(auth(), 'Bearer first');
  // rotated as kubelet does: a new file moved into place
  writeFileSync(`${tokenPath}.new`, 'second-token');
  renameSync(`${tokenPath}.new`, tokenPath);
  assert.equal(auth(), 'Bearer first', 'checked at most once a second');
  now = 1500;
  assert.equal(auth(), 'Bearer second-token');
});

class Recorder implements HttpTransport {
  readonly requests: HttpRequest[] = [];
  readonly #status: number;
  readonly #body: string;
  constructor(status: number, body = '') {
    this.#status = status;
    this.#body = body;
  }
  request(req: HttpRequest): Promise<HttpResponse> {
    this.requests.push(req);
    return Promise.resolve({ status: this.#status, headers: {}, body: Buffer.from(this.#body) });
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

void test('the Authorization header goes with every request; a 401 names hbase.auth, not the proxy page or the secret', async () => {
  let n = 0;
  const ok = new Recorder(200, '{"Version":"2.6.1"}');
  const c = new HBaseRestClient({ baseUrl: 'https://gw:8443', transport: ok, defaultDeadlineMs: 1000, authorization: () => `Bearer t${++n}` });
  await c.version();
  await c.version();
  assert.deepEqual(
    ok.requests.map((r) => r.headers['authorization']),
    ['Bearer t1', 'Bearer t2'],
  );

  const denied = new HBaseRestClient({
    baseUrl: 'https://gw:8443',
    transport: new Recorder(401, '<html>401 Authorization Required nginx</html>'),
    defaultDeadlineMs: 1000,
    authorization: () => 'Basic c2VjcmV0',
  });
  await assert.rejects(
    denied.version(),
    (e: unknown) =>
      e instanceof HBaseError &&
      e.code === 'HBASE_UNAUTHORIZED' &&
      !e.retriable &&
      /refused the request's credentials \(hbase\.auth, hbase\.tls\)/.test(e.message) &&
      !e.message.includes('nginx') &&
      !e.message.includes('c2VjcmV0'),
  );
  const none = new HBaseRestClient({ baseUrl: 'https://gw:8443', transport: new Recorder(403), defaultDeadlineMs: 1000 });
  await assert.rejects(none.version(), /forbids the request \(credentials or permissions: none sent: hbase\.auth/);
});

void test('a TLS verification failure anywhere in the cause chain is explained by hbase.tls; other failures are not', () => {
  const cfg = loadConfig({ env: {}, sets: ['hbase.restUrl=https://10.0.0.7:8443', 'hbase.tls.caFile=/etc/ca.pem', 'hbase.tls.serverName=rest.example'] });
  const tlsErr = (code: string): Error => Object.assign(new Error(`${code}: certificate says no`), { code });
  const wrapped = new HBaseError({
    code: 'HBASE_NETWORK',
    message: 'GET https://10.0.0.7:8443/t/exists failed',
    cause: tlsErr('ERR_TLS_CERT_ALTNAME_INVALID'),
  });
  const m = explainHBaseTlsFailure(cfg.hbase, wrapped) ?? '';
  assert.match(m, /check hbase\.tls/);
  assert.match(m, /hbase\.tls\.caFile \/etc\/ca\.pem/);
  assert.match(m, /hbase\.tls\.serverName rest\.example/);
  assert.match(m, /certificate says no/);
  for (const code of ['SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'CERT_HAS_EXPIRED', 'ERR_SSL_WRONG_VERSION_NUMBER'])
    assert.ok(explainHBaseTlsFailure(cfg.hbase, tlsErr(code)), code);
  const plain = loadConfig({ env: {}, sets: ['hbase.restUrl=https://rest.example:8443'] });
  assert.match(
    explainHBaseTlsFailure(plain.hbase, tlsErr('DEPTH_ZERO_SELF_SIGNED_CERT')) ?? '',
    /system trust store.*host of each gateway \(https:\/\/rest\.example:8443\)/,
  );
  const mtls = loadConfig({
    env: {},
    sets: ['hbase.restUrl=https://rest.example:8443', 'hbase.tls.certFile=/c.pem', 'hbase.tls.keyFile=/k.pem', 'hbase.tls.keyPassphraseFile=/pp'],
  });
  assert.match(
    explainHBaseTlsFailure(mtls.hbase, tlsErr('ERR_OSSL_BAD_DECRYPT')) ?? '',
    /client key could not be used: check hbase\.tls\.keyFile \(\/k\.pem\), hbase\.tls\.keyPassphraseFile/,
  );
  assert.equal(explainHBaseTlsFailure(cfg.hbase, Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })), undefined);
  assert.equal(explainHBaseTlsFailure(cfg.hbase, new HBaseError({ code: 'HBASE_FORBIDDEN', message: 'hbase.auth' })), undefined);
  // Two gateways, one with an untrusted certificate: the message names that one.
  const two = loadConfig({ env: {}, sets: ['hbase.restUrls=https://gw-a.example:8443,https://gw-b.example:8443', 'hbase.tls.caFile=/etc/ca.pem'] });
  const onB = new HBaseError({
    code: 'HBASE_NETWORK',
    message: 'GET https://gw-b.example:8443/version/cluster failed',
    cause: tlsErr('SELF_SIGNED_CERT_IN_CHAIN'),
  });
  const named = explainHBaseTlsFailure(two.hbase, onB) ?? '';
  assert.match(named, /TLS to the HBase REST gateway of https:\/\/gw-b\.example:8443 failed/);
  assert.doesNotMatch(named, /gw-a/);
});

void test('spnego: no header, a decorator per gateway instead; its 401 does not claim that nothing was sent', async () => {
  const cfg = loadConfig({ env: {}, sets: ['hbase.restUrl=http://gw.example:8080', 'hbase.auth.type=spnego'] });
  assert.equal(restAuthorization(cfg.hbase), undefined);
  assert.equal(restAuthTransport(loadConfig({ env: {} }).hbase), undefined);
  assert.ok(restAuthTransport(cfg.hbase) !== undefined, 'spnego builds the decorator (the kerberos package loads)');
  // With an authTransport the credentials travel in the transport: a 401 names hbase.auth, not "none sent".
  const denied = new HBaseRestClient({ baseUrl: 'http://gw:8080', defaultDeadlineMs: 1000, authTransport: () => new Recorder(401) });
  await assert.rejects(
    denied.version(),
    (e: unknown) =>
      e instanceof HBaseError && e.code === 'HBASE_UNAUTHORIZED' && /refused the request's credentials \(hbase\.auth, hbase\.tls\)/.test(e.message),
  );
  await denied.close();
});
