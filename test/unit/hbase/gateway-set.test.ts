// The gateway-set transport (src/hbase/gateway-set.ts) over scripted fake gateways: spreading,
// failover, probes, scanner affinity and what is never re-sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GatewaySetTransport, HBaseRestClient, column, encodeCellSet, isHBaseError } from '../../../src/hbase/index.ts';
import type { GatewayOutcome, HttpRequest, HttpResponse, HttpTransport } from '../../../src/hbase/index.ts';

type Failure = 'ECONNREFUSED' | 'ECONNRESET' | null;

/** One gateway: answers with `answer` unless `down` says how its connections fail. */
class FakeGateway implements HttpTransport {
  readonly requests: HttpRequest[] = [];
  down: Failure = null;
  readonly name: string;
  readonly answer: (req: HttpRequest) => Partial<HttpResponse> & { status: number };
  constructor(name: string, answer: (req: HttpRequest) => Partial<HttpResponse> & { status: number } = () => ({ status: 200 })) {
    this.name = name;
    this.answer = answer;
  }
  request(req: HttpRequest): Promise<HttpResponse> {
    this.requests.push(req);
    if (this.down !== null) return Promise.reject(Object.assign(new Error(`${this.name} ${this.down}`), { code: this.down }));
    return Promise.resolve({ headers: {}, body: Buffer.alloc(0), ...this.answer(req) });
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
  /** requests other than probes */
  served(): number {
    return this.requests.filter((r) => !r.path.endsWith('/version/cluster')).length;
  }
}

function setOf(gws: FakeGateway[]) {
  const events: string[] = [];
  const outcomes: { gateway: string; outcome: GatewayOutcome }[] = [];
  const set = new GatewaySetTransport({
    gateways: gws.map((g) => ({ url: `http://${g.name}:8080`, transport: g })),
    probePath: '/version/cluster',
    probe: { baseMs: 5, maxMs: 20 },
    observer: {
      attempted: (gateway, outcome) => {
        outcomes.push({ gateway, outcome });
      },
      health: (gateway, up) => {
        events.push(`${gateway} ${up ? 'up' : 'down'}`);
      },
    },
  });
  const client = new HBaseRestClient({ baseUrl: 'http://a:8080', transport: set, closeTransport: true, defaultDeadlineMs: 1000 });
  return { set, client, events, outcomes };
}

const rows = [{ row: Buffer.from('r'), cells: [{ column: column('d', 'q'), value: Buffer.from('v'), timestamp: 1 }] }];

async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(check(), what);
}

test('requests alternate over healthy gateways; a refused gateway is taken out, the put goes to another, a probe brings it back', async () => {
  const a = new FakeGateway('a');
  const b = new FakeGateway('b');
  const { set, client, events, outcomes } = setOf([a, b]);
  for (let i = 0; i < 4; i++) await client.put('t', rows);
  assert.deepEqual([a.served(), b.served()], [2, 2]);

  b.down = 'ECONNREFUSED';
  for (let i = 0; i < 4; i++) await client.put('t', rows);
  assert.equal(a.served(), 6, 'every put acknowledged, by a');
  assert.equal(b.served(), 3, 'b was tried once, then left out');
  assert.deepEqual(events, ['http://a:8080 up', 'http://b:8080 up', 'http://b:8080 down']);
  assert.deepEqual(
    outcomes.filter((o) => o.outcome !== 'ok'),
    [{ gateway: 'http://b:8080', outcome: 'connection_error' }],
  );

  b.down = null;
  await until('b back in rotation', () => set.status()[1]?.healthy === true);
  assert.deepEqual(events.at(-1), 'http://b:8080 up');
  for (let i = 0; i < 4; i++) await client.put('t', rows);
  assert.ok(b.served() > 3, 'b serves again');
  await client.close();
});

test('a check-and-put on a reset connection is not sent again; a refused one is', async () => {
  const a = new FakeGateway('a', () => ({ status: 200 }));
  const b = new FakeGateway('b', () => ({ status: 200 }));
  const { client } = setOf([a, b]);
  a.down = 'ECONNRESET';
  const cells = [{ column: column('d', 'q'), value: Buffer.from('v') }];
  const check = { column: column('d', 'q'), value: null };
  // the first request goes to a (round-robin start)
  await assert.rejects(client.checkAndPut('t', { row: Buffer.from('r'), cells, check }), (err) => isHBaseError(err, 'HBASE_NETWORK'));
  assert.equal(b.served(), 0, 'not re-sent after a reset: a may have applied it');
  const a2 = new FakeGateway('a');
  const b2 = new FakeGateway('b');
  const second = setOf([a2, b2]);
  a2.down = 'ECONNREFUSED';
  assert.equal(await second.client.checkAndPut('t', { row: Buffer.from('r'), cells, check }), true, 'refused: never sent, so b takes it');
  await Promise.all([client.close(), second.client.close()]);
});

/** A gateway with REST scanners: PUT creates one named after the gateway, GET pages it (one row, then 204); the scans ask batch 1, so each page may go on. */
function scanning(name: string): FakeGateway {
  const pages = new Map<string, number>();
  return new FakeGateway(name, (req) => {
    if (req.method === 'PUT' && req.path.endsWith('/scanner')) {
      const id = `${name}${pages.size}`;
      pages.set(id, 0);
      return { status: 201, headers: { location: `http://${name}:8080/t/scanner/${id}` } };
    }
    const id = req.path.split('/')[3]?.split('?')[0] ?? '';
    const served = pages.get(id);
    if (served === undefined) return { status: 404 }; // another gateway's scanner: unknown here
    if (req.method === 'DELETE') return { status: 200 };
    pages.set(id, served + 1);
    if (served >= 3) return { status: 204 };
    return {
      status: 200,
      body: Buffer.from(encodeCellSet([{ row: Buffer.from(`r${served}`), cells: [{ column: column('d', 'q'), value: Buffer.from(id), timestamp: 1 }] }])),
    };
  });
}

test('every page and the delete of a scanner go to the gateway that created it', async () => {
  const a = scanning('a');
  const b = scanning('b');
  const { client } = setOf([a, b]);
  // two scans interleaved, so round-robin alone would mix the gateways
  const s1 = client.scan('t', { stateful: true, batch: 1 });
  const s2 = client.scan('t', { stateful: true, batch: 1 });
  const got: string[] = [];
  for (let i = 0; i < 3; i++) {
    for (const s of [s1, s2]) {
      const r = await s.next();
      if (r.done !== true) got.push(r.value.cells[0]?.value.toString() ?? '');
    }
  }
  await Promise.all([s1.return(), s2.return()]);
  assert.deepEqual(got.sort(), ['a0', 'a0', 'a0', 'b0', 'b0', 'b0']);
  for (const g of [a, b]) {
    for (const r of g.requests.filter((q) => q.path.includes('/scanner/')))
      assert.ok(r.path.includes(`/scanner/${g.name}`), `${r.method} ${r.path} on ${g.name}`);
  }
  await client.close();
});

test("the scanner's gateway dying mid-scan: HBASE_GATEWAY_LOST (retriable), never another gateway's rows", async () => {
  const a = scanning('a');
  const b = scanning('b');
  const { client } = setOf([a, b]);
  const scan = client.scan('t', { stateful: true, batch: 1 });
  const first = await scan.next();
  if (first.done === true) throw new Error('the scan yielded nothing');
  const owner = first.value.cells[0]?.value.toString().startsWith('a') === true ? a : b;
  owner.down = 'ECONNREFUSED';
  await assert.rejects(scan.next(), (err) => isHBaseError(err, 'HBASE_GATEWAY_LOST') && err.retriable && /start over/.test(err.message));
  const other = owner === a ? b : a;
  assert.equal(other.requests.filter((q) => q.path.includes('/scanner/')).length, 0, 'no page asked elsewhere');
  await client.close();
});

test('a scanner whose creation was refused is created on another gateway and stays there', async () => {
  const a = scanning('a');
  const b = scanning('b');
  a.down = 'ECONNREFUSED';
  const { client } = setOf([a, b]);
  const got: string[] = [];
  for await (const r of client.scan('t', { stateful: true, batch: 1 })) got.push(r.cells[0]?.value.toString() ?? '');
  assert.deepEqual(got, ['b0', 'b0', 'b0']);
  await client.close();
});
