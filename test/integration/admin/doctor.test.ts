// tsingest doctor on the real stack: tables deliberately designed wrong each give exactly the
// findings their design earns, and the project's own tables, as `tables apply` makes them, give no
// error; the codec probe (the admin tool's codecs op) answers on the real stack, and a broken admin
// command is an info note, not a failure. The CLI runs as a user runs it (a child process, --json,
// its exit status).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { TABLE_META } from '../../../src/keys/index.ts';
import type { Finding } from '../../../src/doctor/finding.ts';
import { uniqueName } from '../../support/env.ts';
import { NODE_BIN, REPO_ROOT, createHarness } from '../../support/service-harness.ts';

const run = promisify(execFile);
const OURS = { [TABLE_META.buckets]: '16', [TABLE_META.keyFormat]: 'v1:binary', [TABLE_META.role]: 'data' };
const GOOD = { BLOOMFILTER: 'ROW', VERSIONS: '1', DATA_BLOCK_ENCODING: 'FAST_DIFF' };

interface Report {
  readonly counts: Record<string, number>;
  readonly findings: Finding[];
}

void test('tsingest doctor: each wrongly designed table gives exactly its findings; the tables apply makes give no error; the codec probe answers, and one that cannot run is a note', async (t) => {
  const h = await createHarness(t, { prefix: 'doc' });
  const name = (what: string): string => {
    const n = uniqueName(`it_doc_${what}`);
    h.defer(() => h.rest.deleteTable(n, { ignoreMissing: true }));
    return n;
  };
  const wide = name('wide');
  const versions = name('versions');
  const nobloom = name('nobloom');
  const hex = name('hexsplit');
  const bigcell = name('bigcell');
  const fam = (n: string, attrs: Record<string, string> = {}): { name: string; attributes: Record<string, string> } => ({
    name: n,
    attributes: { ...GOOD, ...attrs },
  });
  await h.rest.createTable({ name: wide, families: [fam('measurements'), fam('metadata'), fam('tags'), fam('x')] });
  await h.rest.createTable({ name: versions, families: [fam('d', { VERSIONS: '5', MIN_VERSIONS: '1', TTL: '86400' })], attributes: OURS });
  await h.rest.createTable({ name: nobloom, families: [fam('d', { BLOOMFILTER: 'NONE' })] });
  await h.rest.createTable({ name: bigcell, families: [fam('d')] });
  // RegionSplitter's HexStringSplit for 16 regions ("10000000" … "f0000000") on the binary salt.
  const hexSplits = Array.from({ length: 15 }, (_v, i) => Buffer.from(`${(i + 1).toString(16)}0000000`, 'latin1'));
  await h.tableAdmin.ensureTable({
    table: hex,
    family: 'd',
    splits: hexSplits,
    familyAttrs: { BLOOMFILTER: 'ROW', VERSIONS: 1, DATA_BLOCK_ENCODING: 'FAST_DIFF' },
    tableAttrs: OURS,
  });
  await h.rest.put(bigcell, [{ row: Buffer.from('r1'), cells: [{ column: Buffer.from('d:blob'), value: Buffer.alloc(3 << 20, 7) }] }]);

  const doctor = async (tables: readonly string[], extra: readonly string[] = []): Promise<{ code: number; report: Report; text: string }> => {
    const args = ['src/cli.ts', 'doctor', ...tables.flatMap((x) => ['--table', x]), ...h.baseSets.flatMap((s) => ['--set', s]), ...extra];
    const cli = (argv: string[]): Promise<{ code: number; stdout: string }> =>
      run(NODE_BIN, argv, { cwd: REPO_ROOT, maxBuffer: 16 << 20 }).then(
        (r) => ({ code: 0, stdout: r.stdout }),
        (e: unknown) => ({ code: (e as { code: number }).code, stdout: (e as { stdout: string }).stdout }),
      );
    const [json, text] = await Promise.all([cli([...args, '--json']), cli(args)]);
    return { code: json.code, report: JSON.parse(json.stdout) as Report, text: text.stdout };
  };
  const of = (r: Report, table: string): string[] =>
    r.findings
      .filter(
        (f) => f.severity !== 'info' && (f.subject === `table ${table}` || f.subject.startsWith(`table ${table} `) || f.subject.startsWith(`region ${table},`)),
      )
      .map((f) => `${f.severity} ${f.rule} ${f.subject.replace(table, 'T').replace(/^region T,.*$/, 'region')}`)
      .sort();

  const bad = await doctor([wide, versions, nobloom, hex, bigcell]);
  assert.equal(bad.code, 1, 'an error-level finding exits 1');
  assert.deepEqual(of(bad.report, wide), [
    'warn families.name-length table T family measurements',
    'warn families.name-length table T family metadata',
    'warn families.name-length table T family tags',
  ]);
  assert.deepEqual(of(bad.report, versions), ['warn versions.min-with-ttl table T family d', 'warn versions.service-table table T family d']);
  assert.deepEqual(of(bad.report, nobloom), ['warn storage.bloom table T family d']);
  assert.deepEqual(
    of(bad.report, hex),
    Array.from({ length: 15 }, () => 'error keyspace.unreachable-region region'),
  );
  assert.deepEqual(of(bad.report, bigcell), ['warn cells.size table T']);
  const big = bad.report.findings.find((f) => f.rule === 'cells.size');
  assert.match(big?.measured ?? '', /largest sampled cell 3\.00 MB at row 0x7231 column d:blob/);
  for (const f of bad.report.findings) {
    assert.match(f.source, /^https:\/\/hbase\.apache\.org\/book\.html#/, `${f.rule} names its source`);
    assert.ok(f.measured !== '' && f.threshold !== '' && f.fix !== '', `${f.rule} has measured, threshold, fix`);
  }
  assert.match(bad.text, /✗ ERROR keyspace\.unreachable-region {2}region /);
  assert.match(bad.text, /15 error\(s\)/);

  const own = await doctor([h.names.data, h.names.index, h.names.rollup, h.names.meta]);
  assert.equal(own.code, 0, own.text);
  assert.equal(own.report.counts['error'], 0);
  for (const table of [h.names.data, h.names.index, h.names.rollup, h.names.meta]) assert.deepEqual(of(own.report, table), [], `${table}: no warnings either`);
  // bytes per point: the rollup table's coarsest summaries counted through the gateway (none written here)
  const footprint = own.report.findings.filter((f) => f.rule === 'storage.bytes-per-point');
  assert.equal(footprint.length, 1);
  assert.match(footprint[0]?.measured ?? '', new RegExp(`^0 points in 0 r1d summaries of table ${h.names.rollup} .*too coarse to divide yet`));
  // The codec probe (the admin tool's codecs op) worked in both runs: no storage.codec-probe note,
  // and the codecs tables apply chose are ones it found usable (no storage.codec-missing).
  for (const r of [bad.report, own.report]) {
    assert.deepEqual(
      r.findings.filter((f) => f.rule.startsWith('storage.codec-')),
      [],
      'the probe answered and every codec in use is usable',
    );
  }

  // A probe that cannot run is a note on the cluster, never an error; --no-codec-probe skips it.
  const broken = ['--set', 'hbase.adminCommand=["/nonexistent/table-admin"]'];
  const noTool = await doctor([h.names.meta], broken);
  assert.equal(noTool.code, 0, noTool.text);
  const notes = noTool.report.findings.filter((f) => f.rule === 'storage.codec-probe');
  assert.deepEqual(
    notes.map((f) => `${f.severity} ${f.subject}`),
    ['info cluster'],
  );
  assert.match(notes[0]?.measured ?? '', /codec probe failed, so storage\.codec-missing was not checked: .*\/nonexistent\/table-admin/);
  assert.match(noTool.text, /· INFO {2}storage\.codec-probe {2}cluster/);
  const skipped = await doctor([h.names.meta], [...broken, '--no-codec-probe']);
  assert.equal(skipped.code, 0, skipped.text);
  assert.deepEqual(
    skipped.report.findings.filter((f) => f.rule.startsWith('storage.codec-')),
    [],
  );
});
