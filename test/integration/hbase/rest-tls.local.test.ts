// HBase REST's own TLS: a real second gateway (RESTServer from the local stack's jars, against the
// local stack's ZooKeeper) with hbase.rest.ssl.enabled and a PKCS12 keystore made from the
// test/support/tls.ts certificates. The service and `tsingest tables check` talk HTTPS straight to it
// with hbase.tls.caFile; a CA that did not sign the gateway's certificate, or a server name the
// certificate does not carry, is a start-up error naming hbase.tls (verification is always on).
// HBase REST 2.6 cannot require client certificates: a truststore is its only client-side TLS
// setting, and a client without a certificate is served with one configured (docs/SECURITY.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Agent, request } from 'undici';
import { uniqueName } from '../../support/env.ts';
import { httpsRestAnswers, restTlsSite, startRestGateway } from '../../support/rest-gateway.ts';
import { makeTestCerts } from '../../support/tls.ts';
import {
  NODE_BIN,
  REPO_ROOT,
  countDataCells,
  createHarness,
  makeEvents,
  produceEvents,
  startInProcess,
  waitForCommittedAtEnd,
  waitForEvents,
} from '../../support/service-harness.ts';

const run = promisify(execFile);

void test('HBase REST with its own TLS (hbase.rest.ssl.*): the service and the CLI over HTTPS with hbase.tls.caFile; a wrong CA or server name names hbase.tls; no client certificate required', async (t) => {
  const h = await createHarness(t, { prefix: 'rtls' });
  const dir = mkdtempSync(join(tmpdir(), 'tsi-rtls-'));
  h.defer(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const certs = makeTestCerts(join(dir, 'certs'));
  const otherCa = makeTestCerts(join(dir, 'other-certs')).caFile;
  const tls = restTlsSite(certs, join(dir, 'stores'));
  const gw = await startRestGateway({ dir: join(dir, 'gateway'), site: tls.site, scheme: 'https', ready: httpsRestAnswers(certs.caFile) });
  h.defer(() => gw.stop());
  assert.match(gw.url, /^https:\/\//);
  const direct = (caFile: string): string[] => [`hbase.restUrl=${gw.url}`, `hbase.tls.caFile=${caFile}`];

  await t.test('the service writes and reads over HTTPS straight to the gateway', async () => {
    const events = makeEvents(300);
    const group = uniqueName('it-rtls-g');
    await produceEvents(h, events);
    const svc = await startInProcess(h, [`kafka.groupId=${group}`, 'http.port=0', ...direct(certs.caFile)]);
    await waitForEvents(svc, events.length);
    await waitForCommittedAtEnd(h, group);
    assert.equal(await countDataCells(h), events.length);
    const id = events[0]?.id ?? '';
    const res = await fetch(`http://127.0.0.1:${svc.httpPort}/api/v1/ids/${encodeURIComponent(id)}/latest?limit=2`);
    const body = await res.text();
    assert.equal(res.status, 200, body);
    assert.ok(body.includes(id), `the read API answered with ${id} through the HTTPS gateway: ${body.slice(0, 300)}`);
    await svc.stop('test');
  });

  await t.test('tsingest tables check over HTTPS', async () => {
    const sets = [...h.baseSets, ...direct(certs.caFile)].flatMap((s) => ['--set', s]);
    const { stdout } = await run(NODE_BIN, ['src/cli.ts', 'tables', 'check', ...sets], { cwd: REPO_ROOT, env: process.env });
    assert.match(stdout, /tables match the configuration/);
  });

  await t.test('a CA that did not sign the gateway certificate: the start and tables check fail naming hbase.tls', async () => {
    await assert.rejects(startInProcess(h, [`kafka.groupId=${uniqueName('it-rtls-ca')}`, 'http.port=0', ...direct(otherCa)]), (e: unknown) => {
      const m = e instanceof Error ? e.message : String(e);
      assert.match(m, /hbase\.tls/, m);
      assert.match(m, /certificate/i, m);
      return true;
    });
    const sets = [...h.baseSets, ...direct(otherCa)].flatMap((s) => ['--set', s]);
    await assert.rejects(run(NODE_BIN, ['src/cli.ts', 'tables', 'check', ...sets], { cwd: REPO_ROOT, env: process.env }), (e: unknown) => {
      const r = e as { code?: unknown; stderr?: unknown };
      assert.equal(r.code, 1);
      assert.match(String(r.stderr), /tsingest: TLS to the HBase REST gateway failed: check hbase\.tls/, String(r.stderr));
      return true;
    });
  });

  await t.test('a server name the certificate does not carry: the start fails naming hbase.tls', async () => {
    const sets = [`kafka.groupId=${uniqueName('it-rtls-sn')}`, 'http.port=0', ...direct(certs.caFile), 'hbase.tls.serverName=not-the-gateway.example'];
    await assert.rejects(startInProcess(h, sets), (e: unknown) => {
      const m = e instanceof Error ? e.message : String(e);
      assert.match(m, /hbase\.tls/, m);
      assert.match(m, /not-the-gateway\.example/, m);
      return true;
    });
  });

  await t.test('no mutual TLS: with a truststore configured, a client without a certificate is still served', async () => {
    assert.ok(tls.site['hbase.rest.ssl.truststore.store'] !== undefined);
    const dispatcher = new Agent({ connect: { ca: readFileSync(certs.caFile) } });
    try {
      const res = await request(`${gw.url}/version/cluster`, { dispatcher, headers: { accept: 'text/plain' } });
      const body = await res.body.text();
      assert.equal(res.statusCode, 200, body);
      assert.match(body.trim(), /^\d+\.\d+\.\d+/);
    } finally {
      await dispatcher.close();
    }
  });
});
