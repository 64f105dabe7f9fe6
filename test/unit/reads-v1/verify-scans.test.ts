// verifyScans: the data keys of a chunk of hits as one range per run of an id's keys in a bucket,
// sorted and disjoint, one group per bucket, covering every hit (and, checked by brute force over
// random chunks, no key of another id); alignRows puts scanned rows back in hit order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Keyspace, type ScanRange } from '../../../src/keys/index.ts';
import { alignRows, hitOf, verifyScans, type IndexHit } from '../../../src/reads-v1/verify.ts';

const B = 8;
const keyspace = new Keyspace({ buckets: B, format: 'binary', indexSaltMode: 'entry' });
const T0 = Date.UTC(2026, 10, 25);

function hit(id: string, ts: number): IndexHit {
  return hitOf(keyspace.indexKey({ indexName: 'site', value: 'hq', ts, id }), keyspace);
}

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

const inRange = (key: Buffer, r: ScanRange): boolean => Buffer.compare(key, r.startRow) >= 0 && Buffer.compare(key, r.stopRow) < 0;

void test('one range per id in its bucket from its newest to just after its oldest hit; groups by bucket', () => {
  const hits = [hit('a', T0 + 5), hit('b', T0 + 1), hit('a', T0 + 1), hit('a', T0 + 3)];
  const scans = verifyScans(hits, keyspace);
  const all = scans.flatMap((s) => s.ranges);
  assert.equal(all.length, 2, 'one range for a, one for b');
  const a = all.find((r) => inRange(keyspace.dataKey('a', T0 + 3), r));
  assert.ok(a !== undefined);
  assert.deepEqual(a.startRow, keyspace.dataKey('a', T0 + 5), 'starts at the newest hit (reverse ts)');
  assert.deepEqual(a.stopRow, Buffer.concat([keyspace.dataKey('a', T0 + 1), Buffer.from([0])]), 'stops just after the oldest');
  for (const s of scans) for (const r of s.ranges) assert.equal(keyspace.dataBucket(r.startRow), s.bucket);
  assert.deepEqual(verifyScans([], keyspace), []);
});

void test("random chunks: ranges sorted and disjoint, every hit covered, no other id's key inside", () => {
  const random = prng(11);
  const ids = Array.from({ length: 40 }, (_, i) => `dev-${i}`);
  for (let round = 0; round < 50; round++) {
    const hits = Array.from({ length: 1 + Math.floor(random() * 60) }, () =>
      hit(ids[Math.floor(random() * ids.length)] as string, T0 + Math.floor(random() * 86_400_000)),
    );
    const scans = verifyScans(hits, keyspace);
    assert.equal(new Set(scans.map((s) => s.bucket)).size, scans.length, 'one group per bucket');
    const all = scans.flatMap((s) => s.ranges);
    for (let i = 1; i < all.length; i++) assert.ok(Buffer.compare((all[i - 1] as ScanRange).stopRow, (all[i] as ScanRange).startRow) <= 0, 'sorted, disjoint');
    for (const h of hits) assert.equal(all.filter((r) => inRange(h.dataKey, r)).length, 1, 'each hit in exactly one range');
    for (const r of all) {
      const owners = new Set(hits.filter((h) => inRange(h.dataKey, r)).map((h) => h.id));
      assert.equal(owners.size, 1, 'a range holds one id');
      const [owner] = owners;
      for (const other of ids.filter((x) => x !== owner)) assert.ok(!inRange(keyspace.dataKey(other, T0 + 1000), r), `${other} is not inside ${owner}'s range`);
    }
  }
});

void test('alignRows: scanned rows in hit order, null where no row came back, extra rows ignored', () => {
  const hits = [hit('a', T0 + 2), hit('b', T0), hit('a', T0 + 1)];
  const row = (h: IndexHit) => ({ row: h.dataKey, cells: [] });
  const extra = { row: keyspace.dataKey('a', T0 + 9), cells: [] };
  const aligned = alignRows(hits, [row(hits[2] as IndexHit), extra, row(hits[0] as IndexHit)]);
  assert.deepEqual(
    aligned.map((r) => r?.row.toString('hex') ?? null),
    [(hits[0] as IndexHit).dataKey.toString('hex'), null, (hits[2] as IndexHit).dataKey.toString('hex')],
  );
});
