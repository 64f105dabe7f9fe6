// The service's own port with its front door on, against real clients: one service (HTTPS with a
// test CA, client certificates against that CA, a credentials file of hashed tokens, Basic users and a
// client CN) on the real stack, shared by every subtest:
// - curl with a client certificate, with Basic, with nothing (401 + WWW-Authenticate);
// - Debian's Prometheus scraping /metrics over TLS with a bearer token file (a wrong token: a down target);
// - headless Chromium loading /ui with Basic auth;
// - scopes (403), probes that say only ready or not, concurrency caps (a wait for a slot, then 429 + Retry-After);
// - a hostile-input suite: traversal, %2e%2e, overlong headers, forged cursors, credentials in the
//   query string (the status codes are printed for the closing note);
// - the certificate rotated on disk is served without a restart;
// - the request log names the identity and scope, never a secret.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashPassword, hashToken } from '../../../src/front-door/credentials.ts';
import { createLogger } from '../../../src/runtime/logger.ts';
import { startService } from '../../../src/service/service.ts';
import { makeTestCerts } from '../../support/tls.ts';
import { createHarness, freePort, makeEvents, produceEvents, waitFor, waitForEvents } from '../../support/service-harness.ts';
import { dumpDom } from '../ui/headless-chromium.ts';
import { basic, curl, holdQuery, raw, servedCert, startScraper } from './front-door-clients.ts';

const SECRETS = {
  prom: 'prom-token-3f9a1c7e5b2d',
  reader: 'reader-token-8e1d4c2a9f70',
  grafana: 'grafana-pw-51c0e9d7a3b8',
  viewer: 'viewer-pw-a7f3e2c91d04',
} as const;

test("the service's own port: TLS, mTLS, credentials with scopes, limits, hostile input, real clients", { timeout: 600_000 }, async (t) => {
  const h = await createHarness(t, { prefix: 'door', partitions: 1 });
  const dir = mkdtempSync(join(tmpdir(), 'tsi-door-'));
  h.defer(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const certs = makeTestCerts(join(dir, 'pki'));
  const ca = readFileSync(certs.caFile, 'utf8');
  const certFile = join(dir, 'tls.crt');
  const keyFile = join(dir, 'tls.key');
  writeFileSync(certFile, readFileSync(certs.serverCertFile));
  writeFileSync(keyFile, readFileSync(certs.serverKeyFile));
  const credentialsFile = join(dir, 'credentials.json');
  writeFileSync(
    credentialsFile,
    JSON.stringify({
      tokens: [
        { name: 'prometheus', sha256: hashToken(SECRETS.prom), scopes: ['metrics'] },
        { name: 'reader', sha256: hashToken(SECRETS.reader), scopes: ['read'] },
      ],
      users: [
        { name: 'grafana', scrypt: await hashPassword(SECRETS.grafana), scopes: ['read'] },
        { name: 'viewer', scrypt: await hashPassword(SECRETS.viewer), scopes: ['ui'] },
      ],
      clients: [{ name: 'batch-job', cn: 'tsi-test-client', scopes: ['read', 'metrics'] }],
    }),
  );
  const port = await freePort();
  const cfg = h.config([
    'kafka.groupId=door',
    'http.host=127.0.0.1',
    `http.port=${port}`,
    `http.tls.certFile=${certFile}`,
    `http.tls.keyFile=${keyFile}`,
    `http.tls.clientCaFile=${certs.caFile}`,
    'http.tls.reloadCheckMs=200',
    `http.auth.credentialsFile=${credentialsFile}`,
    'http.limits.maxConcurrentPerIdentity=2',
    'http.limits.maxConcurrentQueries=3',
    'http.limits.waitMs=1500',
    'http.limits.maxWaiting=4',
    'log.level=info',
  ]);
  let logText = '';
  const svc = await startService(
    cfg,
    createLogger({
      level: 'info',
      destination: {
        write: (line: string) => {
          logText += line;
        },
      },
    }),
  );
  h.defer(() => svc.stop('test cleanup'));
  const events = makeEvents(60, { idPrefix: 'door' });
  await produceEvents(h, events);
  await waitForEvents(svc, events.length);
  const base = `https://127.0.0.1:${port}`;
  const id = events[0]?.id ?? '';

  await t.test('curl: a client certificate, a Basic user, and nothing (401 with WWW-Authenticate)', async () => {
    const withCert = await curl([
      '--cacert',
      certs.caFile,
      '--cert',
      certs.clientCertFile,
      '--key',
      certs.clientKeyFile,
      `${base}/api/v1/ids/${id}/latest?limit=5`,
    ]);
    assert.equal(withCert.status, 200, withCert.body);
    assert.ok((JSON.parse(withCert.body) as { items: unknown[] }).items.length > 0, 'the read returned events');
    const withBasic = await curl(['--cacert', certs.caFile, '-u', `grafana:${SECRETS.grafana}`, `${base}/api/v1/ids/${id}/latest?limit=5`]);
    assert.equal(withBasic.status, 200);
    const anonymous = await curl(['--cacert', certs.caFile, '-D', '-', `${base}/api/v1/ids/${id}/latest`]);
    assert.equal(anonymous.status, 401);
    assert.match(anonymous.body, /www-authenticate: Basic realm="tsingest", charset="UTF-8"\r?\n/i);
    assert.match(anonymous.body, /www-authenticate: Bearer realm="tsingest"\r?\n/i);
    assert.match(anonymous.body, /credentials required/);
    const wrongUser = await curl(['--cacert', certs.caFile, '-u', `nobody:${SECRETS.grafana}`, `${base}/api/v1/ids/${id}/latest`]);
    const wrongPw = await curl(['--cacert', certs.caFile, '-u', 'grafana:wrong', `${base}/api/v1/ids/${id}/latest`]);
    assert.equal(wrongUser.status, 401);
    assert.equal(wrongPw.body, wrongUser.body, 'an unknown user and a wrong password get the same answer');
    const plain = await curl([`http://127.0.0.1:${port}/readyz`]).catch((e: unknown) => ({ status: 0, body: String(e) }));
    assert.notEqual(plain.status, 200, 'plain HTTP is not served');
  });

  await t.test('scopes: 403 naming the missing scope; probes open, saying only ready or not without a credential', async () => {
    const metricsByReader = await raw(port, ca, '/metrics', { headers: { authorization: `Bearer ${SECRETS.reader}` } });
    assert.equal(metricsByReader.status, 403);
    assert.match(metricsByReader.text, /lacks the scope metrics/);
    const uiByProm = await raw(port, ca, '/ui', { headers: { authorization: `Bearer ${SECRETS.prom}` } });
    assert.equal(uiByProm.status, 403);
    const metrics = await raw(port, ca, '/metrics', { headers: { authorization: `Bearer ${SECRETS.prom}` } });
    assert.equal(metrics.status, 200);
    assert.match(metrics.text, /tsingest_events_total/);
    const ready = await raw(port, ca, '/readyz');
    assert.equal(ready.status, 200);
    assert.deepEqual(JSON.parse(ready.text), { status: 'ready' });
    const health = await raw(port, ca, '/healthz');
    assert.deepEqual(JSON.parse(health.text), { status: 'ok' });
    const readyAuthed = await raw(port, ca, '/readyz', { headers: { authorization: `Bearer ${SECRETS.prom}` } });
    assert.equal((JSON.parse(readyAuthed.text) as { state: string }).state, 'running', 'a credential sees the state');
    // every route that serves data: refused without a credential, and without the read (or ui) scope
    const dataRoutes = [
      '/api/query?start=1h-ago&m=sum:temp',
      '/api/suggest?type=metrics&q=cpu',
      '/api/search/lookup?m=temp',
      '/api/aggregators',
      '/api/config/filters',
      '/api/version',
      `/api/v1/ids/${id}/latest`,
    ];
    for (const path of dataRoutes) {
      assert.equal((await raw(port, ca, path)).status, 401, `anonymous ${path}`);
      const byViewer = await raw(port, ca, path, { headers: { authorization: basic('viewer', SECRETS.viewer) } });
      assert.equal(byViewer.status, 403, `ui scope only: ${path}`);
      assert.match(byViewer.text, /lacks the scope read/);
    }
    assert.notEqual((await raw(port, ca, '/api/version', { headers: { authorization: `Bearer ${SECRETS.reader}` } })).status, 401, 'the read scope passes');
    assert.equal((await raw(port, ca, '/ui/data.json')).status, 401, 'anonymous /ui/data.json');
    assert.equal(
      (await raw(port, ca, '/ui/data.json', { headers: { authorization: `Bearer ${SECRETS.reader}` } })).status,
      403,
      '/ui/data.json wants the ui scope',
    );
  });

  await t.test('limits: past a cap a query waits for a slot (and gets one a finished query frees), then 429 with Retry-After', async () => {
    // Queries that hold their slot: a POST /api/query whose body never finishes arriving.
    const grafana = basic('grafana', SECRETS.grafana);
    const held = await Promise.all([0, 1].map(() => holdQuery(port, ca, grafana)));
    try {
      const third = await raw(port, ca, `/api/v1/ids/${id}/latest`, { headers: { authorization: grafana } });
      assert.equal(third.status, 429);
      assert.equal(third.headers['retry-after'], '1');
      assert.match(third.text, /for this identity \(at most 2\); waited \d+ ms for a slot/);
      // a query over the cap that a finished query makes room for is answered
      const waiting = raw(port, ca, `/api/v1/ids/${id}/latest`, { headers: { authorization: grafana } });
      await new Promise((r) => setTimeout(r, 300));
      held.shift()?.destroy();
      assert.equal((await waiting).status, 200, 'the waiting query took the freed slot');
      held.push(await holdQuery(port, ca, grafana));
      held.push(await holdQuery(port, ca, `Bearer ${SECRETS.reader}`));
      const fourth = await raw(port, ca, `/api/v1/ids/${id}/latest`, {
        cert: { cert: readFileSync(certs.clientCertFile, 'utf8'), key: readFileSync(certs.clientKeyFile, 'utf8') },
      });
      assert.equal(fourth.status, 429);
      assert.match(fourth.text, /too many concurrent queries \(at most 3\); waited \d+ ms for a slot/);
    } finally {
      for (const s of held) s.destroy();
    }
    await waitFor(
      'the slots to be released',
      10_000,
      async () => (await raw(port, ca, `/api/v1/ids/${id}/latest`, { headers: { authorization: `Bearer ${SECRETS.reader}` } })).status === 200,
    );
  });

  const codes: Record<string, number> = {};
  await t.test('hostile input: traversal, %2e%2e, overlong headers, forged cursors, credentials in the query string', async () => {
    const reader = { authorization: `Bearer ${SECRETS.reader}` };
    const viewer = { authorization: basic('viewer', SECRETS.viewer) };
    const cases: [string, string, Record<string, string>, number][] = [
      ['traversal to /metrics as a reader', '/api/v1/../../metrics', reader, 403],
      ['%2e%2e to /metrics as a ui viewer', '/ui/%2e%2e/metrics', viewer, 403],
      ['%2e%2e to the read API as a ui viewer', `/ui/%2e%2e/api/v1/ids/${id}/latest`, viewer, 403],
      ['%2e%2e to a probe from the read API, anonymous', '/api/v1/%2e%2e/%2e%2e/readyz', {}, 401],
      ['traversal to /etc/passwd, anonymous', '/../../../../etc/passwd', {}, 401],
      ['traversal to /etc/passwd, authenticated', '/%2e%2e/%2e%2e/etc/passwd', reader, 404],
      ['forged cursor', `/api/v1/ids/${id}/latest?cursor=${Buffer.from('{"forged":true}').toString('base64url')}`, reader, 400],
      ['token in the query string', `/metrics?access_token=${SECRETS.prom}`, {}, 400],
      ['password in the query string of a read', `/api/v1/ids/${id}/latest?password=${SECRETS.grafana}`, reader, 400],
      ['overlong header', '/metrics', { authorization: `Bearer ${SECRETS.prom}`, 'x-pad': 'a'.repeat(20_000) }, 431],
      ['overlong Authorization', '/metrics', { authorization: `Bearer ${'b'.repeat(20_000)}` }, 431],
      ['NUL in a Basic pair', '/ui', { authorization: `Basic ${Buffer.from('viewer\0:x').toString('base64')}` }, 401],
    ];
    for (const [what, path, headers, expected] of cases) {
      const a = await raw(port, ca, path, { headers });
      codes[what] = a.status;
      assert.equal(a.status, expected, `${what}: ${a.text.slice(0, 200)}`);
      assert.ok(!a.text.includes('root:'), `${what}: no file content`);
      for (const s of Object.values(SECRETS)) assert.ok(!a.text.includes(s), `${what}: no secret echoed`);
      if (a.status === 401 || a.status === 403) assert.doesNotMatch(a.text, /prometheus|reader|grafana|viewer|batch-job/, `${what}: no hint of valid names`);
    }
    process.stdout.write(`# hostile-input status codes: ${JSON.stringify(codes)}\n`);
  });

  await t.test('Prometheus scrapes /metrics over TLS with a bearer token file; a wrong token is a down target', async () => {
    const prom = await startScraper(h.defer, dir, { port, caFile: certs.caFile, token: SECRETS.prom });
    await waitFor('both targets scraped', 60_000, async () => (await prom.query('up')).length === 2, 1000);
    await waitFor('the good target up', 30_000, async () => (await prom.query('up{job="good"}'))[0]?.value[1] === '1', 1000);
    assert.equal((await prom.query('up{job="wrong"}'))[0]?.value[1], '0', 'the wrong token: down');
    const scraped = await prom.query('tsingest_events_total{job="good"}');
    assert.ok(scraped.length > 0, 'tsingest_ series scraped over TLS');
  });

  await t.test('headless Chromium loads /ui with Basic auth', async () => {
    const dom = await dumpDom(`https://viewer:${SECRETS.viewer}@localhost:${port}/ui`, 60_000, ['--ignore-certificate-errors']);
    assert.match(dom, /heatmap|hot/i, 'the hot-spots page rendered');
    const refused = await dumpDom(`https://localhost:${port}/ui`, 60_000, ['--ignore-certificate-errors']);
    assert.doesNotMatch(refused, /heatmap/i, 'without credentials: no page');
  });

  await t.test('a rotated certificate is served without a restart', async () => {
    const before = await servedCert(port, ca);
    const next = makeTestCerts(join(dir, 'pki2'));
    // The new server certificate is signed by the new CA: rotate the client CA and the key with it.
    writeFileSync(`${certFile}.new`, readFileSync(next.serverCertFile));
    writeFileSync(`${keyFile}.new`, readFileSync(next.serverKeyFile));
    renameSync(`${keyFile}.new`, keyFile);
    renameSync(`${certFile}.new`, certFile);
    const nextCa = readFileSync(next.caFile, 'utf8');
    await waitFor('the new certificate served', 10_000, async () => (await servedCert(port, nextCa).catch(() => undefined))?.fingerprint256 !== undefined, 200);
    const after = await servedCert(port, nextCa);
    assert.notEqual(after.fingerprint256, before.fingerprint256);
    assert.equal((await raw(port, nextCa, '/readyz')).status, 200);
  });

  await t.test('the log names identity and scope of each request, and no secret', () => {
    const lines = logText.split('\n').filter((l) => l.includes('"http request"'));
    assert.ok(
      lines.some((l) => l.includes('"caller":"batch-job"') && l.includes('"via":"cert"') && l.includes('"scope":"read"')),
      'the client certificate identity',
    );
    assert.ok(
      lines.some((l) => l.includes('"caller":"grafana"') && l.includes('"via":"basic"')),
      'the Basic user',
    );
    assert.ok(
      lines.some((l) => l.includes('"caller":"prometheus"') && l.includes('"scope":"metrics"') && l.includes('"status":200')),
      'the scraper',
    );
    for (const s of Object.values(SECRETS)) assert.ok(!logText.includes(s), 'no secret in the log');
    assert.ok(!logText.includes('access_token'), 'no query string in the log');
  });
});
