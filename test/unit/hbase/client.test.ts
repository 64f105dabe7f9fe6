// Request shaping of HBaseRestClient against a scripted fake HttpTransport.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HBaseError, HBaseRestClient, column, encodeCellSet, encodeCellSetProto } from '../../../src/hbase/index.ts';
import type { HttpRequest, HttpResponse, HttpTransport, WireRow } from '../../../src/hbase/index.ts';

type Handler = (req: HttpRequest) => Partial<HttpResponse> & { status: number };

class FakeTransport implements HttpTransport {
  readonly requests: HttpRequest[] = [];
  closed = false;
  readonly #handler: Handler;
  constructor(handler: Handler) {
    this.#handler = handler;
  }
  request(req: HttpRequest): Promise<HttpResponse> {
    this.requests.push(req);
    const r = this.#handler(req);
    return Promise.resolve({ headers: {}, body: Buffer.alloc(0), ...r });
  }
  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}

function client(
  handler: Handler,
  extra: { namespace?: string; baseUrl?: string; putEncoding?: 'json' | 'protobuf' } = {},
): { c: HBaseRestClient; fake: FakeTransport } {
  const fake = new FakeTransport(handler);
  const c = new HBaseRestClient({
    baseUrl: extra.baseUrl ?? 'http://gw:8080',
    transport: fake,
    defaultDeadlineMs: 1234,
    ...(extra.namespace === undefined ? {} : { namespace: extra.namespace }),
    ...(extra.putEncoding === undefined ? {} : { putEncoding: extra.putEncoding }),
  });
  return { c, fake };
}

const ROW = Buffer.from([0x00, 0xff]);
const COL = column('cf', 'a');
const json = (s: string): Buffer => Buffer.from(s);

test("put sends one protobuf CellSet PUT by default (the encoder's bytes, x-protobuf content type)", async () => {
  const { c, fake } = client(() => ({ status: 200 }));
  const rows = [{ row: ROW, cells: [{ column: COL, value: Buffer.from('v'), timestamp: 5 }] }];
  await c.put('t', rows);
  const [req] = fake.requests;
  assert.ok(req);
  assert.equal(req.path, '/t/fakerow');
  assert.equal(req.headers['content-type'], 'application/x-protobuf');
  assert.ok(Buffer.isBuffer(req.body) && req.body.equals(encodeCellSetProto(rows)));
});

test('put with putEncoding json sends one CellSet PUT to /<table>/fakerow with JSON headers and the default deadline', async () => {
  const { c, fake } = client(() => ({ status: 200 }), { putEncoding: 'json' });
  await c.put('t', [
    { row: ROW, cells: [{ column: COL, value: Buffer.from('v'), timestamp: 5 }] },
    { row: Buffer.from('b'), cells: [{ column: COL, value: Buffer.alloc(0) }] },
  ]);
  const [req] = fake.requests;
  assert.ok(req);
  assert.equal(req.method, 'PUT');
  assert.equal(req.path, '/t/fakerow');
  assert.equal(req.deadlineMs, 1234);
  assert.equal(req.headers['content-type'], 'application/json');
  assert.equal(req.headers['accept'], 'application/json');
  assert.deepEqual(JSON.parse(String(req.body)), {
    Row: [
      { key: 'AP8=', Cell: [{ column: 'Y2Y6YQ==', timestamp: 5, $: 'dg==' }] },
      { key: 'Yg==', Cell: [{ column: 'Y2Y6YQ==', $: '' }] },
    ],
  });
  await c.put('t', []);
  assert.equal(fake.requests.length, 1);
});

test('get builds the e=b64 row spec, honours namespace, base path and per-call deadline; 404 → null', async () => {
  const { c, fake } = client(
    (req) =>
      req.path.includes('AP8')
        ? { status: 200, body: json(encodeCellSet([{ row: ROW, cells: [{ column: COL, value: Buffer.from('x'), timestamp: 3 }] }])) }
        : { status: 404, body: json('Not found') },
    { namespace: 'ns', baseUrl: 'http://gw:8080/hbase/' },
  );
  const row = await c.get('t', ROW, { columns: [COL], timeRange: { from: 1, to: 10 }, maxVersions: 2, deadlineMs: 50 });
  assert.deepEqual(row?.cells[0]?.value, Buffer.from('x'));
  assert.equal(fake.requests[0]?.path, '/hbase/ns:t/AP8/Y2Y6YQ/1,10?e=b64&v=2');
  assert.equal(fake.requests[0].deadlineMs, 50);
  assert.equal(await c.get('other:t', Buffer.from('zz')), null);
  assert.equal(fake.requests[1]?.path, '/hbase/other:t/eno?e=b64');
});

test('errors carry code, retriable, status, op and table', async () => {
  const { c } = client(() => ({ status: 503, body: json('Unavailable\r\njava.io.IOException: x\n\tat a.b(C.java:1)') }));
  await assert.rejects(c.put('t', [{ row: ROW, cells: [{ column: COL, value: ROW }] }]), (e: unknown) => {
    assert.ok(e instanceof HBaseError);
    assert.equal(e.code, 'HBASE_UNAVAILABLE');
    assert.equal(e.retriable, true);
    assert.equal(e.status, 503);
    assert.equal(e.op, 'put');
    assert.equal(e.table, 't');
    assert.match(e.message, /put on table 't'.*HTTP 503.*IOException: x/);
    assert.doesNotMatch(e.message, /at a\.b/);
    return true;
  });
  await assert.rejects(c.get('bad/name', ROW), (e: unknown) => e instanceof HBaseError && e.code === 'HBASE_INVALID_ARGUMENT');
  await assert.rejects(c.get('t', Buffer.alloc(0)), (e: unknown) => e instanceof HBaseError && e.code === 'HBASE_INVALID_ARGUMENT');
});

test('checkAndPut / checkAndDelete: PUT with check=…, check cell last, 304 → false', async () => {
  let status = 200;
  const { c, fake } = client(() => ({ status }));
  const put = [{ column: COL, value: Buffer.from('new') }];
  assert.equal(await c.checkAndPut('t', { row: ROW, cells: put, check: { column: COL, value: Buffer.from('old') } }), true);
  status = 304;
  assert.equal(await c.checkAndDelete('t', { row: ROW, check: { column: COL, value: null }, deleteCells: [{ column: Buffer.from('m') }] }), false);
  const [p, d] = fake.requests;
  assert.equal(p?.method, 'PUT');
  assert.equal(p.path, '/t/AP8?e=b64&check=put');
  assert.deepEqual(JSON.parse(String(p.body)), {
    Row: [
      {
        key: 'AP8=',
        Cell: [
          { column: 'Y2Y6YQ==', $: 'bmV3' },
          { column: 'Y2Y6YQ==', $: 'b2xk' },
        ],
      },
    ],
  });
  assert.equal(d?.method, 'PUT');
  assert.equal(d.path, '/t/AP8?e=b64&check=delete');
  assert.deepEqual(JSON.parse(String(d.body)), { Row: [{ key: 'AP8=', Cell: [{ column: 'bQ==' }, { column: 'Y2Y6YQ==', $: '' }] }] });
  await assert.rejects(
    c.checkAndPut('t', { row: ROW, cells: [{ column: column('cf', 'b'), value: ROW }], check: { column: COL, value: ROW } }),
    (e: unknown) => e instanceof HBaseError && e.code === 'HBASE_INVALID_ARGUMENT' && e.op === 'checkAndPut',
  );
  assert.equal(fake.requests.length, 2);
});

test('multiGet splits by URL length, aligns results, tolerates 404 chunks', async () => {
  const keys = ['a', 'b', 'c', 'd', 'e'].map((k) => Buffer.from(k));
  const { c, fake } = client((req) => {
    const found = keys.filter((k) => req.path.includes(`row=${k.toString('base64url')}&`) || req.path.endsWith(`row=${k.toString('base64url')}`));
    const present = found.filter((k) => k.toString() !== 'c' && k.toString() !== 'd');
    if (present.length === 0) return { status: 404, body: json('No rows found.') };
    return { status: 200, body: json(encodeCellSet(present.map((k) => ({ row: k, cells: [{ column: COL, value: k, timestamp: 1 }] })))) };
  });
  const res = await c.multiGet('t', keys, { maxUrlLength: 40 });
  assert.deepEqual(
    res.map((r) => r?.cells[0]?.value.toString() ?? null),
    ['a', 'b', null, null, 'e'],
  );
  assert.ok(fake.requests.length > 1);
  for (const r of fake.requests) assert.match(r.path, /^\/t\/multiget\?e=b64(&row=[A-Za-z0-9_-]+)+$/);
  assert.deepEqual(await c.multiGet('t', []), []);
});

function scannerFake(pages: (string | number)[]): { c: HBaseRestClient; fake: FakeTransport } {
  let i = 0;
  return client((req) => {
    if (req.method === 'PUT') return { status: 201, headers: { location: 'http://elsewhere:9/t/scanner/17953abc' } };
    if (req.method === 'DELETE') return { status: 200 };
    const p = pages[i++] ?? 204;
    return typeof p === 'number' ? { status: p, body: json(p === 503 ? 'Unavailable' : '') } : { status: 200, body: json(p) };
  });
}

const page = (...rows: [string, string][]): string =>
  encodeCellSet(rows.map(([k, q]) => ({ row: Buffer.from(k), cells: [{ column: column('cf', q), value: Buffer.from(q), timestamp: 1 }] })));

test('scan merges rows split across pages and deletes the scanner after 204', async () => {
  // batch 2: the gateway cuts each response at 2 cells, here in the middle of r2
  const { c, fake } = scannerFake([page(['r1', 'a'], ['r2', 'a']), page(['r2', 'b'], ['r3', 'a']), 204]);
  const rows = [];
  for await (const r of c.scan('t', { startRow: Buffer.from('r'), filter: { type: 'KeyOnlyFilter' }, batch: 2 })) rows.push(r);
  assert.deepEqual(
    rows.map((r) => [r.row.toString(), r.cells.map((x) => x.qualifier.toString()).join('')]),
    [
      ['r1', 'a'],
      ['r2', 'ab'],
      ['r3', 'a'],
    ],
  );
  const [open] = fake.requests;
  assert.equal(open?.path, '/t/scanner');
  assert.deepEqual(JSON.parse(String(open.body)), { startRow: 'cg==', batch: 2, maxVersions: 1, filter: '{"type":"KeyOnlyFilter"}' });
  assert.deepEqual(
    fake.requests.slice(1).map((r) => `${r.method} ${r.path}`),
    ['GET /t/scanner/17953abc', 'GET /t/scanner/17953abc', 'GET /t/scanner/17953abc', 'DELETE /t/scanner/17953abc'],
  );
});

test('a page with fewer cells than batch ends on a whole row; with fewer rows than asked too, it is the last (no 204 asked)', async () => {
  const cells = (k: string, ...qs: string[]): WireRow => ({
    row: Buffer.from(k),
    cells: qs.map((q) => ({ column: column('cf', q), value: Buffer.from(q), timestamp: 1 })),
  });
  // no ?n=: a page under the cell cap is the end of the scan
  const last = scannerFake([encodeCellSet([cells('r1', 'a', 'b'), cells('r2', 'a')]), page(['r9', 'a'])]);
  const got = [];
  for await (const r of last.c.scan('t', { batch: 4 })) got.push(`${r.row.toString()}:${r.cells.length}`);
  assert.deepEqual(got, ['r1:2', 'r2:1']);
  assert.deepEqual(
    last.fake.requests.map((r) => r.method),
    ['PUT', 'GET', 'DELETE'],
  );
  // ?n=2 answered with 2 whole rows: not the end; the next, shorter page is
  const paged = scannerFake([page(['r1', 'a'], ['r2', 'a']), page(['r3', 'a']), page(['r9', 'a'])]);
  const rows = [];
  for await (const r of paged.c.scan('t', { pageRows: 2, stateful: true })) rows.push(r.row.toString());
  assert.deepEqual(rows, ['r1', 'r2', 'r3']);
  assert.deepEqual(
    paged.fake.requests.map((r) => `${r.method} ${r.path}`),
    ['PUT /t/scanner', 'GET /t/scanner/17953abc?n=2', 'GET /t/scanner/17953abc?n=2', 'DELETE /t/scanner/17953abc'],
  );
  // a page of exactly batch cells may end inside a row: that row waits for the next page
  const cut = scannerFake([encodeCellSet([cells('r1', 'a'), cells('r2', 'a')]), encodeCellSet([cells('r2', 'b')])]);
  const whole = [];
  for await (const r of cut.c.scan('t', { batch: 2 })) whole.push(`${r.row.toString()}:${r.cells.length}`);
  assert.deepEqual(whole, ['r1:1', 'r2:2']);
  assert.deepEqual(
    cut.fake.requests.map((r) => r.method),
    ['PUT', 'GET', 'GET', 'DELETE'],
  );
  // the delete goes out with the last page, before its rows are handed on, and only once
  const overlap = scannerFake([page(['r1', 'a'], ['r2', 'a'])]);
  const it = overlap.c.scan('t')[Symbol.asyncIterator]();
  assert.equal((await it.next()).value?.row.toString(), 'r1');
  assert.equal(overlap.fake.requests.at(-1)?.method, 'DELETE');
  assert.equal((await it.next()).value?.row.toString(), 'r2');
  assert.equal((await it.next()).done, true);
  assert.deepEqual(
    overlap.fake.requests.map((r) => r.method),
    ['PUT', 'GET', 'DELETE'],
  );
  // pageRows sizes the cell cap: room for 8 cells a row
  assert.equal((JSON.parse(String(paged.fake.requests[0]?.body)) as { batch?: number }).batch, 1000);
  const big = scannerFake([page(['r1', 'a'])]);
  for await (const r of big.c.scan('t', { pageRows: 500, stateful: true })) assert.equal(r.row.toString(), 'r1');
  assert.equal((JSON.parse(String(big.fake.requests[0]?.body)) as { batch?: number }).batch, 4000);
});

test('scan deletes the scanner on early break, on limit and on error', async () => {
  const early = scannerFake([page(['r1', 'a'], ['r2', 'a']), page(['r3', 'a'])]);
  for await (const r of early.c.scan('t')) {
    assert.equal(r.row.toString(), 'r1');
    break;
  }
  assert.equal(early.fake.requests.at(-1)?.method, 'DELETE');

  const limited = scannerFake([page(['r1', 'a'], ['r2', 'a']), page(['r3', 'a'])]);
  const got = [];
  for await (const r of limited.c.scan('t', { limit: 2, stateful: true })) got.push(r.row.toString());
  assert.deepEqual(got, ['r1', 'r2']);
  assert.equal(limited.fake.requests[1]?.path, '/t/scanner/17953abc?n=2');
  assert.equal(limited.fake.requests.at(-1)?.method, 'DELETE');

  const failing = scannerFake([page(['r1', 'a']), 503]);
  await assert.rejects(
    async () => {
      for await (const r of failing.c.scan('t', { batch: 1 })) assert.ok(r.row.length > 0);
    },
    (e: unknown) => e instanceof HBaseError && e.code === 'HBASE_UNAVAILABLE' && e.op === 'scan' && e.table === 't',
  );
  assert.equal(failing.fake.requests.at(-1)?.method, 'DELETE');
});

test('a bodiless 500 to the scanner request says the gateway could not read it; a 500 with a body is left as it is', async () => {
  const unread = client(() => ({ status: 500 }));
  await assert.rejects(
    async () => {
      for await (const r of unread.c.scan('t', { columns: [column('d', 'v')] })) assert.ok(r.row.length > 0);
    },
    (e: unknown) =>
      e instanceof HBaseError && e.code === 'HBASE_SERVER_ERROR' && e.status === 500 && e.table === 't' && /could not read the scanner request/.test(e.message),
  );
  const said = client(() => ({ status: 500, body: Buffer.from('java.io.IOException: disk') }));
  await assert.rejects(
    async () => {
      for await (const r of said.c.scan('t')) assert.ok(r.row.length > 0);
    },
    (e: unknown) => e instanceof HBaseError && e.status === 500 && !/could not read/.test(e.message) && /disk/.test(e.message),
  );
});

test('scan pageRows asks ?n= rows per page, capped by what the limit still needs', async () => {
  const paged = scannerFake([page(['r1', 'a'], ['r2', 'a']), page(['r3', 'a'], ['r4', 'a']), page(['r5', 'a'])]);
  const got = [];
  for await (const r of paged.c.scan('t', { pageRows: 2, limit: 5, stateful: true })) got.push(r.row.toString());
  assert.deepEqual(got, ['r1', 'r2', 'r3', 'r4', 'r5']);
  const gets = paged.fake.requests.filter((r) => r.method === 'GET').map((r) => r.path);
  // pages under the cell cap end on whole rows: the last page asks only for the one row the limit still needs
  assert.deepEqual(gets, ['/t/scanner/17953abc?n=2', '/t/scanner/17953abc?n=2', '/t/scanner/17953abc?n=1']);
  // region-server caching follows the page size (unset, HBase fills the first RPC up to 2 MB)
  assert.deepEqual(JSON.parse(String(paged.fake.requests[0]?.body)), { batch: 1000, caching: 2, maxVersions: 1 });

  const unlimited = scannerFake([page(['r1', 'a']), 204]);
  for await (const r of unlimited.c.scan('t', { pageRows: 3, stateful: true })) assert.equal(r.row.toString(), 'r1');
  assert.deepEqual(
    unlimited.fake.requests.filter((r) => r.method === 'GET').map((r) => r.path),
    ['/t/scanner/17953abc?n=3'],
    'one row of 3 asked: the end',
  );
  const limited = scannerFake([page(['r1', 'a']), 204]);
  for await (const r of limited.c.scan('t', { limit: 5000, stateful: true })) assert.equal(r.row.toString(), 'r1');
  assert.equal((JSON.parse(String(limited.fake.requests[0]?.body)) as { caching?: number }).caching, 1000, 'a limit alone caps caching at 1000');
  const explicit = scannerFake([page(['r1', 'a']), 204]);
  for await (const r of explicit.c.scan('t', { limit: 5, caching: 50, stateful: true })) assert.equal(r.row.toString(), 'r1');
  assert.equal((JSON.parse(String(explicit.fake.requests[0]?.body)) as { caching?: number }).caching, 50, 'an explicit caching wins');

  const bad = scannerFake([]);
  await assert.rejects(
    async () => {
      for await (const r of bad.c.scan('t', { pageRows: 0 })) assert.fail(`unexpected row ${r.row.toString()}`);
    },
    (e: unknown) => e instanceof HBaseError && e.code === 'HBASE_INVALID_ARGUMENT' && /pageRows/.test(e.message),
  );
  assert.equal(bad.fake.requests.length, 0);
});

test('a bounded scan with UTF-8 bounds: one stateless GET; a full first page continues with a scanner after its last row', async () => {
  const short = client((req) => ({ status: 200, body: json(req.method === 'GET' ? page(['r1', 'a']) : '') }));
  const one = [];
  for await (const r of short.c.scan('t', { startRow: Buffer.from('r'), stopRow: Buffer.from('s'), pageRows: 4 })) one.push(r.row.toString());
  assert.deepEqual(one, ['r1']);
  assert.deepEqual(
    short.fake.requests.map((r) => `${r.method} ${r.path}`),
    ['GET /t/*?startrow=r&endrow=s&maxversions=1&limit=4'],
    'one request, no scanner',
  );

  let n = 0;
  const full = client((req): Partial<HttpResponse> & { status: number } => {
    if (req.method === 'GET' && req.path.startsWith('/t/*')) return { status: 200, body: json(page(['r1', 'a'], ['r2', 'a'])) };
    if (req.method === 'PUT') return { status: 201, headers: { location: '/t/scanner/9' } };
    if (req.method === 'DELETE') return { status: 200 };
    return n++ === 0 ? { status: 200, body: json(page(['r3', 'a'])) } : { status: 204, body: json('') };
  });
  const rows = [];
  for await (const r of full.c.scan('t', { startRow: Buffer.from('r'), stopRow: Buffer.from('s'), pageRows: 2, limit: 5 })) rows.push(r.row.toString());
  assert.deepEqual(rows, ['r1', 'r2', 'r3']);
  const [first, open] = full.fake.requests;
  assert.equal(first?.path, '/t/*?startrow=r&endrow=s&maxversions=1&limit=2');
  assert.equal(
    (JSON.parse(String(open?.body)) as { startRow?: string }).startRow,
    Buffer.from('r2\u0000').toString('base64'),
    'the scanner starts right after r2',
  );
  assert.equal(full.fake.requests.at(-1)?.method, 'DELETE');
});

test('close() only closes a transport the client created', async () => {
  const { c, fake } = client(() => ({ status: 200 }));
  await c.close();
  assert.equal(fake.closed, false);
});
