import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ColumnFamilySchema } from '../../../src/hbase/index.ts';
import { planSaltSplits } from '../../../src/keys/index.ts';
import { diagnose } from '../../../src/doctor/diagnose.ts';
import type { ClusterFacts, RegionFacts, SampleFacts, ServiceLayout, TableFacts } from '../../../src/doctor/facts.ts';
import { exitStatus } from '../../../src/doctor/finding.ts';
import { layoutFromAttributes } from '../../../src/doctor/layout.ts';
import { regionReachable } from '../../../src/doctor/rules/keyspace.ts';
import { footprintFindings } from '../../../src/doctor/rules/footprint.ts';
import { coarsestSummaryFamily } from '../../../src/doctor/gather.ts';

const OUR_FAMILY: ColumnFamilySchema = {
  name: 'd',
  attributes: { VERSIONS: '1', BLOOMFILTER: 'ROW', COMPRESSION: 'SNAPPY', DATA_BLOCK_ENCODING: 'FAST_DIFF', TTL: 'FOREVER', MIN_VERSIONS: '0' },
};
const LAYOUT: ServiceLayout = { role: 'data', buckets: 16, saltFormat: 'binary' };

function regionsFrom(table: string, splits: readonly Buffer[], extra: Partial<RegionFacts> = {}): RegionFacts[] {
  const bounds = [Buffer.alloc(0), ...splits, Buffer.alloc(0)];
  return splits.concat([Buffer.alloc(0)]).map((_s, i) => ({
    name: `${table},${(bounds[i] ?? Buffer.alloc(0)).toString('hex')},1.r${i}.`,
    startKey: bounds[i] ?? Buffer.alloc(0),
    endKey: bounds[i + 1] ?? Buffer.alloc(0),
    server: 'rs1:16020',
    ...extra,
  }));
}

type TableOver = { [K in keyof TableFacts]?: TableFacts[K] | undefined } & { families?: ColumnFamilySchema[] };

function table(over: TableOver = {}): TableFacts {
  const name = over.name ?? 't';
  return {
    name,
    schema: { name, families: over.families ?? [OUR_FAMILY], attributes: {} },
    regions: over.regions ?? regionsFrom(name, planSaltSplits(16, 'binary')),
    ...('layout' in over ? (over.layout === undefined ? {} : { layout: over.layout }) : { layout: LAYOUT }),
    ...(over.sample === undefined ? {} : { sample: over.sample }),
    ...(over.writesSinceLastCheck === undefined ? {} : { writesSinceLastCheck: over.writesSinceLastCheck }),
  };
}

function cluster(tables: TableFacts[], over: Partial<ClusterFacts> = {}): ClusterFacts {
  return {
    servers: [{ name: 'rs1:16020', maxHeapMB: 32_768, regions: 60, stores: 60 }],
    tables,
    settings: { memstoreFlushSizeMB: 128, globalMemstoreFraction: 0.4, source: 'HBase defaults' },
    ...over,
  };
}

const rules = (facts: ClusterFacts): string[] => diagnose(facts).map((f) => `${f.severity} ${f.rule} ${f.subject}`);

test('a table as tables apply makes it: no findings at all', () => {
  assert.deepEqual(rules(cluster([table()])), []);
});

test('four families with long names: the family count (info under the default per-family flush policy) and each long name, nothing else', () => {
  const fam = (name: string): ColumnFamilySchema => ({ name, attributes: OUR_FAMILY.attributes });
  const got = rules(
    cluster([
      table({ name: 'wide', layout: undefined, regions: regionsFrom('wide', []), families: [fam('measurements'), fam('metadata'), fam('tags'), fam('x')] }),
    ]),
  );
  assert.deepEqual(got, [
    'warn families.name-length table wide family measurements',
    'warn families.name-length table wide family metadata',
    'warn families.name-length table wide family tags',
    'info families.count table wide',
  ]);
});

test("families.count: every table alike, the rollup table's per-size families included; info under HBase's per-family flush policy, warn under one that flushes every store", () => {
  const fam = (name: string, ttl: string): ColumnFamilySchema => ({ name, attributes: { ...OUR_FAMILY.attributes, TTL: ttl } });
  const families = [fam('d', 'FOREVER'), fam('r15m', '604800 SECONDS (7 DAYS)'), fam('r1h', '31536000 SECONDS (365 DAYS)'), fam('r1d', 'FOREVER')];
  const rollup: ServiceLayout = { role: 'rollup', buckets: 16, saltFormat: 'binary' };
  const same = ['warn families.name-length table T family r15m', 'info families.count table T'];
  const of = (facts: ClusterFacts, name: string): string[] =>
    diagnose(facts)
      .filter((f) => f.subject.startsWith(`table ${name}`))
      .map((f) => `${f.severity} ${f.rule} ${f.subject.replace(name, 'T')}`);
  assert.deepEqual(of(cluster([table({ name: 'tsrollup', layout: rollup, families })]), 'tsrollup'), same);
  assert.deepEqual(of(cluster([table({ name: 'tsdata', families })]), 'tsdata'), same);
  const info = diagnose(cluster([table({ name: 'tsrollup', layout: rollup, families })])).find((f) => f.rule === 'families.count');
  assert.match(info?.measured ?? '', /flush policy FlushAllLargeStoresPolicy \(HBase's default\): .* over max\(128 MB \/ 4, 16 MB\) = 32 MB/);
  // a policy that flushes every store: the guide's reason holds, a warning naming the fix
  const all = cluster([table({ name: 'tsrollup', layout: rollup, families })], {
    settings: {
      memstoreFlushSizeMB: 128,
      globalMemstoreFraction: 0.4,
      flushPolicy: 'org.apache.hadoop.hbase.regionserver.FlushAllStoresPolicy',
      source: 'as given',
    },
  });
  assert.deepEqual(of(all, 'tsrollup'), ['warn families.count table T', 'warn families.name-length table T family r15m']);
  assert.match(diagnose(all).find((f) => f.rule === 'families.count')?.fix ?? '', /hbase\.regionserver\.flush\.policy FlushAllLargeStoresPolicy/);
  // the table's own FLUSH_POLICY wins over the servers'
  const own = table({ name: 'tsrollup', layout: rollup, families });
  const withOwn = {
    ...own,
    schema: { ...own.schema, attributes: { ...own.schema.attributes, FLUSH_POLICY: 'org.apache.hadoop.hbase.regionserver.FlushAllStoresPolicy' } },
  };
  assert.deepEqual(of(cluster([withOwn]), 'tsrollup')[0], 'warn families.count table T');
  // three families or fewer: nothing to say
  assert.deepEqual(of(cluster([table({ name: 'tsrollup', layout: rollup, families: families.filter((f) => f.name !== 'r15m') })]), 'tsrollup'), []);
});

test('retention: a coarser size kept shorter than a finer one, and a size a coarser one is built from kept shorter than the raw points plus a coarser window', () => {
  // the retention rules alone (the table's four families are the count rule's, tested above)
  const retention = (facts: ClusterFacts): string[] => rules(facts).filter((r) => r.includes(' retention.'));
  const fam = (name: string, ttl: string): ColumnFamilySchema => ({ name, attributes: { ...OUR_FAMILY.attributes, TTL: ttl } });
  const rollup = (...families: ColumnFamilySchema[]): TableFacts =>
    table({
      name: 'tsrollup',
      layout: { role: 'rollup', buckets: 16, saltFormat: 'binary' },
      families: [fam('d', 'FOREVER'), ...families, fam('p', '2592000')],
    });
  const data = (ttl: string): TableFacts => table({ name: 'tsdata', families: [fam('d', ttl)] });
  const DAYS = (n: number): string => `${n * 86_400} SECONDS (${n} DAYS)`;
  // docs/RETENTION.md's example: raw 30 d, 1h a year, 1d for ever
  assert.deepEqual(retention(cluster([data(DAYS(30)), rollup(fam('r1h', DAYS(365)), fam('r1d', 'FOREVER'))])), []);
  // 1d kept a week while 1h is kept a year; 15m (from which 1h is built) kept 7 d < 30 d + 1 h
  const got = diagnose(cluster([data(DAYS(30)), rollup(fam('r15m', DAYS(7)), fam('r1h', DAYS(365)), fam('r1d', DAYS(7)))])).filter((f) =>
    f.rule.startsWith('retention.'),
  );
  assert.deepEqual(
    got.map((f) => `${f.severity} ${f.rule} ${f.subject}`),
    ['warn retention.coarser-shorter table tsrollup family r1d', 'warn retention.source-shorter table tsrollup family r15m'],
  );
  const [order, source] = got;
  assert.match(order?.measured ?? '', /r1d \(1d summaries\) kept 604800 s \(7 d\), the finer r1h \(1h summaries\) 31536000 s \(365 d\)/);
  assert.match(order?.fix ?? '', /tables\.rollup\.ttlByWindow\.1d to at least 31536000 .*alter 'tsrollup', \{NAME => 'r1d', TTL => 31536000\}/);
  assert.match(
    source?.measured ?? '',
    /r15m \(15m summaries, from which 1h is built\) kept 604800 s \(7 d\); raw points \(table tsdata\) kept 2592000 s \(30 d\)/,
  );
  assert.match(source?.threshold ?? '', /\(2595600 s\)/);
  assert.match(source?.source ?? '', /docs\/RETENTION\.md/);
  // raw points for ever: a size a coarser one is built from must be kept for ever too (r1h here, the "r1h shorter than r1d")
  assert.deepEqual(retention(cluster([data('FOREVER'), rollup(fam('r1h', DAYS(365)), fam('r1d', 'FOREVER'))])), [
    'warn retention.source-shorter table tsrollup family r1h',
  ]);
  // without the data table in the run only the sizes are compared; 2147483647 is FOREVER
  assert.deepEqual(retention(cluster([rollup(fam('r1h', DAYS(365)), fam('r1d', '2147483647'))])), []);
  assert.deepEqual(retention(cluster([rollup(fam('r1h', 'FOREVER'), fam('r1d', DAYS(400)))])), ['warn retention.coarser-shorter table tsrollup family r1d']);
  // the same families on a table without the rollup layout: not looked at
  assert.deepEqual(
    retention(cluster([table({ name: 'x', layout: undefined, regions: regionsFrom('x', []), families: [fam('r1h', 'FOREVER'), fam('r1d', '60')] })])),
    [],
  );
});

test('VERSIONS 5 on a service table, MIN_VERSIONS with a TTL, MIN_VERSIONS without one, MIN_VERSIONS ≥ VERSIONS', () => {
  const f = (name: string, a: Record<string, string>): ColumnFamilySchema => ({ name, attributes: { ...OUR_FAMILY.attributes, ...a } });
  assert.deepEqual(rules(cluster([table({ families: [f('d', { VERSIONS: '5' })] })])), ['warn versions.service-table table t family d']);
  assert.deepEqual(
    rules(
      cluster([
        table({ layout: undefined, regions: regionsFrom('t', []), families: [f('d', { VERSIONS: '3', MIN_VERSIONS: '1', TTL: '86400 SECONDS (1 DAY)' })] }),
      ]),
    ),
    ['warn versions.min-with-ttl table t family d'],
  );
  assert.deepEqual(rules(cluster([table({ layout: undefined, regions: regionsFrom('t', []), families: [f('d', { VERSIONS: '3', MIN_VERSIONS: '1' })] })])), [
    'warn versions.min-without-ttl table t family d',
  ]);
  assert.deepEqual(
    rules(cluster([table({ layout: undefined, regions: regionsFrom('t', []), families: [f('d', { VERSIONS: '1', MIN_VERSIONS: '1', TTL: '60' })] })])),
    ['error versions.min-above-max table t family d', 'warn versions.min-with-ttl table t family d'],
  );
});

test('no bloom filter; no compression and no block encoding are info only; a codec the servers lack is an error', () => {
  const f = (a: Record<string, string>): ColumnFamilySchema[] => [{ name: 'd', attributes: { ...OUR_FAMILY.attributes, ...a } }];
  assert.deepEqual(rules(cluster([table({ families: f({ BLOOMFILTER: 'NONE' }) })])), ['warn storage.bloom table t family d']);
  assert.deepEqual(rules(cluster([table({ families: f({ COMPRESSION: 'NONE', DATA_BLOCK_ENCODING: 'NONE' }) })])), [
    'info storage.block-encoding table t family d',
    'info storage.compression table t family d',
  ]);
  const facts = cluster([table({ families: f({ COMPRESSION: 'LZO' }) })], { codecsUsable: ['NONE', 'GZ', 'SNAPPY'] });
  assert.deepEqual(rules(facts), ['error storage.codec-missing table t family d']);
  assert.equal(exitStatus(diagnose(facts)), 1);
});

test('the codec probe: a usable codec (any case) is fine; not probed, nothing is said; a failed probe is one info note on the cluster', () => {
  const f = (codec: string): ColumnFamilySchema[] => [{ name: 'd', attributes: { ...OUR_FAMILY.attributes, COMPRESSION: codec } }];
  assert.deepEqual(rules(cluster([table({ families: f('gz') })], { codecsUsable: ['NONE', 'GZ'] })), []);
  assert.deepEqual(rules(cluster([table({ families: f('LZO') })])), [], 'no probe: codec-missing is not checked');
  const missing = diagnose(cluster([table({ families: f('ZSTD') })], { codecsUsable: [] })).find((x) => x.rule === 'storage.codec-missing');
  assert.match(missing?.measured ?? '', /COMPRESSION ZSTD, which the codec probe could not use \(usable there: none\)/);
  assert.match(missing?.threshold ?? '', /admin tool's JVM .* only where the tool runs with their HBase installation/);
  const failed = cluster([table({ families: f('LZO') })], { codecProbeFailure: "codecs: cannot run admin tool 'java': spawn java ENOENT" });
  assert.deepEqual(rules(failed), ['info storage.codec-probe cluster']);
  assert.equal(exitStatus(diagnose(failed)), 0, 'a failed probe is no error');
  const [note] = diagnose(failed);
  assert.match(note?.measured ?? '', /codec probe failed, so storage\.codec-missing was not checked: codecs: cannot run admin tool 'java'/);
  assert.match(note?.fix ?? '', /--no-codec-probe/);
  assert.match(note?.source ?? '', /book\.html#compression$/);
});

test('hex-string split points on the binary salt: every region but the first is unreachable, an error each', () => {
  // RegionSplitter's HexStringSplit for 16 regions: "10000000" … "f0000000" as ASCII.
  const hex = Array.from({ length: 15 }, (_v, i) => Buffer.from(`${(i + 1).toString(16)}0000000`, 'latin1'));
  const found = diagnose(cluster([table({ regions: regionsFrom('t', hex) })]));
  assert.equal(found.length, 15);
  assert.ok(found.every((f) => f.rule === 'keyspace.unreachable-region' && f.severity === 'error'));
  assert.match(found[0]?.measured ?? '', /holds no key of the binary salt 0–15/);
  // The same splits are right for the printable salt up to bucket 0xf0 … and the planner's own printable splits all reachable.
  assert.deepEqual(rules(cluster([table({ layout: { ...LAYOUT, saltFormat: 'printable' }, regions: regionsFrom('t', planSaltSplits(16, 'printable')) })])), []);
});

test('regionReachable at the edges of a bucket', () => {
  const l = { buckets: 16, saltFormat: 'binary' as const };
  assert.equal(regionReachable(Buffer.from([5]), Buffer.from([5, 0]), l), false); // only the bare prefix sorts there
  assert.equal(regionReachable(Buffer.from([5]), Buffer.from([5, 1]), l), true);
  assert.equal(regionReachable(Buffer.from([16]), Buffer.alloc(0), l), false); // past the last bucket
  assert.equal(regionReachable(Buffer.from([15, 0xff, 0xff]), Buffer.alloc(0), l), true);
  assert.equal(regionReachable(Buffer.alloc(0), Buffer.from([0, 0]), l), false);
});

test('memstores beyond the heap (the sizing formula) and salt buckets against servers', () => {
  const small = cluster([table()], { servers: [{ name: 'rs1:16020', maxHeapMB: 1024, regions: 70, stores: 70 }] });
  const f = diagnose(small).find((x) => x.rule === 'servers.memstore-heap');
  assert.ok(f);
  assert.match(f.threshold, /= 3 regions as a starting point/);
  const many = cluster([table()], { servers: Array.from({ length: 20 }, (_v, i) => ({ name: `rs${i}:16020`, maxHeapMB: 32_768, regions: 10, stores: 10 })) });
  assert.deepEqual(rules(many), ['warn keyspace.buckets-vs-servers table t']);
  const six = cluster([table()], { servers: Array.from({ length: 6 }, (_v, i) => ({ name: `rs${i}:16020`, maxHeapMB: 32_768, regions: 10, stores: 10 })) });
  assert.deepEqual(rules(six), ['info keyspace.buckets-vs-servers table t']);
});

test('write spread: a hot region and idle regions since the last check', () => {
  const regions = regionsFrom('t', planSaltSplits(4, 'binary'));
  const writes = new Map(regions.map((r, i) => [r.name, [100, 100, 600, 0][i] ?? 0]));
  const got = diagnose(cluster([table({ layout: { ...LAYOUT, buckets: 4 }, regions, writesSinceLastCheck: writes })]));
  assert.deepEqual(
    got.map((x) => x.rule),
    ['spread.idle-regions', 'spread.skew'],
  );
  assert.match(got[1]?.measured ?? '', /write skew 3\.00/);
  // Too few writes to say anything.
  const few = new Map(regions.map((r) => [r.name, 1]));
  assert.deepEqual(rules(cluster([table({ layout: { ...LAYOUT, buckets: 4 }, regions, writesSinceLastCheck: few })])), []);
});

test('cells of several MB warn, over 10 MB is an error; long row keys warn', () => {
  const sample = (maxCellBytes: number, avgKey = 30): SampleFacts => ({
    rows: 10,
    cells: 40,
    maxCellBytes,
    cellsOver1MB: maxCellBytes >= 1 << 20 ? 1 : 0,
    rowKeyBytes: { avg: avgKey, max: avgKey * 2 },
    qualifierBytes: { avg: 2, max: 4 },
  });
  assert.deepEqual(rules(cluster([table({ sample: sample(3 << 20) })])), ['warn cells.size table t']);
  assert.deepEqual(rules(cluster([table({ sample: sample(12 << 20) })])), ['error cells.size table t']);
  assert.deepEqual(rules(cluster([table({ sample: sample(100, 180) })])), ['warn rowkeys.length table t']);
});

test('the layout comes from the attributes tables apply writes', () => {
  assert.deepEqual(layoutFromAttributes({ 'tsingest.salt.buckets': '16', 'tsingest.key.format': 'v1:printable', 'tsingest.table.role': 'data' }), {
    role: 'data',
    buckets: 16,
    saltFormat: 'printable',
  });
  assert.deepEqual(layoutFromAttributes({ 'tsingest.salt.buckets': '8', 'tsingest.key.format': 'v1:spread-registry' }), {
    role: 'meta',
    buckets: 8,
    saltFormat: 'binary',
  });
  assert.equal(layoutFromAttributes({ 'tsingest.salt.buckets': 'x', 'tsingest.key.format': 'v1:binary' }), undefined);
  assert.equal(layoutFromAttributes({}), undefined);
});

test('storage.bytes-per-point: the service tables’ store files over the points the coarsest summaries count; too coarse, or not counted, said so', () => {
  const rollupLayout: ServiceLayout = { role: 'rollup', buckets: 16, saltFormat: 'binary' };
  const sized = (name: string, role: ServiceLayout['role'], mbPerRegion: number): TableFacts =>
    table({ name, layout: { ...rollupLayout, role }, regions: regionsFrom(name, planSaltSplits(16, 'binary'), { storefileSizeMB: mbPerRegion }) });
  const tables = [sized('tsdata', 'data', 3), sized('tsindex', 'index', 1), sized('tsrollup', 'rollup', 2), table({ name: 'other', layout: undefined })];
  const count = { table: 'tsrollup', family: 'r1d', summaries: 1000, points: 16 * 1024 * 1024, bound: 1_000_000 };
  const f = footprintFindings({ tables, pointCount: count }).at(0);
  // 16 regions: data 48 MB, index 16 MB, rollup 32 MB over 16 Mi points
  assert.equal(f?.severity, 'info');
  assert.match(f.measured, /^6\.0 bytes per point \(data 3\.0, index 1\.0, rollup 2\.0\) over 16777216 points in 1000 r1d summaries of table tsrollup/);
  assert.match(f.fix, /tables\.rollup\.pointsTtlSeconds/);
  assert.match(
    footprintFindings({ tables: [sized('tsdata', 'data', 0)], pointCount: count })[0]?.measured ?? '',
    /whole MB per region, too coarse to divide yet/,
  );
  assert.match(footprintFindings({ tables, pointCount: { ...count, points: undefined } })[0]?.measured ?? '', /more than 1000000 r1d summaries/);
  assert.deepEqual(footprintFindings({ tables }), [], 'no count asked: nothing said');
});

test('the coarsest summary family is the largest r<size>, whatever the order', () => {
  const fam = (name: string): ColumnFamilySchema => ({ name, attributes: OUR_FAMILY.attributes });
  assert.equal(coarsestSummaryFamily({ schema: { name: 'r', families: [fam('d'), fam('r1d'), fam('r1h'), fam('p')], attributes: {} } }), 'r1d');
  assert.equal(coarsestSummaryFamily({ schema: { name: 'r', families: [fam('r15m'), fam('r1h')], attributes: {} } }), 'r1h');
  assert.equal(coarsestSummaryFamily({ schema: { name: 'r', families: [fam('d')], attributes: {} } }), undefined);
});
