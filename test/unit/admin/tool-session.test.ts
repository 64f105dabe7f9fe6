// JavaTableAdmin with `session`: many calls through one tool process, against a fake tool run by this
// Node that speaks the session protocol (deploy/admin/Session.java): a hello line, then one response
// line per request line. Each process writes its pid into the answers, so a test sees which process answered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JavaTableAdmin } from '../../../src/admin/java-admin.ts';
import { TableAdminError } from '../../../src/admin/table-admin-port.ts';

// argv: <mode: session|old>. In `old` mode the tool reads stdin to its end before answering, as a
// one-shot tool does. Requests: ping answers; describe of table 'hang' never answers; 'die' exits;
// 'late' gets the tool's own TIMEOUT answer, after which the tool exits (as Session.java's watchdog does).
const FAKE_SESSION_TOOL = `
const mode = process.argv[1];
const rl = require('node:readline').createInterface({ input: process.stdin });
const say = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
let first = true;
rl.on('line', (line) => {
  const req = JSON.parse(line);
  if (mode === 'old') return;
  if (first) { first = false; if (req.op === 'session') { say({ ok: true, op: 'session' }); return; } }
  if (req.table === 'hang') return;
  if (req.table === 'die') { process.stderr.write('dying now\\n'); process.exit(3); }
  if (req.table === 'late') { say({ ok: false, op: req.op, code: 'TIMEOUT', error: 'describe did not finish', table: 'late' }); setTimeout(() => process.exit(1), 300); return; }
  if (req.op === 'ping') say({ ok: true, op: 'ping', clusterId: String(process.pid), hbaseVersion: '2.6.1', master: null, liveServers: [] });
  else say({ ok: false, op: req.op, code: 'TABLE_NOT_FOUND', error: 'no table ' + req.table, table: req.table });
});`;

function admin(mode: 'session' | 'old', timeoutMs = 20_000): JavaTableAdmin {
  return new JavaTableAdmin({ command: [process.execPath, '-e', FAKE_SESSION_TOOL, mode], timeoutMs, session: true });
}

void test('session: calls go through one process until close(); an error answer keeps the process', async () => {
  const a = admin('session');
  const first = await a.ping();
  await assert.rejects(a.describe('missing'), (e: unknown) => e instanceof TableAdminError && e.code === 'ADMIN_TABLE_NOT_FOUND');
  const again = await Promise.all([a.ping(), a.ping(), a.ping()]);
  assert.deepEqual(
    again.map((p) => p.clusterId),
    [first.clusterId, first.clusterId, first.clusterId],
    'concurrent calls queue on the one process',
  );
  await a.close();
  const after = await a.ping();
  assert.notEqual(after.clusterId, first.clusterId, 'a call after close() starts a new process');
  await a.close();
});

void test('session: a call past its deadline kills the process and says so; the next call starts a new one', async () => {
  const a = admin('session', 1_500);
  const before = await a.ping();
  await assert.rejects(
    a.describe('hang'),
    (e: unknown) => e instanceof TableAdminError && e.code === 'ADMIN_TIMEOUT' && /did not answer within 1500 ms/.test(e.message),
  );
  const after = await a.ping();
  assert.notEqual(after.clusterId, before.clusterId);
  await a.close();
});

void test("session: after the tool's own TIMEOUT answer (its process then ends) the next call goes to a new process", async () => {
  const a = admin('session');
  const before = await a.ping();
  await assert.rejects(a.describe('late'), (e: unknown) => e instanceof TableAdminError && e.code === 'ADMIN_TIMEOUT');
  const after = await a.ping();
  assert.notEqual(after.clusterId, before.clusterId);
  await a.close();
});

void test('session: a tool that dies mid-call is a protocol error with its exit and log; the next call starts a new one', async () => {
  const a = admin('session');
  await a.ping();
  await assert.rejects(
    a.describe('die'),
    (e: unknown) => e instanceof TableAdminError && e.code === 'ADMIN_PROTOCOL' && /exited with code 3/.test(e.message) && /dying now/.test(e.message),
  );
  assert.equal(typeof (await a.ping()).clusterId, 'string');
  await a.close();
});

void test('session: a tool that does not open a session (one that waits for the end of its input) times out, named as such', async () => {
  const a = admin('old', 1_500);
  await assert.rejects(a.ping(), (e: unknown) => e instanceof TableAdminError && e.code === 'ADMIN_TIMEOUT' && /opening a session/.test(e.message));
  await a.close();
});

void test('session: a program that cannot be started is ADMIN_SPAWN_FAILED', async () => {
  const a = new JavaTableAdmin({ command: ['/nonexistent/table-admin'], session: true });
  await assert.rejects(a.ping(), (e: unknown) => e instanceof TableAdminError && e.code === 'ADMIN_SPAWN_FAILED');
  await a.close();
});

void test('session: an idle session does not keep its caller alive (the tool ends with the end of its input)', async () => {
  const { spawnSync } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const adminModule = fileURLToPath(new URL('../../../src/admin/java-admin.ts', import.meta.url));
  const script = `
    import { JavaTableAdmin } from ${JSON.stringify(adminModule)};
    const a = new JavaTableAdmin({ command: [process.execPath, '-e', ${JSON.stringify(FAKE_SESSION_TOOL)}, 'session'], session: true });
    const p = await a.ping();
    console.log('answered by ' + p.clusterId); // no close(): the caller simply ends`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 15_000 });
  assert.equal(r.signal, null, 'ended by itself, not killed at the 15 s limit');
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /answered by \d+/);
});
