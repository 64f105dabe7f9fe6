// The service behind an authenticating TLS proxy (Debian's nginx in front of the real REST gateway,
// the way Apache Knox is deployed): every write and read goes over HTTPS with a test CA and Basic
// credentials from a file. When the proxy stops taking the credentials mid-stream, writes are retried,
// the service turns not ready naming hbase.auth, and nothing past the refused writes is committed;
// once the credentials are taken again every event is written exactly once. A wrong password at
// start is refused before anything is consumed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { uniqueName } from '../../support/env.ts';
import { startNginxProxy, type NginxProxy } from '../../support/nginx.ts';
import { makeTestCerts, type TestCerts } from '../../support/tls.ts';
import {
  countDataCells,
  createHarness,
  makeEvents,
  offsets,
  produceEvents,
  readyzStatus,
  startInProcess,
  waitFor,
  waitForCommittedAtEnd,
  waitForEvents,
  type Harness,
} from '../../support/service-harness.ts';

interface Setup {
  readonly h: Harness;
  readonly proxy: NginxProxy;
  readonly certs: TestCerts;
  readonly password: string;
  readonly passwordFile: (pw: string) => string;
}

async function setup(t: { after(fn: () => Promise<void>): void }, prefix: string): Promise<Setup> {
  const h = await createHarness(t, { prefix });
  const dir = mkdtempSync(join(tmpdir(), `tsi-${prefix}-`));
  h.defer(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const certs = makeTestCerts(join(dir, 'certs'));
  const password = randomBytes(12).toString('base64url');
  const proxy = await startNginxProxy({ upstream: h.env.restUrl, certs, basicAuth: { user: 'ingest', password }, dir: join(dir, 'nginx') });
  h.defer(() => proxy.stop());
  let n = 0;
  const passwordFile = (pw: string): string => {
    const f = join(dir, `password-${++n}`);
    writeFileSync(f, `${pw}\n`);
    return f;
  };
  return { h, proxy, certs, password, passwordFile };
}

const through = (s: Setup, pw: string): string[] => [
  `hbase.restUrl=${s.proxy.url}`,
  `hbase.tls.caFile=${s.certs.caFile}`,
  'hbase.auth.type=basic',
  'hbase.auth.username=ingest',
  `hbase.auth.passwordFile=${s.passwordFile(pw)}`,
];

const committedTotal = async (h: Harness, group: string): Promise<bigint> =>
  Object.values((await offsets(h, group)).committed).reduce((a, b) => a + (b < 0n ? 0n : b), 0n);

void test('through nginx (TLS + Basic): written and read; credentials refused mid-stream → not ready, nothing committed past them; taken again → all exactly once', async (t) => {
  const s = await setup(t, 'kauth');
  const { h } = s;
  const events = makeEvents(1000);
  const group = uniqueName('it-kauth-g');
  const svc = await startInProcess(h, [
    `kafka.groupId=${group}`,
    'http.port=0',
    'hbase.outageDeadlineMs=2000',
    'hbase.retryMaxMs=500',
    ...through(s, s.password),
  ]);
  await produceEvents(h, events.slice(0, 500));
  await waitForEvents(svc, 500);
  await waitForCommittedAtEnd(h, group);
  assert.equal(await countDataCells(h), 500);
  assert.equal(await readyzStatus(svc.httpPort), 200);
  // the read API's client goes through the proxy too
  const id = events[0]?.id ?? '';
  const res = await fetch(`http://127.0.0.1:${svc.httpPort}/api/v1/ids/${encodeURIComponent(id)}/latest?limit=1`);
  assert.equal(res.status, 200, `read API through the proxy: ${await res.clone().text()}`);

  s.proxy.setBasicAuth('ingest', `${s.password}-rotated`); // the secret rotated on the proxy side only
  await produceEvents(h, events.slice(500));
  await waitFor('/readyz 503 while the credentials are refused', 60_000, async () => (await readyzStatus(svc.httpPort)) === 503, 250);
  assert.match(svc.lifecycle.reason, /refused the credentials \(hbase\.auth/, svc.lifecycle.reason);
  assert.equal(await committedTotal(h, group), 500n, 'nothing committed past the refused writes');

  s.proxy.setBasicAuth('ingest', s.password); // fixed
  await waitFor('/readyz 200 once the credentials are taken again', 60_000, async () => (await readyzStatus(svc.httpPort)) === 200, 250);
  await waitForCommittedAtEnd(h, group);
  assert.equal(await countDataCells(h), events.length, 'every event exactly once');
});

void test('a wrong password at start: the service does not start, names hbase.auth, and consumes nothing', async (t) => {
  const s = await setup(t, 'kauthbad');
  const { h } = s;
  const group = uniqueName('it-kauthbad-g');
  await produceEvents(h, makeEvents(50));
  await assert.rejects(startInProcess(h, [`kafka.groupId=${group}`, 'http.port=0', ...through(s, 'not-the-password')]), (e: unknown) => {
    const m = e instanceof Error ? e.message : String(e);
    assert.match(m, /hbase\.auth/);
    assert.ok(!m.includes('not-the-password'), 'the password is not in the error');
    return true;
  });
  assert.equal(await committedTotal(h, group), 0n);
  assert.equal(await countDataCells(h), 0);
});
