// JavaTableAdmin against a real HBase: the tool command comes from TSI_ADMIN_COMMAND (a JSON argv
// array), REST cross-checks from TSI_HBASE_REST_URL. Missing settings fail the test, never skip it.
// The steps share one table, one test and one tool process (a session: deploy/admin/Session.java); the
// codec test runs the tool once per call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { JavaTableAdmin } from '../../../src/admin/java-admin.ts';
import { HBaseRestClient } from '../../../src/hbase/index.ts';
import { usableCodecs } from '../../../src/admin/codec-probe-port.ts';
import { TableAdminError } from '../../../src/admin/table-admin-port.ts';
import type { EnsureTableRequest } from '../../../src/admin/table-admin-port.ts';

interface AdminEnv {
  readonly command: readonly string[];
  readonly restUrl: string;
}

function adminEnv(): AdminEnv {
  const raw = process.env['TSI_ADMIN_COMMAND'];
  const restUrl = process.env['TSI_HBASE_REST_URL'];
  if (raw === undefined || raw === '' || restUrl === undefined || restUrl === '') {
    throw new Error(
      'admin integration tests need TSI_ADMIN_COMMAND (JSON argv array that runs deploy/admin/TableAdmin.java) ' +
        'and TSI_HBASE_REST_URL; run them through `npm test`, which starts a real stack',
    );
  }
  const command: unknown = JSON.parse(raw);
  if (!Array.isArray(command) || command.length === 0 || !command.every((a) => typeof a === 'string')) {
    throw new Error(`TSI_ADMIN_COMMAND must be a non-empty JSON array of strings, got ${raw}`);
  }
  return { command, restUrl: restUrl.replace(/\/+$/, '') };
}

interface RestRegion {
  readonly startKey: string;
  readonly endKey: string;
  readonly location: string;
}

async function restRegions(restUrl: string, table: string): Promise<RestRegion[]> {
  const res = await fetch(`${restUrl}/${encodeURIComponent(table)}/regions`, { headers: { Accept: 'application/json' } });
  assert.equal(res.status, 200, `GET /${table}/regions`);
  const body = (await res.json()) as { Region: RestRegion[] };
  return body.Region;
}

async function restFamilySchema(restUrl: string, table: string): Promise<Record<string, string>> {
  const res = await fetch(`${restUrl}/${encodeURIComponent(table)}/schema`, { headers: { Accept: 'application/json' } });
  assert.equal(res.status, 200, `GET /${table}/schema`);
  const body = (await res.json()) as { ColumnSchema: Record<string, string>[] };
  const [family] = body.ColumnSchema;
  assert.ok(family !== undefined);
  return family;
}

const isAdminError =
  (code: string, field?: string) =>
  (e: unknown): boolean => {
    assert.ok(e instanceof TableAdminError, `expected TableAdminError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    if (field !== undefined) {
      assert.equal(e.field, field, e.message);
    }
    return true;
  };

const SALT_SPLITS = Array.from({ length: 15 }, (_, i) => Buffer.from([i + 1])); // [0x01] … [0x0F]
// The local stack disables splits cluster-wide; this table-level policy lets the split step work.
const SPLIT_POLICY = 'org.apache.hadoop.hbase.regionserver.ConstantSizeRegionSplitPolicy';

void test('JavaTableAdmin (one session): pre-split create, describe, idempotent ensure, alter, split, drop', { timeout: 240_000 }, async (t) => {
  const env = adminEnv();
  const admin = new JavaTableAdmin({ command: env.command, session: true });
  const table = `it_admin_${randomBytes(5).toString('hex')}`;
  let dropped = false;
  t.after(async () => {
    if (!dropped) {
      await admin.drop(table);
    }
    await admin.close();
  });
  const tableAttrs = { 'tsingest.salt.buckets': '16', 'tsingest.key.format': 'binary-v1', SPLIT_POLICY };
  const request: EnsureTableRequest = {
    table,
    family: 'd',
    splits: SALT_SPLITS,
    familyAttrs: { VERSIONS: 1, TTL: 'FOREVER', BLOOMFILTER: 'ROW', COMPRESSION: 'NONE' },
    tableAttrs,
    immutableTableAttrs: ['tsingest.salt.buckets', 'tsingest.key.format'],
  };

  await t.test('ensureTable creates the table with 16 regions', async () => {
    const res = await admin.ensureTable(request);
    assert.equal(res.created, true);
    assert.deepEqual(res.diff, []);
    assert.equal(res.regionCount, 16);
    assert.equal(res.splitsMatch, true);
    assert.equal(res.familyAttrs['VERSIONS'], '1');
    assert.equal(res.familyAttrs['BLOOMFILTER'], 'ROW');
  });

  await t.test('describe shows 16 online regions on the salt boundaries and the table attrs', async () => {
    const d = await admin.describe(table);
    assert.equal(d.exists, true);
    assert.equal(d.enabled, true);
    assert.equal(d.regions.length, 16);
    assert.deepEqual(
      d.regions.map((r) => r.startKey),
      [Buffer.alloc(0), ...SALT_SPLITS],
    );
    assert.deepEqual(
      d.regions.map((r) => r.endKey),
      [...SALT_SPLITS, Buffer.alloc(0)],
    );
    assert.ok(
      d.regions.every((r) => r.server !== null),
      'every region is assigned',
    );
    for (const [k, v] of Object.entries(tableAttrs)) {
      assert.equal(d.tableAttrs[k], v, `table attr ${k}`);
    }
    assert.deepEqual(
      d.families.map((f) => f.name),
      ['d'],
    );
    assert.equal(d.families[0]?.attrs['TTL'], 'FOREVER');
  });

  await t.test('the REST gateway sees the same 16 regions', async () => {
    const regions = await restRegions(env.restUrl, table);
    assert.equal(regions.length, 16);
    const starts = regions.map((r) => Buffer.from(r.startKey, 'base64')).sort((a, b) => Buffer.compare(a, b));
    assert.deepEqual(starts, [Buffer.alloc(0), ...SALT_SPLITS]);
  });

  await t.test('ensureTable again is a no-op', async () => {
    const res = await admin.ensureTable(request);
    assert.equal(res.created, false);
    assert.deepEqual(res.diff, []);
    assert.equal(res.regionCount, 16);
    assert.equal(res.splitsMatch, true);
  });

  await t.test('changing VERSIONS and TTL applies exactly that diff; splits are never touched', async () => {
    const res = await admin.ensureTable({
      ...request,
      splits: [Buffer.from([0x80])], // ignored for an existing table
      familyAttrs: { ...request.familyAttrs, VERSIONS: 3, TTL: 86_400 },
    });
    assert.equal(res.created, false);
    assert.deepEqual(res.diff, [
      { scope: 'family', key: 'VERSIONS', from: '1', to: '3' },
      { scope: 'family', key: 'TTL', from: 'FOREVER', to: '86400' },
    ]);
    assert.equal(res.familyAttrs['VERSIONS'], '3');
    assert.equal(res.familyAttrs['TTL'], '86400');
    assert.equal(res.regionCount, 16);
    assert.equal(res.splitsMatch, false);
    const schema = await restFamilySchema(env.restUrl, table);
    assert.equal(schema['VERSIONS'], '3');
    assert.equal(schema['TTL'], '86400');
  });

  await t.test('an immutable table attr that differs is refused', async () => {
    await assert.rejects(
      admin.ensureTable({ ...request, tableAttrs: { ...tableAttrs, 'tsingest.salt.buckets': '8' } }),
      isAdminError('ADMIN_IMMUTABLE_ATTR_CONFLICT', 'tableAttrs.tsingest.salt.buckets'),
    );
  });

  await t.test('a codec the cluster lacks fails naming the codec, and creates nothing', async () => {
    const other = `${table}_lzo`;
    await assert.rejects(admin.ensureTable({ table: other, family: 'd', splits: [], familyAttrs: { COMPRESSION: 'LZO' } }), (e: unknown) => {
      isAdminError('ADMIN_UNSUPPORTED_COMPRESSION', 'familyAttrs.COMPRESSION')(e);
      assert.ok(e instanceof TableAdminError && e.message.includes('LZO') && e.table === other);
      return true;
    });
    const res = await fetch(`${env.restUrl}/${other}/schema`, { headers: { Accept: 'application/json' } });
    await res.body?.cancel();
    assert.equal(res.status, 404);
  });

  await t.test('split adds a region boundary inside a salt bucket', async () => {
    await admin.split(table, Buffer.from([0x08, 0x80]));
    const regions = await restRegions(env.restUrl, table);
    assert.equal(regions.length, 17);
    assert.ok(regions.some((r) => Buffer.from(r.startKey, 'base64').equals(Buffer.from([0x08, 0x80]))));
  });

  await t.test('compact flushes and major-compacts: every region with data ends with one store file; the rows stay', async () => {
    const rest = new HBaseRestClient({ baseUrl: env.restUrl, defaultDeadlineMs: 30_000 });
    const rows = [0x02, 0x05, 0x09].map((b) => Buffer.from([b, 0x61]));
    // three puts, each flushed by a compact call's flush: store files pile up, then one compaction merges them
    for (let i = 0; i < rows.length; i++) {
      await rest.put(
        table,
        rows.slice(0, i + 1).map((r) => ({ row: r, cells: [{ column: Buffer.from('d:q'), value: Buffer.from([i]) }] })),
      );
      await admin.compact(table);
    }
    const storeFiles = async (): Promise<number[]> => {
      const status = await rest.clusterStatus();
      return status.liveNodes
        .flatMap((n) => n.regions)
        .filter((r) => r.name.toString('latin1').startsWith(`${table},`))
        .map((r) => r.storefiles);
    };
    // the master's view follows the region servers' reports (every few seconds)
    let files: number[] = [];
    for (let i = 0; i < 40; i++) {
      files = await storeFiles();
      if (files.filter((n) => n > 0).length === rows.length && files.every((n) => n <= 1)) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    assert.equal(files.filter((n) => n === 1).length, rows.length, `one store file in each region with data: ${JSON.stringify(files)}`);
    assert.ok(
      files.every((n) => n <= 1),
      JSON.stringify(files),
    );
    for (const row of rows) assert.ok((await rest.get(table, row)) !== null, 'the row is still there');
    await assert.rejects(admin.compact(`${table}_missing`), isAdminError('ADMIN_TABLE_NOT_FOUND', 'table'));
  });

  await t.test('drop removes the table', async () => {
    await admin.drop(table);
    dropped = true;
    const d = await admin.describe(table);
    assert.equal(d.exists, false);
    assert.deepEqual(d.regions, []);
  });
});

void test(
  "JavaTableAdmin (one session): the tool's own deadline answers TIMEOUT and ends the session; the next call gets a new one",
  { timeout: 120_000 },
  async () => {
    // ZooKeeper where nothing listens: the HBase client retries past the tool's deadline (timeoutMs less a quarter).
    const admin = new JavaTableAdmin({ command: adminEnv().command, zk: '127.0.0.1:1', timeoutMs: 8_000, session: true });
    try {
      for (const call of [() => admin.ping(), () => admin.describe('it_admin_nowhere')]) {
        await assert.rejects(
          call(),
          (e: unknown) => e instanceof TableAdminError && e.code === 'ADMIN_TIMEOUT' && /did not finish within 6000 ms/.test(e.message),
        );
      }
    } finally {
      await admin.close();
    }
  },
);

void test(
  'JavaTableAdmin.codecs: every HBase codec named, NONE and GZ usable, an unusable one says why; the master refuses what the probe cannot use',
  { timeout: 120_000 },
  async (t) => {
    const env = adminEnv();
    const codecs = await new JavaTableAdmin({ command: env.command }).codecs();
    t.diagnostic(JSON.stringify(codecs));
    assert.ok(codecs.length >= 5, `all of Compression.Algorithm, got ${codecs.length}`);
    for (const c of codecs) {
      assert.match(c.name, /^[A-Z0-9]+$/, 'named as in a schema');
      if (!c.usable) assert.ok(c.error.length > 0, `${c.name}: an unusable codec says why`);
    }
    const usable = usableCodecs(codecs);
    assert.ok(usable.includes('NONE') && usable.includes('GZ'), `NONE and GZ are usable everywhere: ${usable.join(', ')}`);

    // No cluster connection: the same answer with a ZooKeeper quorum nothing listens on.
    const offline = await new JavaTableAdmin({ command: env.command, zk: '127.0.0.1:1', timeoutMs: 30_000 }).codecs();
    assert.deepEqual(usableCodecs(offline), usable);

    // The master's own check (TableDescriptorChecker.checkCompression, before any region exists)
    // agrees on a codec the probe cannot use: a create through the REST gateway, not through the
    // tool, is refused and leaves nothing behind (the gateway answers 503; its log has the master's
    // DoNotRetryIOException naming the codec class). Standalone HBase runs master and region server
    // in one JVM, so a codec the master accepted would also open.
    const missing = codecs.find((c) => !c.usable && c.name === 'LZO') ?? codecs.find((c) => !c.usable);
    assert.ok(missing !== undefined, 'the stack lacks at least one codec (LZO is GPL and never bundled)');
    const table = `it_codec_${randomBytes(5).toString('hex')}`;
    const schemaStatus = async (): Promise<number> => {
      const r = await fetch(`${env.restUrl}/${table}/schema`, { headers: { Accept: 'application/json' } });
      await r.body?.cancel();
      return r.status;
    };
    t.after(async () => {
      if ((await schemaStatus()) === 200) await fetch(`${env.restUrl}/${table}/schema`, { method: 'DELETE' }).then((r) => r.body?.cancel());
    });
    const res = await fetch(`${env.restUrl}/${table}/schema`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ name: table, ColumnSchema: [{ name: 'd', COMPRESSION: missing.name }] }),
    });
    const text = await res.text();
    t.diagnostic(`create with ${missing.name}: HTTP ${res.status} ${text.slice(0, 300)}`);
    assert.ok(res.status >= 400, `the master refused COMPRESSION ${missing.name} (HTTP ${res.status})`);
    assert.equal(await schemaStatus(), 404, 'nothing was created');
  },
);
