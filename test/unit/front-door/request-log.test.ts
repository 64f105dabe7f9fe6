// The front door's request log (src/front-door/guard.ts) records the status the client got: a
// response cut off after its status line (the read API's deadline, an error mid-answer) is logged
// with `cut: true`, and one cut before any status line with `status: null`, never as a plain 200.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Authenticator } from '../../../src/front-door/authenticate.ts';
import { NO_CREDENTIALS } from '../../../src/front-door/credentials.ts';
import { answered, createGuard } from '../../../src/front-door/guard.ts';
import { QueryLimits } from '../../../src/front-door/limits.ts';

type Entry = Record<string, unknown>;

/** A server whose every request passes the guard, then `route`; the request log's entries land in `entries`. */
async function serve(
  t: import('node:test').TestContext,
  route: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ port: number; logged: () => Promise<Entry> }> {
  const entries: Entry[] = [];
  const waiting: ((e: Entry) => void)[] = [];
  const record = (e: Entry): void => {
    const w = waiting.shift();
    if (w === undefined) entries.push(e);
    else w(e);
  };
  const auth = new Authenticator(NO_CREDENTIALS, { anonymous: true });
  const guard = createGuard({
    auth: () => auth,
    limits: new QueryLimits({ total: 4, perIdentity: 4 }),
    log: { info: record, debug: record, warn: () => undefined } as never,
  });
  const server = createServer((req, res) => {
    void guard(req, res, new URL(req.url ?? '/', 'http://localhost'), 'req-1').then((ctx) => {
      if (ctx !== undefined) route(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const logged = (): Promise<Entry> => {
    const e = entries.shift();
    return e !== undefined ? Promise.resolve(e) : new Promise((resolve) => waiting.push(resolve));
  };
  return { port, logged };
}

/** GET `path`; resolves with the status the client saw (undefined when none) and whether the body ended cleanly. */
function get(port: number, path: string): Promise<{ status: number | undefined; complete: boolean }> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => {
        resolve({ status: res.statusCode, complete: res.complete });
      });
      res.on('error', () => {
        resolve({ status: res.statusCode, complete: false });
      });
    });
    req.on('error', () => {
      resolve({ status: undefined, complete: false });
    });
    req.end();
  });
}

void test('a response cut off after its status line is logged as the 200 the client saw, with cut: true', async (t) => {
  const { port, logged } = await serve(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    res.write('{"first":"row"}\n');
    setImmediate(() => res.destroy()); // as the read API does when query.deadlineMs passes mid-answer
  });
  const client = await get(port, '/api/v1/ids/x/latest');
  assert.deepEqual(client, { status: 200, complete: false });
  const entry = await logged();
  assert.equal(entry['status'], 200);
  assert.equal(entry['cut'], true);
  assert.equal(entry['requestId'], 'req-1');
});

void test('a connection closed before any status line is logged with status null, not the default 200', async (t) => {
  const { port, logged } = await serve(t, (_req, res) => {
    res.destroy();
  });
  assert.equal((await get(port, '/api/v1/ids/x/latest')).status, undefined, 'the client got no status');
  const entry = await logged();
  assert.equal(entry['status'], null);
  assert.equal(entry['cut'], true);
});

void test('a complete answer is logged with its status and no cut', async (t) => {
  const { port, logged } = await serve(t, (_req, res) => {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":"not_found"}');
  });
  assert.deepEqual(await get(port, '/api/v1/nothing'), { status: 404, complete: true });
  const entry = await logged();
  assert.equal(entry['status'], 404);
  assert.equal('cut' in entry, false);
});

void test('answered: the fields from the response alone', () => {
  assert.deepEqual(answered({ headersSent: true, statusCode: 200, writableFinished: true }), { status: 200 });
  assert.deepEqual(answered({ headersSent: true, statusCode: 200, writableFinished: false }), { status: 200, cut: true });
  assert.deepEqual(answered({ headersSent: false, statusCode: 200, writableFinished: false }), { status: null, cut: true });
});
