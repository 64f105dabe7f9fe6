// Protocol handling and error mapping of JavaTableAdmin, against a tiny fake tool run by this Node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JavaTableAdmin } from '../../../src/admin/java-admin.ts';
import { stderrTail } from '../../../src/admin/tool-process.ts';
import { usableCodecs } from '../../../src/admin/codec-probe-port.ts';
import { TableAdminError } from '../../../src/admin/table-admin-port.ts';

// argv: <request file> <stdout text> <exit code> <stderr text> <mode: normal|hang>
const FAKE_TOOL = `
const fs = require('node:fs');
const [, reqFile, out, code, err, mode] = process.argv;
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (c) => { input += c; });
process.stdin.on('end', () => {
  fs.writeFileSync(reqFile, input);
  process.stderr.write(err);
  if (mode === 'hang') { setInterval(() => {}, 1000); return; }
  process.stdout.write(out);
  process.exitCode = Number(code);
});`;

interface FakeOptions {
  readonly code?: number;
  readonly stderr?: string;
  readonly hang?: boolean;
  readonly timeoutMs?: number;
  readonly zk?: string;
}

function fake(stdout: unknown, o: FakeOptions = {}): { admin: JavaTableAdmin; request: () => Record<string, unknown> } {
  const reqFile = join(mkdtempSync(join(tmpdir(), 'java-admin-')), 'request.json');
  const out = typeof stdout === 'string' ? stdout : `${JSON.stringify(stdout)}\n`;
  const admin = new JavaTableAdmin({
    command: [process.execPath, '-e', FAKE_TOOL, reqFile, out, String(o.code ?? 0), o.stderr ?? '', o.hang === true ? 'hang' : 'normal'],
    timeoutMs: o.timeoutMs ?? 20_000,
    ...(o.zk === undefined ? {} : { zk: o.zk }),
  });
  return { admin, request: () => JSON.parse(readFileSync(reqFile, 'utf8')) as Record<string, unknown> };
}

const ensureOk = {
  ok: true,
  op: 'ensureTable',
  table: 't1',
  created: true,
  exists: true,
  dryRun: false,
  diff: [],
  tableAttrs: { 'tsingest.salt.buckets': '16' },
  familyAttrs: { VERSIONS: '1', TTL: 'FOREVER' },
  regionCount: 3,
  splitsMatch: true,
};

const isAdminError =
  (code: string, check: (e: TableAdminError) => boolean = () => true) =>
  (e: unknown): boolean => {
    assert.ok(e instanceof TableAdminError, `expected TableAdminError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    assert.ok(check(e), `check failed for: ${e.message}`);
    return true;
  };

void test('ensureTable sends one JSON request (base64 splits, attrs, deadline, zk) and parses the result', async () => {
  const { admin, request } = fake(ensureOk, { zk: '127.0.0.1:2181', timeoutMs: 20_000 });
  const res = await admin.ensureTable({
    table: 't1',
    family: 'd',
    splits: [Buffer.from([0x01]), Buffer.from([0x02, 0xff])],
    familyAttrs: { VERSIONS: 1, TTL: 'FOREVER', BLOOMFILTER: 'ROW' },
    tableAttrs: { 'tsingest.salt.buckets': '16' },
    immutableTableAttrs: ['tsingest.salt.buckets'],
  });
  assert.deepEqual(request(), {
    op: 'ensureTable',
    table: 't1',
    family: 'd',
    splits: ['AQ==', 'Av8='],
    familyAttrs: { VERSIONS: 1, TTL: 'FOREVER', BLOOMFILTER: 'ROW' },
    tableAttrs: { 'tsingest.salt.buckets': '16' },
    immutableTableAttrs: ['tsingest.salt.buckets'],
    zk: '127.0.0.1:2181',
    timeoutMs: 15_000, // shorter than the adapter's limit, so the tool reports TIMEOUT itself
  });
  assert.equal(res.created, true);
  assert.equal(res.regionCount, 3);
  assert.equal(res.splitsMatch, true);
  assert.deepEqual(res.diff, []);
  assert.equal(res.tableAttrs['tsingest.salt.buckets'], '16');
});

void test('ensureTable reports the diff applied to an existing table', async () => {
  const diff = [
    { scope: 'family', key: 'VERSIONS', from: '1', to: '3' },
    { scope: 'table', key: 'k', from: null, to: 'v' },
  ];
  const { admin } = fake({ ...ensureOk, created: false, diff, splitsMatch: null });
  const res = await admin.ensureTable({ table: 't1', family: 'd', splits: [] });
  assert.equal(res.created, false);
  assert.deepEqual(res.diff, diff);
  assert.equal(res.splitsMatch, null);
});

void test('describe turns base64 region keys into Buffers', async () => {
  const { admin, request } = fake({
    ok: true,
    op: 'describe',
    table: 't1',
    exists: true,
    enabled: true,
    tableAttrs: { a: 'b' },
    families: [{ name: 'd', attrs: { VERSIONS: '1' } }],
    regions: [
      { startKey: '', endKey: 'AQ==', name: 't1,,1.x.', encodedName: 'x', server: 'h:16020' },
      { startKey: 'AQ==', endKey: '', name: 't1,\\x01,1.y.', encodedName: 'y', server: null },
    ],
  });
  const d = await admin.describe('t1');
  assert.deepEqual(request(), { op: 'describe', table: 't1', timeoutMs: 15_000 });
  assert.equal(d.regions.length, 2);
  const [first, second] = d.regions;
  assert.ok(first !== undefined && second !== undefined);
  assert.deepEqual(first.startKey, Buffer.alloc(0));
  assert.deepEqual(first.endKey, Buffer.from([0x01]));
  assert.deepEqual(second.startKey, Buffer.from([0x01]));
  assert.equal(second.server, null);
  assert.deepEqual(d.families, [{ name: 'd', attrs: { VERSIONS: '1' } }]);
});

void test('describe of a missing table: exists false, empty lists', async () => {
  const { admin } = fake({ ok: true, op: 'describe', table: 'nope', exists: false });
  const d = await admin.describe('nope');
  assert.deepEqual(d, { table: 'nope', exists: false, enabled: false, tableAttrs: {}, families: [], regions: [] });
});

void test('split sends the split point as base64; drop sends the table', async () => {
  const s = fake({ ok: true, op: 'split', table: 't1', split: true, regionCount: 17 });
  await s.admin.split('t1', Buffer.from([0x08, 0x80]));
  assert.equal(s.request()['splitPoint'], 'CIA=');
  assert.equal(s.request()['op'], 'split');
  const d = fake({ ok: true, op: 'drop', table: 't1', dropped: true });
  await d.admin.drop('t1');
  assert.equal(d.request()['op'], 'drop');
  assert.equal(d.request()['table'], 't1');
});

void test('codecs sends {"op":"codecs"}, keeps every codec with its error text; usableCodecs names the usable ones upper case', async () => {
  const lzo = 'CompressionTest failed: ClassNotFoundException: com.hadoop.compression.lzo.LzoCodec';
  const { admin, request } = fake({
    ok: true,
    op: 'codecs',
    codecs: [
      { name: 'LZO', usable: false, error: lzo },
      { name: 'GZ', usable: true },
      { name: 'NONE', usable: true },
      { name: 'snappy', usable: true },
    ],
  });
  const codecs = await admin.codecs();
  assert.deepEqual(request(), { op: 'codecs', timeoutMs: 15_000 });
  assert.deepEqual(codecs, [
    { name: 'LZO', usable: false, error: lzo },
    { name: 'GZ', usable: true },
    { name: 'NONE', usable: true },
    { name: 'snappy', usable: true },
  ]);
  assert.deepEqual(usableCodecs(codecs), ['GZ', 'NONE', 'SNAPPY']);
});

void test('a codec answer without a name, or unusable without an error text, is an ADMIN_PROTOCOL error', async () => {
  const answer = (codecs: unknown): JavaTableAdmin => fake({ ok: true, op: 'codecs', codecs }).admin;
  await assert.rejects(
    answer([{ name: 'LZO', usable: false }]).codecs(),
    isAdminError('ADMIN_PROTOCOL', (e) => e.message.includes('codecs')),
  );
  await assert.rejects(answer([{ name: 'LZO', usable: false, error: '' }]).codecs(), isAdminError('ADMIN_PROTOCOL'));
  await assert.rejects(answer([{ usable: true }]).codecs(), isAdminError('ADMIN_PROTOCOL'));
  await assert.rejects(answer([{ name: 'GZ', usable: 'yes' }]).codecs(), isAdminError('ADMIN_PROTOCOL'));
  await assert.rejects(fake({ ok: true, op: 'codecs' }).admin.codecs(), isAdminError('ADMIN_PROTOCOL'));
  const failed = fake({ ok: false, op: 'codecs', code: 'INTERNAL', error: 'NoClassDefFoundError: org/apache/hadoop/hbase/util/CompressionTest' }, { code: 1 });
  await assert.rejects(
    failed.admin.codecs(),
    isAdminError('ADMIN_INTERNAL', (e) => e.message.includes('CompressionTest')),
  );
});

void test('ok:false maps to a typed error with code, table, field and the stderr tail', async () => {
  const { admin } = fake(
    {
      ok: false,
      op: 'ensureTable',
      code: 'UNSUPPORTED_COMPRESSION',
      error: "table 't1': compression codec LZ4 is not usable",
      table: 't1',
      field: 'familyAttrs.COMPRESSION',
    },
    { code: 1, stderr: 'WARN something\njava.io.IOException: boom\n\tat a.b.C(C.java:1)\n\t... 3 more\n' },
  );
  await assert.rejects(
    admin.ensureTable({ table: 't1', family: 'd', splits: [], familyAttrs: { COMPRESSION: 'LZ4' } }),
    isAdminError(
      'ADMIN_UNSUPPORTED_COMPRESSION',
      (e) =>
        e.table === 't1' &&
        e.field === 'familyAttrs.COMPRESSION' &&
        !e.retriable &&
        e.message.includes('LZ4') &&
        e.stderrTail === 'WARN something\njava.io.IOException: boom',
    ),
  );
});

void test('UNAVAILABLE from the tool is ADMIN_UNAVAILABLE, retriable; unknown codes become ADMIN_HBASE_ERROR', async () => {
  const u = fake({ ok: false, code: 'UNAVAILABLE', error: 'HBase is not reachable', table: null, field: null }, { code: 1 });
  await assert.rejects(
    u.admin.describe('t1'),
    isAdminError('ADMIN_UNAVAILABLE', (e) => e.retriable && e.table === 't1'),
  );
  const x = fake({ ok: false, code: 'SOMETHING_NEW', error: 'odd' }, { code: 1 });
  await assert.rejects(
    x.admin.drop('t1'),
    isAdminError('ADMIN_HBASE_ERROR', (e) => !e.retriable && e.message.includes('SOMETHING_NEW')),
  );
});

void test('log noise before the response line is ignored', async () => {
  const { admin } = fake(`some library banner\n${JSON.stringify(ensureOk)}\n`);
  const res = await admin.ensureTable({ table: 't1', family: 'd', splits: [] });
  assert.equal(res.created, true);
});

void test('no response line: ADMIN_PROTOCOL error naming the exit code and carrying the stderr tail', async () => {
  const { admin } = fake('', { code: 3, stderr: 'Error: Could not find or load main class Nope\n' });
  await assert.rejects(
    admin.describe('t1'),
    isAdminError(
      'ADMIN_PROTOCOL',
      (e) => e.message.includes('code 3') && e.message.includes('Could not find or load main class') && e.stderrTail !== undefined,
    ),
  );
});

void test('invalid JSON, a missing ok flag or a malformed body are ADMIN_PROTOCOL errors', async () => {
  await assert.rejects(fake('{not json\n').admin.describe('t1'), isAdminError('ADMIN_PROTOCOL'));
  await assert.rejects(fake({ op: 'describe' }).admin.describe('t1'), isAdminError('ADMIN_PROTOCOL'));
  await assert.rejects(
    fake({ ok: true, op: 'ensureTable', table: 't1' }).admin.ensureTable({ table: 't1', family: 'd', splits: [] }),
    isAdminError('ADMIN_PROTOCOL'),
  );
  await assert.rejects(fake({ ...ensureOk }, { code: 1 }).admin.ensureTable({ table: 't1', family: 'd', splits: [] }), isAdminError('ADMIN_PROTOCOL'));
});

void test('a tool that hangs is killed at the deadline: ADMIN_TIMEOUT with the stderr tail', async () => {
  const { admin } = fake('', { hang: true, timeoutMs: 1_500, stderr: 'connecting to zookeeper...\n' });
  const started = Date.now();
  await assert.rejects(
    admin.describe('t1'),
    isAdminError('ADMIN_TIMEOUT', (e) => e.retriable && e.message.includes('1500 ms') && e.message.includes('connecting to zookeeper')),
  );
  assert.ok(Date.now() - started < 5_000);
});

void test('a program that does not exist: ADMIN_SPAWN_FAILED', async () => {
  const admin = new JavaTableAdmin({ command: ['/nonexistent/table-admin-tool'] });
  await assert.rejects(
    admin.describe('t1'),
    isAdminError('ADMIN_SPAWN_FAILED', (e) => e.message.includes('/nonexistent/table-admin-tool')),
  );
});

void test('constructor rejects an empty command and a too-small timeout', () => {
  assert.throws(() => new JavaTableAdmin({ command: [] }), TypeError);
  assert.throws(() => new JavaTableAdmin({ command: ['java'], timeoutMs: 10 }), RangeError);
});

void test('stderrTail drops stack frames and SLF4J chatter and keeps the last lines', () => {
  const log = [
    'SLF4J: multiple bindings',
    'line 1',
    'java.lang.X: y',
    '\tat a.B.c(B.java:1)',
    '\t... 4 more',
    ...Array.from({ length: 30 }, (_, i) => `l${i}`),
  ].join('\n');
  const tail = stderrTail(log).split('\n');
  assert.equal(tail.length, 20);
  assert.equal(tail.at(-1), 'l29');
  assert.ok(!tail.some((l) => l.includes('\tat ') || l.startsWith('SLF4J')));
});
