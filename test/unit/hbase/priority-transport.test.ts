// The read client's gate: at most `slots` requests in flight; when one ends, the waiting request of
// the lowest priority number goes next, except one that waited maxWaitMs; waiting counts against the deadline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HBaseError, PriorityTransport, type HttpRequest, type HttpResponse, type HttpTransport } from '../../../src/hbase/index.ts';

/** An inner transport whose requests end when the test says so, in the order they started. */
function held(): { inner: HttpTransport; started: string[]; deadlines: number[]; finish: () => Promise<void> } {
  const started: string[] = [];
  const deadlines: number[] = [];
  const ends: (() => void)[] = [];
  const inner: HttpTransport = {
    request: (req: HttpRequest) =>
      new Promise<HttpResponse>((res) => {
        started.push(req.path);
        deadlines.push(req.deadlineMs);
        ends.push(() => {
          res({ status: 200, headers: {}, body: Buffer.alloc(0) });
        });
      }),
    close: () => Promise.resolve(),
  };
  const finish = async (): Promise<void> => {
    ends.shift()?.();
    for (let i = 0; i < 5; i++) await Promise.resolve(); // let the next request start
  };
  return { inner, started, deadlines, finish };
}

const get = (path: string, deadlineMs = 10_000): HttpRequest => ({ method: 'GET', path, headers: {}, deadlineMs });

void test('the lightest waiting request goes next; equal ones in arrival order', async () => {
  const h = held();
  let next = 0;
  const gate = new PriorityTransport({ inner: h.inner, slots: 1, priority: () => next, now: () => 0 });
  const calls: Promise<HttpResponse>[] = [];
  for (const [path, weight] of [
    ['/a', 5],
    ['/heavy', 6000],
    ['/light', 3],
    ['/light2', 3],
    ['/mid', 40],
  ] as const) {
    next = weight;
    calls.push(gate.request(get(path)));
  }
  await Promise.resolve();
  assert.deepEqual(h.started, ['/a']);
  assert.equal(gate.waiting, 4);
  for (let i = 0; i < 5; i++) await h.finish();
  await Promise.all(calls);
  assert.deepEqual(h.started, ['/a', '/light', '/light2', '/mid', '/heavy']);
  assert.equal(gate.waiting, 0);
});

void test('a request that waited maxWaitMs goes next whatever its weight, and its wait is taken from its deadline', async () => {
  const h = held();
  let clock = 0;
  let next = 0;
  const gate = new PriorityTransport({ inner: h.inner, slots: 1, priority: () => next, maxWaitMs: 1000, now: () => clock });
  const calls: Promise<HttpResponse>[] = [gate.request(get('/first'))];
  next = 9000;
  calls.push(gate.request(get('/heavy', 10_000)));
  clock = 1500;
  next = 1;
  calls.push(gate.request(get('/light')));
  await h.finish();
  await h.finish();
  await h.finish();
  await Promise.all(calls);
  assert.deepEqual(h.started, ['/first', '/heavy', '/light']);
  assert.equal(h.deadlines[1], 8500, 'the heavy request waited 1.5 s of its 10 s');
});

void test('a request whose deadline passes while it waits fails with HBASE_TIMEOUT without reaching the gateway', async () => {
  const h = held();
  let clock = 0;
  const gate = new PriorityTransport({ inner: h.inner, slots: 1, priority: () => undefined, now: () => clock });
  const first = gate.request(get('/first'));
  const late = gate.request(get('/late', 500));
  clock = 600;
  await h.finish();
  await first;
  await assert.rejects(late, (e: unknown) => e instanceof HBaseError && e.code === 'HBASE_TIMEOUT' && e.retriable);
  assert.deepEqual(h.started, ['/first']);
  // its slot is free again
  const after = gate.request(get('/after'));
  await Promise.resolve();
  assert.deepEqual(h.started, ['/first', '/after']);
  await h.finish();
  await after;
});

void test('reserved slots: heavy requests hold at most slots − reserved, so a light one starts at once; a slot a light one frees is not taken by a heavy one over its share', async () => {
  const h = held();
  let next = 0;
  const gate = new PriorityTransport({ inner: h.inner, slots: 4, reserved: 1, lightMax: 10, priority: () => next, now: () => 0 });
  const calls: Promise<HttpResponse>[] = [];
  const send = (path: string, weight: number): void => {
    next = weight;
    calls.push(gate.request(get(path)));
  };
  send('/h1', 5000);
  send('/h2', 5000);
  send('/h3', 5000);
  send('/h4', 5000);
  await Promise.resolve();
  assert.deepEqual(h.started, ['/h1', '/h2', '/h3'], 'three heavy at most: one slot kept');
  send('/l1', 1);
  await Promise.resolve();
  assert.deepEqual(h.started, ['/h1', '/h2', '/h3', '/l1'], 'a light request takes the kept slot at once');
  send('/l2', 10);
  assert.equal(gate.waiting, 2);
  await h.finish(); // /h1 ends: the lightest waiter goes
  assert.deepEqual(h.started.slice(4), ['/l2']);
  await h.finish(); // /h2 ends: /h4 may take a heavy slot
  assert.deepEqual(h.started.slice(5), ['/h4']);
  for (let i = 0; i < 4; i++) await h.finish();
  await Promise.all(calls);
  assert.equal(gate.waiting, 0);
});

void test('reserved slots: a light slot freed while heavy ones hold their share stays free for the next light request', async () => {
  const h = held();
  let next = 0;
  const gate = new PriorityTransport({ inner: h.inner, slots: 2, reserved: 1, lightMax: 0, priority: () => next, now: () => 0 });
  next = 0;
  const light = gate.request(get('/light'));
  next = 7;
  const heavy = gate.request(get('/heavy'));
  const heavy2 = gate.request(get('/heavy2'));
  await Promise.resolve();
  assert.deepEqual(h.started, ['/light', '/heavy']);
  await h.finish(); // /light ends: /heavy2 would be a second heavy one
  assert.deepEqual(h.started, ['/light', '/heavy'], 'the freed slot is kept');
  next = 0;
  const light2 = gate.request(get('/light2'));
  await Promise.resolve();
  assert.deepEqual(h.started, ['/light', '/heavy', '/light2']);
  await h.finish();
  await h.finish();
  await h.finish();
  await Promise.all([light, heavy, heavy2, light2]);
  assert.deepEqual(h.started, ['/light', '/heavy', '/light2', '/heavy2']);
  assert.throws(() => new PriorityTransport({ inner: h.inner, slots: 2, reserved: 2, priority: () => 0 }), /reserved/);
});
