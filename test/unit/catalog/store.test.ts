// CatalogStore: one prefix scan (all series, or one metric's), damaged rows skipped and counted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GENERATION_QUALIFIER, GENERATION_ROW, JOURNALED_QUALIFIER, journalKey, seriesRow, type Series } from '../../../src/catalog/rows.ts';
import { CatalogStore, type CatalogScanPort, type CatalogScanRow } from '../../../src/catalog/store.ts';

function port(rows: CatalogScanRow[]): CatalogScanPort & { ranges: string[] } {
  const ranges: string[] = [];
  return {
    ranges,
    async *scan(_table, o) {
      ranges.push(`${o.startRow.toString('latin1')}..${o.stopRow.toString('latin1')}`);
      await Promise.resolve();
      for (const r of [...rows].sort((a, b) => Buffer.compare(a.row, b.row))) {
        if (Buffer.compare(r.row, o.startRow) >= 0 && Buffer.compare(r.row, o.stopRow) < 0) yield r;
      }
    },
    get(_table, key) {
      return Promise.resolve(rows.find((r) => r.row.equals(key)) ?? null);
    },
  };
}

const row = (metric: string, id: string, tags: Record<string, string>): CatalogScanRow => {
  const r = seriesRow({ metric, id, tags });
  return { row: r.key, cells: [{ qualifier: Buffer.from('t'), value: r.value, timestamp: 0 }] };
};

void test('reads every series, or one metric; skips foreign and damaged rows', async () => {
  const p = port([
    row('cpu', 'a', { dc: 'x' }),
    row('cpu', 'b', {}),
    row('cpu2', 'a', {}),
    { row: Buffer.from('spread/a'), cells: [{ qualifier: Buffer.from('e'), value: Buffer.from('{}'), timestamp: 0 }] },
    { row: seriesRow({ metric: 'cpu', id: 'c', tags: {} }).key, cells: [{ qualifier: Buffer.from('t'), value: Buffer.from('{"x":"1"}'), timestamp: 0 }] },
  ]);
  const store = new CatalogStore(p, { table: 'meta' });
  const all = await store.read();
  assert.deepEqual(all.series.map((s) => `${s.metric}/${s.id}`).sort(), ['cpu/a', 'cpu/b', 'cpu2/a']);
  assert.equal(all.skipped, 1, 'the row whose digest does not match its cell');
  const cpu = await store.read('cpu');
  assert.deepEqual(cpu.series.map((s) => s.id).sort(), ['a', 'b']);
  assert.deepEqual(cpu.series.find((s) => s.id === 'a')?.tags, { dc: 'x' });
  assert.equal(p.ranges[1], 'series/cpu\u0000..series/cpu\u0001');
});

void test("the catalog's generation: the token's hex, undefined before any writer wrote one", async () => {
  const none = new CatalogStore(port([row('cpu', 'a', {})]), { table: 'meta' });
  assert.equal(await none.generation(), undefined);
  const token = Buffer.from('0102030405060708', 'hex');
  const some = new CatalogStore(port([{ row: GENERATION_ROW, cells: [{ qualifier: GENERATION_QUALIFIER, value: token, timestamp: 0 }] }]), { table: 'meta' });
  assert.deepEqual(await some.generation(), { token: '0102030405060708', journaled: false }, 'no j cell: its writer keeps no journal');
  const other = Buffer.from('0807060504030201', 'hex');
  const cells = (j: Buffer) => [
    { qualifier: GENERATION_QUALIFIER, value: token, timestamp: 0 },
    { qualifier: JOURNALED_QUALIFIER, value: j, timestamp: 0 },
  ];
  const journaled = new CatalogStore(port([{ row: GENERATION_ROW, cells: cells(token) }]), { table: 'meta' });
  assert.deepEqual(await journaled.generation(), { token: '0102030405060708', journaled: true });
  const stale = new CatalogStore(port([{ row: GENERATION_ROW, cells: cells(other) }]), { table: 'meta' });
  assert.deepEqual(await stale.generation(), { token: '0102030405060708', journaled: false }, 'j from an earlier writer: the last one kept none');
});

void test('the journal: the series its rows list since a time, from the rows of those minutes alone (two ranges past midnight)', async () => {
  const day = Date.UTC(2026, 10, 29);
  const cell = (metric: string, id: string, timestamp: number) => {
    const r = seriesRow({ metric, id, tags: { site: 's1' } });
    return { qualifier: r.key, value: r.value, timestamp };
  };
  const at = day + 10 * 3_600_000; // 10:00
  const p = port([
    { row: journalKey(at - 120_000), cells: [cell('cpu', 'old', at - 86_400_000), cell('cpu', 'a', at - 110_000)] },
    { row: journalKey(at), cells: [cell('cpu', 'b', at + 1_000), { qualifier: Buffer.from('series/x'), value: Buffer.from('{}'), timestamp: at }] },
    { row: journalKey(at + 7_200_000), cells: [cell('cpu', 'later', at - 200_000)] },
  ]);
  const store = new CatalogStore(p, { table: 'meta' });
  const got = await store.journal(at - 115_000, at + 5_000);
  assert.deepEqual(
    got.series.map((s) => s.id).sort(),
    ['a', 'b'],
    "yesterday's cell in a reused row is skipped by its stamp; a row outside the minutes is not read",
  );
  assert.deepEqual(got.series.find((s) => s.id === 'a')?.tags, { site: 's1' });
  assert.equal(got.skipped, 1, 'a cell that is no series row');
  assert.deepEqual(p.ranges, ['catalog/journal/0598..catalog/journal/0602']);
  const midnight = day + 86_400_000;
  p.ranges.length = 0;
  await store.journal(midnight - 90_000, midnight + 10_000);
  assert.deepEqual(p.ranges, ['catalog/journal/1438..catalog/journal0', 'catalog/journal/..catalog/journal/0002']);
});

void test("the journal with a reader's seen cells: a cell read once is not given again, a series written again is; what no read reaches is dropped", async () => {
  const day = Date.UTC(2026, 10, 29);
  const at = day + 10 * 3_600_000;
  const cell = (id: string, timestamp: number) => {
    const r = seriesRow({ metric: 'cpu', id, tags: {} });
    return { qualifier: r.key, value: r.value, timestamp };
  };
  const rows: CatalogScanRow[] = [{ row: journalKey(at), cells: [cell('a', at + 1_000), cell('b', at + 2_000)] }];
  const store = new CatalogStore(port(rows), { table: 'meta' });
  const seen = new Map<string, number>();
  const ids = async (since: number): Promise<string[]> => (await store.journal(since, at + 30_000, seen)).series.map((s) => s.id).sort();
  assert.deepEqual(await ids(at - 300_000), ['a', 'b']);
  assert.deepEqual(await ids(at - 290_000), [], 'the same cells again: skipped undecoded');
  rows[0] = { row: journalKey(at), cells: [cell('a', at + 1_000), cell('b', at + 9_000)] };
  assert.deepEqual(await ids(at - 280_000), ['b'], 'b written again (a new stamp): given again');
  assert.equal(seen.size, 2);
  await ids(at + 5_000);
  assert.deepEqual([...seen.values()], [at + 9_000], "a's cell is before every later read: no longer kept");
  assert.deepEqual(await store.journal(at - 300_000, at + 30_000).then((r) => r.series.length), 2, 'without `seen`: every cell');
});

void test('the first series rows of the catalog, at most a limit, damaged ones skipped, each with its cell', async () => {
  const damaged = {
    row: seriesRow({ metric: 'cpu', id: 'a0', tags: {} }).key,
    cells: [{ qualifier: Buffer.from('t'), value: Buffer.from('{"x":"1"}'), timestamp: 0 }],
  };
  const p = port([row('cpu', 'a', {}), damaged, row('cpu', 'b', {}), row('cpu', 'c', {}), row('mem', 'a', { dc: 'x' })]);
  const store = new CatalogStore(p, { table: 'meta' });
  const first = async (limit: number) => {
    const out: { series: Series; cell: Buffer }[] = [];
    for await (const r of store.first(limit)) out.push(r);
    return out;
  };
  assert.deepEqual(
    (await first(2)).map((r) => `${r.series.metric}/${r.series.id}`),
    ['cpu/a', 'cpu/b'],
  );
  const all = await first(10);
  assert.equal(all.length, 4);
  assert.equal(all.at(-1)?.cell.toString(), '{"dc":"x"}', "the row's own cell: the canonical tags JSON");
  assert.equal((await first(0)).length, 0);
});
