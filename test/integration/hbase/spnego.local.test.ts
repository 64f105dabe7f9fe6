// SPNEGO against a real KDC (MIT krb5kdc, test/support/kdc.ts) and HBase's own REST gateway with
// Kerberos authentication (test/support/kerberos-gateway.ts; the shared cluster behind it stays
// insecure). Its hadoop.auth cookie lives 5 s here, so that renewal and a ticket lost at run time
// show up within the test. Checked: no credentials → 401 Negotiate and errors naming hbase.auth; a
// ticket the gateway cannot read → refused, named; with a ticket (ticket cache or client keytab) the
// client works with ONE handshake per cookie; the real service consumes from Kafka and writes through
// SPNEGO, turns not ready naming hbase.auth while its ticket is gone (nothing committed past the
// refused writes) and writes every event exactly once after kinit.
// `.local.test.ts`: the gateway is a process of this test against the local stack's ZooKeeper.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HBaseError, HBaseRestClient, SpnegoTransport, UndiciTransport, authCookie, kerberosToken } from '../../../src/hbase/index.ts';
import type { HttpRequest, HttpResponse, HttpTransport } from '../../../src/hbase/index.ts';
import { loadConfig } from '../../../src/runtime/config.ts';
import { createHBaseClient } from '../../../src/service/clients.ts';
import { deferrer, uniqueName } from '../../support/env.ts';
import { startKdc } from '../../support/kdc.ts';
import { asksToNegotiate, startKerberosGateway } from '../../support/kerberos-gateway.ts';
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
} from '../../support/service-harness.ts';

/** What went over the wire below the decorator: credentials sent, status, the cookie's expiry. */
class Wire implements HttpTransport {
  readonly log: { sent: 'negotiate' | 'cookie' | 'none'; at: number; status: number; cookieExpires?: number }[] = [];
  readonly #inner: HttpTransport;
  constructor(inner: HttpTransport) {
    this.#inner = inner;
  }
  async request(req: HttpRequest): Promise<HttpResponse> {
    const at = Date.now();
    const sent = req.headers['authorization']?.startsWith('Negotiate ') === true ? 'negotiate' : req.headers['cookie'] === undefined ? 'none' : 'cookie';
    const res = await this.#inner.request(req);
    const c = authCookie(res);
    this.log.push({ sent, at, status: res.status, ...(c === undefined || c === null ? {} : { cookieExpires: c.expiresAt }) });
    return res;
  }
  close(): Promise<void> {
    return this.#inner.close();
  }
}

const forbidden =
  (re: RegExp) =>
  (e: unknown): boolean =>
    e instanceof HBaseError && (e.code === 'HBASE_UNAUTHORIZED' || e.code === 'HBASE_FORBIDDEN') && re.test(e.message);

void test('SPNEGO to a Kerberos REST gateway: refusals named, one handshake per cookie, the service end to end', async (t) => {
  const defer = deferrer(t);
  const dir = mkdtempSync(join(tmpdir(), 'tsi-spnego-'));
  defer(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const kdc = await startKdc({ dir: join(dir, 'kdc') });
  defer(() => kdc.stop());
  const gw = await startKerberosGateway({ kdc, dir: join(dir, 'gw'), cookieValiditySec: 5 });
  defer(() => gw.stop());
  const keytab = kdc.addPrincipal('ingest');
  const ccacheFile = join(dir, 'ingest.ccache');
  // The Kerberos environment of this process (the library reads it at every token).
  const saved = { ...process.env };
  defer(() => {
    for (const k of ['KRB5_CONFIG', 'KRB5CCNAME', 'KRB5_CLIENT_KTNAME'] as const) {
      const v = saved[k];
      if (v === undefined) Reflect.deleteProperty(process.env, k);
      else process.env[k] = v;
    }
  });
  process.env['KRB5_CONFIG'] = kdc.krb5Conf;
  process.env['KRB5CCNAME'] = `FILE:${ccacheFile}`; // empty until kinit
  delete process.env['KRB5_CLIENT_KTNAME'];
  const spnegoSets = [`hbase.restUrl=${gw.url}`, 'hbase.auth.type=spnego', 'hbase.auth.servicePrincipal=HTTP/localhost'];
  const configured = (extra: readonly string[] = []): HBaseRestClient => {
    const c = createHBaseClient(loadConfig({ env: {}, sets: [...spnegoSets, 'hbase.requestDeadlineMs=20000', ...extra] }), 'tool');
    defer(() => c.close());
    return c;
  };

  await t.test('no credentials: 401 Negotiate from the gateway; the client names hbase.auth', async () => {
    assert.ok(await asksToNegotiate(gw.url), 'a request without credentials gets 401 with WWW-Authenticate: Negotiate');
    const plain = new HBaseRestClient({ baseUrl: gw.url, defaultDeadlineMs: 20_000 });
    defer(() => plain.close());
    await assert.rejects(plain.version(), forbidden(/HTTP 401 .*none sent: hbase\.auth/));
    await assert.rejects(configured().version(), forbidden(/SPNEGO: no Kerberos token for HTTP@localhost \(hbase\.auth: a ticket in KRB5CCNAME/));
  });

  await t.test('a ticket for a principal the gateway has no key for: refused by the gateway, named', async () => {
    kdc.addPrincipal('HTTP/elsewhere');
    kdc.kinit('ingest', keytab, ccacheFile);
    await assert.rejects(configured(['hbase.auth.servicePrincipal=HTTP/elsewhere']).version(), forbidden(/HTTP 403 .*hbase\.auth/));
  });

  await t.test('with a ticket: one handshake, then the cookie; a new one only once the cookie expired; a client keytab works too', async () => {
    kdc.kinit('ingest', keytab, ccacheFile);
    const wire = new Wire(new UndiciTransport({ origin: gw.url, connections: 2 }));
    const spnego = new SpnegoTransport(wire, { token: kerberosToken('HTTP@localhost') });
    const client = new HBaseRestClient({ baseUrl: gw.url, transport: spnego, defaultDeadlineMs: 20_000 });
    defer(() => spnego.close());
    const table = uniqueName('it_spnego');
    await client.createTable({ name: table, families: [{ name: 'f' }] });
    defer(() => client.deleteTable(table));
    const rows = Array.from({ length: 10 }, (_, i) => Buffer.from(`row-${i}`));
    for (const row of rows) await client.put(table, [{ row, cells: [{ column: Buffer.from('f:q'), value: row }] }]);
    for (const row of rows) assert.deepEqual((await client.get(table, row))?.cells[0]?.value, row);
    let scanned = 0;
    for await (const r of client.scan(table)) scanned += r.cells.length;
    assert.equal(scanned, rows.length);

    assert.equal(wire.log[0]?.sent, 'negotiate', 'the first request carries the token (no 401 round trip)');
    assert.deepEqual(
      wire.log.filter((e) => e.status === 401 || e.sent === 'none'),
      [],
      'no request went without credentials or was refused',
    );
    // A new token only when the cookie in hand was (nearly) expired, never while it was good.
    let expires = Number.NEGATIVE_INFINITY;
    for (const e of wire.log) {
      if (e.sent === 'negotiate') assert.ok(e.at >= expires - 1000, `negotiated at ${e.at} with a cookie good until ${expires}`);
      if (e.cookieExpires !== undefined) expires = e.cookieExpires;
    }
    const cookieRequests = wire.log.filter((e) => e.sent === 'cookie').length;
    assert.ok(cookieRequests > spnego.negotiations, `${cookieRequests} requests with the cookie, ${spnego.negotiations} handshakes`);
    // Past the cookie's expiry the next request negotiates by itself instead of meeting a 401.
    const before = spnego.negotiations;
    await waitFor('the hadoop.auth cookie to expire', 15_000, () => Date.now() > expires + 100, 100);
    await client.version();
    assert.equal(spnego.negotiations, before + 1);
    assert.equal(wire.log.at(-1)?.sent, 'negotiate');
    assert.equal(wire.log.at(-1)?.status, 200);

    kdc.kdestroy(ccacheFile);
    process.env['KRB5_CLIENT_KTNAME'] = keytab; // a keytab from a Secret, no kinit: MIT gets the ticket itself
    try {
      assert.match(await configured().version(), /^2\./);
    } finally {
      delete process.env['KRB5_CLIENT_KTNAME'];
    }
  });

  await t.test(
    'the service: start refused without a ticket; written through SPNEGO; ticket gone → not ready, nothing committed past it; kinit → all exactly once',
    async (st) => {
      const h = await createHarness(st, { prefix: 'spnego' });
      const group = uniqueName('it-spnego-g');
      const sets = [
        `kafka.groupId=${group}`,
        'http.port=0',
        ...spnegoSets,
        'hbase.outageDeadlineMs=2000',
        'hbase.retryMaxMs=500',
        'hbase.requestDeadlineMs=20000',
      ];
      const committed = async (): Promise<bigint> => Object.values((await offsets(h, group)).committed).reduce((a, b) => a + (b < 0n ? 0n : b), 0n);
      const events = makeEvents(400);
      await produceEvents(h, events.slice(0, 200));

      kdc.kdestroy(ccacheFile);
      await assert.rejects(startInProcess(h, sets), /hbase\.auth/);
      assert.equal(await committed(), 0n, 'nothing consumed');

      kdc.kinit('ingest', keytab, ccacheFile);
      const svc = await startInProcess(h, sets);
      await waitForEvents(svc, 200);
      await waitForCommittedAtEnd(h, group);
      assert.equal(await countDataCells(h), 200);
      assert.equal(await readyzStatus(svc.httpPort), 200);
      const id = encodeURIComponent(events[0]?.id ?? '');
      const read = await fetch(`http://127.0.0.1:${svc.httpPort}/api/v1/ids/${id}/latest?limit=1`);
      assert.equal(read.status, 200, `the read API through SPNEGO: ${await read.clone().text()}`);

      // The ticket is gone. Once the cookies the service holds have expired (they live 5 s), its next
      // handshake fails: only then are the next events produced, so none can slip through on a cookie.
      kdc.kdestroy(ccacheFile);
      const gone = Date.now();
      await waitFor('every cookie issued before kdestroy to expire', 10_000, () => Date.now() > gone + 5_500, 100);
      await produceEvents(h, events.slice(200));
      await waitFor('/readyz 503 while there is no ticket', 60_000, async () => (await readyzStatus(svc.httpPort)) === 503, 250);
      assert.match(svc.lifecycle.reason, /refused the credentials \(hbase\.auth/, svc.lifecycle.reason);
      assert.equal(await committed(), 200n, 'nothing committed past the refused writes');

      kdc.kinit('ingest', keytab, ccacheFile);
      await waitFor('/readyz 200 after kinit', 60_000, async () => (await readyzStatus(svc.httpPort)) === 200, 250);
      await waitForCommittedAtEnd(h, group);
      assert.equal(await countDataCells(h), events.length, 'every event exactly once');
    },
  );
});
