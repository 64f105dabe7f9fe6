// SpnegoTransport on a scripted gateway (AuthenticationFilter's rules, no Kerberos): one handshake,
// then the hadoop.auth cookie; negotiate again before the cookie expires or after a 401 with a
// cookie; concurrent first requests share one handshake; a token failure reaches the caller as is.
// The real thing (a KDC and HBase's Kerberos gateway) is test/integration/hbase/spnego.local.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HBaseError, SpnegoTransport, authCookie } from '../../../src/hbase/index.ts';
import type { HttpRequest, HttpResponse, HttpTransport } from '../../../src/hbase/index.ts';
import { gssServiceName } from '../../../src/hbase/kerberos-gss.ts';

const cookieFor = (expiresAt: number, sig = 'c2ln'): string => `hadoop.auth="u=client&p=client@TSI.TEST&t=kerberos&e=${expiresAt}&s=${sig}="; Path=/; HttpOnly`;

/** A gateway that wants `Negotiate tok-N` or the current cookie; `secret` changes on a "restart". */
class ScriptedGateway implements HttpTransport {
  readonly seen: HttpRequest[] = [];
  secret = 'one';
  validityMs = 10_000;
  now = 1_000_000;
  rejectTokens = false;
  async request(req: HttpRequest): Promise<HttpResponse> {
    this.seen.push(req);
    await Promise.resolve();
    const auth = req.headers['authorization'];
    const cookie = req.headers['cookie'];
    const e = /e=(\d+)&s=(\w+)/.exec(cookie ?? '');
    if (e !== null && e[2] === this.secret && Number(e[1]) > this.now) return { status: 200, headers: {}, body: Buffer.from('ok') };
    if (auth?.startsWith('Negotiate ') === true) {
      if (this.rejectTokens) return { status: 403, headers: {}, body: Buffer.from('GSSException') };
      return {
        status: 200,
        headers: { 'www-authenticate': 'Negotiate bXV0dWFs', 'set-cookie': cookieFor(this.now + this.validityMs, this.secret) },
        body: Buffer.from('ok'),
      };
    }
    return {
      status: 401,
      headers: { 'www-authenticate': 'Negotiate', 'set-cookie': 'hadoop.auth=; Path=/; Expires=Thu, 01-Jan-1970 00:00:00 GMT' },
      body: Buffer.alloc(0),
    };
  }
  async close(): Promise<void> {
    /* nothing */
  }
}

function setup(): { gw: ScriptedGateway; spnego: SpnegoTransport; tokens: () => number } {
  const gw = new ScriptedGateway();
  let n = 0;
  const spnego = new SpnegoTransport(gw, {
    token: () => {
      n += 1;
      return Promise.resolve(`tok-${n}`);
    },
    renewBeforeMs: 1000,
    now: () => gw.now,
  });
  return { gw, spnego, tokens: () => n };
}

const get = (path = '/t/r'): HttpRequest => ({ method: 'GET', path, headers: { accept: 'application/json' }, deadlineMs: 1000 });

void test('one Negotiate, then the cookie on every later request', async () => {
  const { gw, spnego, tokens } = setup();
  for (let i = 0; i < 5; i++) assert.equal((await spnego.request(get())).status, 200);
  assert.equal(tokens(), 1);
  assert.equal(spnego.negotiations, 1);
  const first = gw.seen[0];
  assert.ok(first !== undefined);
  assert.equal(first.headers['authorization'], 'Negotiate tok-1');
  assert.equal(first.headers['accept'], 'application/json', "the request's own headers are kept");
  for (const r of gw.seen.slice(1)) {
    assert.equal(r.headers['authorization'], undefined);
    assert.match(r.headers['cookie'] ?? '', /^hadoop\.auth="u=client&p=client@TSI\.TEST&t=kerberos&e=\d+&s=one="$/);
  }
  assert.equal(gw.seen.length, 5, 'no extra round trip: the first request carries the token');
});

void test('negotiates again shortly before the cookie expires, without a 401 first', async () => {
  const { gw, spnego, tokens } = setup();
  await spnego.request(get());
  gw.now += gw.validityMs - 500; // inside renewBeforeMs (1 s)
  assert.equal((await spnego.request(get())).status, 200);
  assert.equal(tokens(), 2);
  assert.equal(gw.seen.length, 2);
});

void test('a short-lived cookie is renewed a tenth of its lifetime before it expires, not renewBeforeMs', async () => {
  const { gw, spnego, tokens } = setup();
  gw.validityMs = 2000; // renewBeforeMs is 1000: that would renew half-way
  await spnego.request(get());
  gw.now += 1500;
  await spnego.request(get());
  assert.equal(tokens(), 1);
  gw.now += 350; // 150 ms before expiry, inside the last tenth
  await spnego.request(get());
  assert.equal(tokens(), 2);
});

void test('a 401 to the cookie (gateway restarted with a new secret) → one new handshake, the request sent again with its body', async () => {
  const { gw, spnego, tokens } = setup();
  await spnego.request(get());
  gw.secret = 'two';
  const put: HttpRequest = {
    method: 'PUT',
    path: '/t/r',
    headers: { 'content-type': 'application/x-protobuf' },
    body: Buffer.from([1, 2, 3]),
    deadlineMs: 1000,
  };
  assert.equal((await spnego.request(put)).status, 200);
  assert.equal(tokens(), 2);
  const [, refused, again] = gw.seen;
  assert.ok(refused?.headers['cookie'] !== undefined && again?.headers['authorization'] === 'Negotiate tok-2');
  assert.deepEqual(again.body, Buffer.from([1, 2, 3]));
  assert.equal((await spnego.request(get())).status, 200);
  assert.equal(tokens(), 2, 'the new cookie is used after that');
});

void test('concurrent first requests share one handshake', async () => {
  const { spnego, tokens } = setup();
  const res = await Promise.all(Array.from({ length: 8 }, () => spnego.request(get())));
  assert.deepEqual(
    res.map((r) => r.status),
    Array(8).fill(200),
  );
  assert.equal(tokens(), 1);
});

void test('a refused token (403) and a token that cannot be made reach the caller; nothing is cached', async () => {
  const { gw, spnego, tokens } = setup();
  gw.rejectTokens = true;
  assert.equal((await spnego.request(get())).status, 403);
  assert.equal((await spnego.request(get())).status, 403);
  assert.equal(tokens(), 2, 'without a cookie every request negotiates');
  const noTicket = new HBaseError({ code: 'HBASE_UNAUTHORIZED', message: 'SPNEGO: no Kerberos token for HTTP@gw (hbase.auth …)' });
  const failing = new SpnegoTransport(gw, { token: () => Promise.reject(noTicket) });
  await assert.rejects(failing.request(get()), (e: unknown) => e === noTicket);
  assert.equal(failing.negotiations, 0);
});

void test('authCookie reads the hadoop.auth cookie, its expiry, and a cleared one', () => {
  const res = (setCookie: string | string[]): HttpResponse => ({ status: 200, headers: { 'set-cookie': setCookie }, body: Buffer.alloc(0) });
  assert.deepEqual(authCookie(res(['JSESSIONID=x; Path=/', cookieFor(1234)])), {
    header: 'hadoop.auth="u=client&p=client@TSI.TEST&t=kerberos&e=1234&s=c2ln="',
    expiresAt: 1234,
  });
  assert.equal(authCookie(res('hadoop.auth=; Path=/; Expires=Thu, 01-Jan-1970 00:00:00 GMT')), null);
  assert.equal(authCookie({ status: 200, headers: {}, body: Buffer.alloc(0) }), undefined);
});

void test('gssServiceName: HTTP/host@REALM and HTTP/host become HTTP@host', () => {
  assert.equal(gssServiceName('HTTP/rest.example@EXAMPLE.COM'), 'HTTP@rest.example');
  assert.equal(gssServiceName('HTTP/localhost'), 'HTTP@localhost');
  assert.equal(gssServiceName('HTTP@localhost'), 'HTTP@localhost');
});
